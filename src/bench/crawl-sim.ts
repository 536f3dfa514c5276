import { startShop } from '../simulator/index.js';

/**
 * Child process of the crawl benchmark: serves one simulated shop (options as JSON in argv[2]) so the crawler's CPU
 * and memory figures are its own. Prints `{"url","token","counts"}` as one line, then serves until stdin closes.
 */
const options = JSON.parse(process.argv[2] ?? '{}');
const shop = await startShop(options);
const counts = { products: shop.count('products'), customers: shop.count('customers'), orders: shop.count('orders') };
process.stdout.write(`${JSON.stringify({ url: shop.url, token: shop.token, counts })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(`${JSON.stringify({ stats: shop.stats() })}\n`);
  void shop.close().then(() => process.exit(0));
});
