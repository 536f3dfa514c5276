import { type ShopOptions, startShop } from '../simulator/index.js';

/**
 * Child process of the fleet benchmark: serves every shop of the fleet (options as a JSON array in argv[2]) apart from
 * the workers, so their CPU is their own. Prints each shop's URL and token as one JSON line, serves
 * until stdin closes, then prints each shop's request statistics.
 */
const options = JSON.parse(process.argv[2] ?? '[]') as ShopOptions[];
const shops = await Promise.all(options.map((shop) => startShop(shop)));
process.stdout.write(`${JSON.stringify(shops.map(({ url, token }) => ({ url, token })))}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(`${JSON.stringify(shops.map((shop) => shop.stats()))}\n`);
  void Promise.all(shops.map((shop) => shop.close())).then(() => process.exit(0));
});
