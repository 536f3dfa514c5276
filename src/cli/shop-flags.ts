import { type FlagValues, flag } from './flags.js';
import { parseShopAddress, type ShopAddress } from './shop-address.js';
import { resolveToken } from './token.js';
import { UsageError } from './usage-error.js';

/** The flags of a command that talks to one shop. */
export const SHOP_FLAGS = {
  shop: flag.string({
    describe:
      'The shop: name, name.myshopify.com, https://name.myshopify.com or its admin address (https://admin.shopify.com/store/name/…)',
    env: true,
  }),
  token: flag.string({
    describe: 'Admin API access token; prefer the variable or --token-file (arguments are visible to other users)',
    env: true,
  }),
  tokenFile: flag.string({ describe: 'File holding the access token', env: true }),
};

/** The shop and its access token from SHOP_FLAGS. */
export async function shopAndToken(
  flags: FlagValues<typeof SHOP_FLAGS>,
): Promise<{ shop: ShopAddress; token: string }> {
  if (flags.shop === undefined) throw new UsageError('--shop (or SHOPSNAP_SHOP) is required');
  const shop = parseShopAddress(flags.shop);
  return { shop, token: await resolveToken(flags) };
}
