import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/shopify/json.js';
import { type RunningShop, startShop } from '../../src/simulator/index.js';
import { clientFor, crawl, listOf, type ShopClient } from './shop-client.js';

const one = (json: unknown, key: string) => (json as JsonObject)[key] as JsonObject;
const ids = (list: unknown) => (list as JsonObject[]).map((item) => item.id);
const TWO_TO_53 = 2n ** 53n;
/** A PNG's signature and IHDR chunk: 3 × 2 pixels. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d494844520000000300000002080600000000000000', 'hex').toString('base64');
/** EX22 product test_12's attachment: a 1 × 1 GIF, base64 with a line break. */
const GIF = 'R0lGODlhAQABAIAAAAAAAAAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==\n';

describe('simulated shop: product writes', () => {
  let shop: RunningShop;
  let client: ShopClient;
  beforeAll(async () => {
    shop = await startShop({ seed: 31, products: 20, customers: 30, orders: 120, bigIdShare: 0.3 });
    client = clientFor(shop);
  });
  afterAll(() => shop.close());

  const create = async (product: Record<string, unknown>) => {
    const served = await client.post('/products.json', { product });
    expect(served.status, served.text).toBe(201);
    return one(served.json, 'product');
  };

  it("creates a product with Shopify's defaults, its options, variants and images in one request (201)", async () => {
    const before = shop.count('products');
    const product = await create({
      title: 'Burton Custom Freestyle 151',
      body_html: '<strong>Good snowboard!</strong>',
      vendor: 'Burton',
      product_type: 'Snowboard',
      tags: ['winter', 'board'],
      options: [{ name: 'Size' }, { name: 'Colour' }],
      variants: [
        { option1: '151', option2: 'Black', price: '10.00', sku: '123', grams: 2000 },
        { option1: '155', option2: 'Black', price: 20, sku: '124', inventory_quantity: 7 },
      ],
      images: [
        { src: 'https://example.com/boards/front%20view.png', alt: 'Front' },
        { attachment: PNG, filename: 'b.png' },
        { attachment: GIF },
      ],
    });
    expect(product).toMatchObject({
      title: 'Burton Custom Freestyle 151',
      handle: 'burton-custom-freestyle-151',
      status: 'active',
      published_scope: 'web',
      tags: 'board, winter',
      template_suffix: null,
    });
    expect(product.published_at).toBe(product.created_at);
    const variants = product.variants as JsonObject[];
    expect(variants.map((v) => [v.title, v.price, v.position, v.inventory_quantity])).toEqual([
      ['151 / Black', '10.00', 1, 0],
      ['155 / Black', '20.00', 2, 0],
    ]);
    expect(variants[0]).toMatchObject({ grams: 2000, weight: 4.41, weight_unit: 'lb', inventory_management: null });
    expect((product.options as JsonObject[]).map((o) => [o.name, o.values])).toEqual([
      ['Size', ['151', '155']],
      ['Colour', ['Black']],
    ]);
    const images = product.images as JsonObject[];
    // Shopify hosts the files itself: the served src is its CDN's, under the original file name.
    const name = (src: unknown) => decodeURIComponent(new URL(src as string).pathname.split('/').pop() ?? '');
    expect(images.map((i) => [i.position, i.alt, name(i.src), i.width, i.height])).toEqual([
      [1, 'Front', 'front view.png', 0, 0],
      [2, null, 'b.png', 3, 2],
      [3, null, expect.stringMatching(/^[0-9a-f]{32}\.gif$/), 1, 1],
    ]);
    expect(images.every((i) => (i.src as string).startsWith('https://cdn.shopify.com/'))).toBe(true);
    expect(product.image).toEqual(images[0]);
    expect(shop.count('products')).toBe(before + 1);
    expect(one((await client.get(`/products/${product.id}.json`)).json, 'product')).toEqual(product);
  });

  it('suffixes a handle already taken, by a generated product or a created one, given or derived', async () => {
    const generated = [...shop.records('products')][4] as JsonObject;
    const given = await create({ title: 'Anything', handle: generated.handle });
    expect(given.handle).toBe(`${generated.handle}-1`);
    const first = await create({ title: 'Potion' });
    const second = await create({ title: 'Potion' });
    const third = await create({ title: 'potion!', handle: 'potion' });
    expect([first.handle, second.handle, third.handle]).toEqual(['potion', 'potion-1', 'potion-2']);
    const renamed = await client.put(`/products/${first.id}.json`, { product: { handle: 'potion-1' } });
    expect(one(renamed.json, 'product').handle).toBe('potion-1-1');
  });

  it('keeps a given published_at, and none for a draft or published: false', async () => {
    const historic = await create({ title: 'Old', published_at: '2019-05-06T07:08:09-04:00' });
    expect(historic.published_at).toBe('2019-05-06T07:08:09-04:00');
    expect((await create({ title: 'Draft', status: 'draft' })).published_at).toBeNull();
    expect((await create({ title: 'Hidden', published: false })).published_at).toBeNull();
    // Archived, it stays published as it was: shops hold archived products published while they were active.
    expect((await create({ title: 'Archived', status: 'archived', published: true })).published_at).not.toBeNull();
  });

  it('stores inline metafields of the product and its variants, and does not serve them with the product', async () => {
    const marker = { namespace: 'shopsnap', key: 'source_id', value: '7400000000123', type: 'single_line_text_field' };
    const product = await create({
      title: 'Marked',
      metafields: [marker],
      variants: [{ option1: 'A', metafields: [{ ...marker, value: '40000000000123' }] }],
    });
    expect(product.metafields).toBeUndefined();
    expect(shop.metafields('products', BigInt(String(product.id)))).toEqual([
      expect.objectContaining({ ...marker, owner_id: product.id, owner_resource: 'product' }),
    ]);
    const variant = (product.variants as JsonObject[])[0] as JsonObject;
    expect(shop.metafields('variants', BigInt(String(variant.id)))[0]).toMatchObject({
      value: '40000000000123',
      owner_resource: 'variant',
    });
    // metafields.json serves them by owner (EX22 metafield test_3), narrowed by namespace and key when asked.
    const listed = async (query: string) => {
      const served = await client.get(`/metafields.json?${query}`);
      expect(served.status, served.text).toBe(200);
      return (served.json as { metafields: JsonObject[] }).metafields;
    };
    const owner = `metafield[owner_id]=${product.id}&metafield[owner_resource]=product`;
    expect(await listed(owner)).toEqual([expect.objectContaining({ ...marker, owner_id: product.id })]);
    expect(await listed(`${owner}&namespace=shopsnap&key=source_id`)).toHaveLength(1);
    expect(await listed(`${owner}&namespace=shopsnap&key=other`)).toEqual([]);
    expect(await listed(`metafield[owner_id]=${variant.id}&metafield[owner_resource]=variant`)).toHaveLength(1);
    expect(await listed('metafield[owner_id]=1&metafield[owner_resource]=product')).toEqual([]);
    expect((await client.get('/metafields.json?metafield[owner_id]=1&metafield[owner_resource]=page')).status).toBe(
      404,
    );
  });

  it.each([
    [{ body_html: 'x' }, { title: ["can't be blank"] }],
    [{ title: 'T', status: 'live' }, { status: ['is not included in the list'] }],
    [
      { title: 'T', variants: [{ option1: 'A' }, { option1: 'A' }] },
      { base: ["The variant 'A' already exists. Please change at least one option value."] },
    ],
    [{ title: 'T', images: [{ alt: 'no file' }] }, { image: ['Image URL is invalid'] }],
    [{ title: 'T', metafields: [{ key: 'k' }] }, { metafields: ['is invalid'] }],
  ])('refuses %j with 422 and nothing created', async (product, errors) => {
    const before = shop.count('products');
    const served = await client.post('/products.json', { product });
    expect(served.status).toBe(422);
    expect(served.json).toEqual({ errors });
    expect(shop.count('products')).toBe(before);
  });

  it('gives created products new ids, above 2^53 for the share asked, listed, counted and found by filters', async () => {
    const start = new Date(Date.now() - 1000).toISOString();
    const made = [];
    for (let k = 0; k < 12; k++)
      made.push(await create({ title: `Batch ${k}`, variants: [{ option1: 'A' }, { option1: 'B' }] }));
    const big = made.filter((p) => typeof p.id === 'bigint');
    expect(big.length).toBeGreaterThan(0);
    for (const product of big) {
      expect(product.id as bigint).toBeGreaterThan(TWO_TO_53);
      for (const variant of product.variants as JsonObject[]) expect(variant.id as bigint).toBeGreaterThan(TWO_TO_53);
    }
    expect(new Set(made.map((p) => String(p.id))).size).toBe(12);
    expect((await client.get('/products/count.json')).json).toEqual({ count: shop.count('products') });
    const recent = await crawl(
      client,
      `/products.json?limit=5&updated_at_min=${encodeURIComponent(start)}`,
      'products',
    );
    expect(recent.map((p) => String(p.id)).sort()).toEqual(
      expect.arrayContaining(made.map((p) => String(p.id)).sort()),
    );
    const after = await crawl(client, '/products.json?limit=50&since_id=0', 'products');
    for (const product of made) expect(after.map((p) => String(p.id))).toContain(String(product.id));
  });
});

