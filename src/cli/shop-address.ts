/** A validated shop: the only origin requests may go to, and the folder/key name its snapshots live under. */
export interface ShopAddress {
  origin: string;
  /** Safe as one path segment and one storage key segment. */
  key: string;
}

export class ShopAddressError extends Error {
  override name = 'ShopAddressError';
  readonly code = 'ERR_SHOP_ADDRESS';
}

const SHOP_NAME = /^[a-z0-9][a-z0-9-]{0,58}[a-z0-9]$|^[a-z0-9]$/;
const MYSHOPIFY_HOST = /^([a-z0-9][a-z0-9-]*[a-z0-9]|[a-z0-9])\.myshopify\.com$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** The admin's address: `https://admin.shopify.com/store/<name>/…`, what users copy from their browser. */
const ADMIN_HOST = 'admin.shopify.com';

/**
 * The folder a `--shop` filter of a listing names: the shop's key, as for backup, or a folder name itself
 * (`127.0.0.1-8080`, `shopsnap-demo`), which no shop address gives.
 */
export function shopFolder(text: string): string {
  try {
    return parseShopAddress(text).key;
  } catch (error) {
    if (/^[A-Za-z0-9._-]+$/.test(text) && !text.startsWith('.')) return text;
    throw error;
  }
}

/**
 * Accepts `name`, `name.myshopify.com`, `https://name.myshopify.com`, the admin's address
 * `https://admin.shopify.com/store/name` (with whatever page of the admin follows), and plain `http://` only for
 * loopback addresses (the simulated shop). Everything else — paths, encoded slashes, NUL, full-width letters, look-alike
 * hosts such as `x.myshopify.com.evil.io` — is rejected before any I/O.
 */
export function parseShopAddress(input: string): ShopAddress {
  const text = input.trim();
  const fail = (why: string): never => {
    throw new ShopAddressError(
      `invalid shop ${JSON.stringify(input)}: ${why}; expected a shop name, name.myshopify.com, https://name.myshopify.com or https://admin.shopify.com/store/name`,
    );
  };
  if (!/^[\x21-\x7e]+$/.test(text)) fail('only printable ASCII is allowed');
  // Copied without its scheme (some browsers hide it).
  if (/^admin\.shopify\.com\//i.test(text)) return parseShopAddress(`https://${text}`);
  if (!text.includes('://')) {
    const host = text.toLowerCase();
    if (SHOP_NAME.test(host)) return namedShop(host);
    if (MYSHOPIFY_HOST.test(host)) return { origin: `https://${host}`, key: host };
    return fail('not a shop name');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('not a URL');
  }
  if (url.username || url.password) fail('credentials in the URL are not allowed');
  if (url.protocol === 'https:' && url.hostname.toLowerCase() === ADMIN_HOST && url.port === '') {
    return adminAddress(url) ?? fail(`not an admin address of a shop (https://${ADMIN_HOST}/store/name)`);
  }
  if (url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) fail('a path or query is not allowed');
  if (/%/.test(text)) fail('percent-encoding is not allowed');
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'https:' && MYSHOPIFY_HOST.test(host) && url.port === '') {
    return { origin: `https://${host}`, key: host };
  }
  if (LOOPBACK_HOSTS.has(host) && (url.protocol === 'http:' || url.protocol === 'https:')) {
    const port = url.port || (url.protocol === 'http:' ? '80' : '443');
    return { origin: url.origin, key: `${host === '[::1]' ? 'ipv6-loopback' : host}-${port}` };
  }
  return fail('only https://*.myshopify.com, or http(s) on a loopback address for testing');
}

/** The shop an admin address names; the page of the admin after the name (`/orders/123?…`) does not matter. */
function adminAddress(url: URL): ShopAddress | undefined {
  const [, store, segment] = url.pathname.split('/');
  const name = segment?.toLowerCase();
  return store === 'store' && name !== undefined && SHOP_NAME.test(name) ? namedShop(name) : undefined;
}

function namedShop(name: string): ShopAddress {
  return { origin: `https://${name}.myshopify.com`, key: `${name}.myshopify.com` };
}
