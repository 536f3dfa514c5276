import Shopify from 'shopify-api-node';
import { RESOURCES } from '../shopify/resources.js';

/**
 * The peer of the crawl benchmark, in a process of its own: what a Node user writes with shopify-api-node — `autoLimit`
 * on, every resource with every status, `Link` followed one page after another. argv: shop URL and token. Prints
 * `{"records","requests"}`.
 */
const [url = '', token = ''] = process.argv.slice(2);
const { hostname, port, protocol } = new URL(url);
const shopify = new Shopify({ shopName: 'bench-peer', accessToken: token, apiVersion: '2022-01', autoLimit: true });
// shopify-api-node always builds https://<shopName>.myshopify.com; its requests take this object as the base.
(shopify as unknown as { baseUrl: object }).baseUrl = { hostname, port: Number(port), protocol };
const lists = {
  products: (params: object) => shopify.product.list(params),
  customers: (params: object) => shopify.customer.list(params),
  orders: (params: object) => shopify.order.list(params),
};
const filters = { products: { status: 'active,archived,draft' }, customers: {}, orders: { status: 'any' } };
let records = 0;
let requests = 0;
for (const resource of RESOURCES) {
  let params: object | undefined = { limit: 250, ...filters[resource] };
  while (params) {
    const page: { length: number; nextPageParameters?: object } = await lists[resource](params);
    requests++;
    records += page.length;
    params = page.nextPageParameters;
  }
}
process.stdout.write(`${JSON.stringify({ records, requests })}\n`);