describe('simulated shop: product PUT replaces variants and images', () => {
  let shop: RunningShop;
  let client: ShopClient;
  let product: JsonObject;
  beforeAll(async () => {
    shop = await startShop({ seed: 35, products: 5, customers: 5, orders: 5 });
    client = clientFor(shop);
    const served = await client.post('/products.json', {
      product: {
        title: 'Tee',
        options: [{ name: 'Colour' }],
        variants: [
          { option1: 'Red', price: '10.00' },
          { option1: 'Blue', price: '10.00' },
          { option1: 'Green', price: '10.00' },
        ],
        images: [{ src: 'https://example.com/red.jpg' }, { src: 'https://example.com/blue.jpg' }],
      },
    });
    product = one(served.json, 'product');
  });
  afterAll(() => shop.close());

  const put = (body: Record<string, unknown>) => client.put(`/products/${product.id}.json`, { product: body });
  const variantsOf = (p: JsonObject) => p.variants as JsonObject[];

  it('keeps scalars it is not given, and the arrays when they are not sent', async () => {
    const served = one((await put({ body_html: '<p>soft</p>' })).json, 'product');
    expect(served).toMatchObject({ title: 'Tee', body_html: '<p>soft</p>', handle: 'tee' });
    expect(ids(served.variants)).toEqual(ids(product.variants));
    expect(ids(served.images)).toEqual(ids(product.images));
  });

  it('updates variants by id, matches one without id by its options, creates new ones and deletes the rest', async () => {
    const [red, blue, green] = variantsOf(product) as [JsonObject, JsonObject, JsonObject];
    const served = await put({
      variants: [
        { id: blue.id, price: '12.00' },
        { option1: 'Red', price: '11.00' },
        { option1: 'Pink', price: '13.00' },
      ],
    });
    expect(served.status).toBe(200);
    const variants = variantsOf(one(served.json, 'product'));
    expect(variants.map((v) => [v.option1, v.price, v.position])).toEqual([
      ['Blue', '12.00', 1],
      ['Red', '11.00', 2],
      ['Pink', '13.00', 3],
    ]);
    expect(variants[0]?.id).toBe(blue.id);
    expect(variants[1]?.id).toBe(red.id);
    expect([red.id, blue.id, green.id]).not.toContain(variants[2]?.id);
    expect((await client.get(`/variants/${green.id}.json`)).status).toBe(404);
    expect(one((await client.get(`/variants/${variants[2]?.id}.json`)).json, 'variant')).toEqual(variants[2]);
    product = one(served.json, 'product');
    expect((product.options as JsonObject[])[0]).toMatchObject({ name: 'Colour', values: ['Blue', 'Red', 'Pink'] });
  });

  it('refuses variant ids that are not the product’s, changing nothing', async () => {
    const other = [...shop.records('products')][0] as JsonObject;
    const stranger = (other.variants as JsonObject[])[0]?.id;
    const served = await put({ variants: [{ id: stranger, price: '1.00' }] });
    expect(served.status).toBe(422);
    expect(served.json).toEqual({
      errors: {
        base: [
          `Variants have not been changed. The following IDs do not exist or do not belong to the product: ${stranger}`,
        ],
      },
    });
    expect(one((await client.get(`/products/${product.id}.json`)).json, 'product')).toEqual(product);
  });

  it('replaces images: kept by id, added without, the rest deleted; variant_ids tie variants to images', async () => {
    const [first] = product.images as [JsonObject];
    const [blue, red] = variantsOf(product) as [JsonObject, JsonObject];
    const served = one(
      (
        await put({
          images: [
            { src: 'https://example.com/new.jpg', variant_ids: [blue.id, red.id] },
            { id: first.id, alt: 'Red' },
          ],
        })
      ).json,
      'product',
    );
    const images = served.images as JsonObject[];
    expect(images.map((i) => [i.position, i.alt])).toEqual([
      [1, null],
      [2, 'Red'],
    ]);
    expect(images[1]?.id).toBe(first.id);
    expect(images[0]?.variant_ids).toEqual([blue.id, red.id]);
    expect(variantsOf(served).map((v) => v.image_id)).toEqual([images[0]?.id, images[0]?.id, null]);
    expect(served.image).toEqual(images[0]);
    const cleared = one((await put({ images: [] })).json, 'product');
    expect(cleared).toMatchObject({ images: [], image: null });
    expect(variantsOf(cleared).every((v) => v.image_id === null)).toBe(true);
    product = cleared;
  });

  it('orders images by the positions a PUT gives (EX22 product test_25)', async () => {
    const added = one(
      (await put({ images: [{ src: 'https://example.com/a.jpg' }, { src: 'https://example.com/b.jpg' }] })).json,
      'product',
    );
    const [a, b] = added.images as [JsonObject, JsonObject];
    const served = one(
      (
        await put({
          images: [
            { id: a.id, position: 2 },
            { id: b.id, position: 1 },
          ],
        })
      ).json,
      'product',
    );
    expect((served.images as JsonObject[]).map((i) => [i.id, i.position])).toEqual([
      [b.id, 1],
      [a.id, 2],
    ]);
    product = one((await put({ images: [] })).json, 'product');
  });

  it('creates a variant with the variant endpoint and refuses the same options again', async () => {
    const created = await client.post(`/products/${product.id}/variants.json`, {
      variant: { option1: 'Yellow', price: '1.00', sku: 'Y-1' },
    });
    expect(created.status).toBe(201);
    const variant = one(created.json, 'variant');
    expect(variant).toMatchObject({
      option1: 'Yellow',
      price: '1.00',
      product_id: product.id,
      position: 4,
      inventory_management: 'shopify',
    });
    const again = await client.post(`/products/${product.id}/variants.json`, { variant: { option1: 'Yellow' } });
    expect(again.status).toBe(422);
    expect(again.json).toEqual({
      errors: { base: ["The variant 'Yellow' already exists. Please change at least one option value."] },
    });
    expect((await client.post('/products/1/variants.json', { variant: { option1: 'x' } })).status).toBe(404);
  });

  it('adds a variant to a generated product, which orders can then sell', async () => {
    const generated = [...shop.records('products')][2] as JsonObject;
    const served = await client.post(`/products/${generated.id}/variants.json`, {
      variant: { option1: 'Yellow', option2: 'XXL', price: '1.00' },
    });
    expect(served.status).toBe(201);
    const variant = one(served.json, 'variant');
    const reread = one((await client.get(`/products/${generated.id}.json`)).json, 'product');
    expect(variantsOf(reread)).toHaveLength(variantsOf(generated).length + 1);
    const order = await client.post('/orders.json', { order: { line_items: [{ variant_id: variant.id }] } });
    expect((one(order.json, 'order').line_items as JsonObject[])[0]).toMatchObject({
      variant_id: variant.id,
      product_id: generated.id,
      price: '1.00',
    });
  });

  it('updates one variant with PUT variants/{id}.json, leaving its siblings alone', async () => {
    const current = one((await client.get(`/products/${product.id}.json`)).json, 'product');
    const [first, second] = variantsOf(current) as [JsonObject, JsonObject];
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const served = await client.put(`/variants/${second.id}.json`, {
      variant: { id: second.id, price: '99.00', barcode: '123', inventory_quantity: 500 },
    });
    expect(served.status).toBe(200);
    expect(one(served.json, 'variant')).toMatchObject({
      id: second.id,
      price: '99.00',
      barcode: '123',
      inventory_quantity: 0,
    });
    const after = one((await client.get(`/products/${product.id}.json`)).json, 'product');
    expect(variantsOf(after)[0]).toEqual(first);
    expect(Date.parse(after.updated_at as string)).toBeGreaterThan(Date.parse(current.updated_at as string));
    const clash = await client.put(`/variants/${second.id}.json`, { variant: { option1: first.option1 } });
    expect(clash.status).toBe(422);
    expect((await client.put('/variants/1.json', { variant: { price: '1.00' } })).status).toBe(404);
  });

  it('deletes a product with its variants (200 {}), then 404', async () => {
    const variant = variantsOf(product)[0] as JsonObject;
    const deleted = await client.delete(`/products/${product.id}.json`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('{}');
    expect((await client.get(`/products/${product.id}.json`)).status).toBe(404);
    expect((await client.get(`/variants/${variant.id}.json`)).status).toBe(404);
    expect((await client.delete(`/products/${product.id}.json`)).status).toBe(404);
    expect(listOf(await client.get(`/products.json?ids=${product.id}`), 'products')).toEqual([]);
  });
});

describe('simulated shop: a product create whose answer is lost', () => {
  it('is applied: the client sees a reset connection, the product exists afterwards', async () => {
    const shop = await startShop({
      seed: 36,
      products: 3,
      customers: 3,
      orders: 3,
      faults: { lostAnswers: { writes: [1] } },
    });
    try {
      const client = clientFor(shop);
      await expect(client.post('/products.json', { product: { title: 'Ghost' } })).rejects.toThrow();
      const found = [...shop.records('products')].filter((p) => p.title === 'Ghost');
      expect(found).toHaveLength(1);
      expect(listOf(await client.get(`/products.json?ids=${found[0]?.id}`), 'products')).toHaveLength(1);
      expect(shop.stats()).toMatchObject({ writes: 1, lostAnswers: 1 });
      const again = await client.post('/products.json', { product: { title: 'Ghost' } });
      expect(one(again.json, 'product').handle).toBe('ghost-1');
    } finally {
      await shop.close();
    }
  });
});
