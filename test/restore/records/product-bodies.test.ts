import { describe, expect, it } from 'vitest';
import { withMarker } from '../../../src/restore/records/natural-keys.js';
import {
  createdChildIds,
  hasImageLinks,
  imageLinksBody,
  lostVariants,
  productCreateBody,
  productUpdate,
} from '../../../src/restore/records/product-bodies.js';
import { type JsonObject, stringifyJson } from '../../../src/shopify/json.js';
import { ABOVE_2_53, edited, exampleRecord, NEAR_2_63, restoredCopy } from './records.js';

const snapshot = exampleRecord('products', NEAR_2_63);
const source = String(snapshot.id);
const variants = (record: JsonObject) => record.variants as JsonObject[];
const images = (record: JsonObject) => record.images as JsonObject[];
const variant = (color: string, sku: string) => ({
  option1: color,
  price: '199.00',
  sku,
  barcode: `1234_${color.toLowerCase()}`,
  grams: 567,
  weight: 1.25,
  weight_unit: 'lb',
  inventory_policy: 'continue',
  inventory_management: 'shopify',
  fulfillment_service: 'manual',
  taxable: true,
  requires_shipping: true,
});
const cdn = 'https://cdn.shopify.com/s/files/1/0005/4838/0009/products';

describe('productCreateBody', () => {
  it('writes options, variants and images in one create, with the marker and without any id', () => {
    expect(productCreateBody(snapshot)).toEqual({
      product: {
        title: 'IPod Nano - 8GB',
        body_html: snapshot.body_html,
        vendor: 'Apple',
        product_type: 'Cult Products',
        handle: 'ipod-nano',
        status: 'active',
        published_scope: 'web',
        published: true,
        tags: 'Emotive, Flash Memory, MP3, Music',
        options: [{ name: 'Color', values: ['Pink', 'Red', 'Green', 'Black'] }],
        variants: [
          { ...variant('Pink', 'IPOD2008PINK'), position: 1 },
          { ...variant('Red', 'IPOD2008RED'), position: 2 },
          { ...variant('Green', 'IPOD2008GREEN'), position: 3 },
          { ...variant('Black', 'IPOD2008BLACK'), position: 4 },
        ],
        images: [
          { src: `${cdn}/ipod-nano.png?v=1664397424`, position: 1 },
          { src: `${cdn}/ipod-nano-2.png?v=1664397424`, position: 2 },
          { src: `${cdn}/ipod-nano.png?v=1664397424`, position: 3 },
        ],
        metafields: [{ namespace: 'shopsnap', key: 'source_id', value: source, type: 'single_line_text_field' }],
      },
    });
    expect(stringifyJson(productCreateBody(snapshot))).toContain(`"value":"${632910392n + NEAR_2_63}"`);
  });

  it.each<[string, (record: JsonObject) => void, JsonObject]>([
    [
      'a draft, unpublished',
      (s) => Object.assign(s, { status: 'draft', published_at: null }),
      { status: 'draft', published: false },
    ],
    ['variants out of position order', (s) => void variants(s).reverse(), {}],
    [
      'unicode and a template',
      (s) => Object.assign(s, { title: 'Ünïcödé 🎧', template_suffix: 'alt' }),
      { title: 'Ünïcödé 🎧', template_suffix: 'alt' },
    ],
    [
      "a customer's marker tag is a product's plain tag",
      (s) => Object.assign(s, { tags: 'a, shopsnap-source:12' }),
      { tags: 'a, shopsnap-source:12', metafields: [expect.objectContaining({ value: source })] },
    ],
  ])('%s', (_name, edit, expected) => {
    const body = productCreateBody(edited(snapshot, edit)).product as JsonObject;
    expect(body).toMatchObject(expected);
    expect((body.variants as JsonObject[]).map((v) => v.position)).toEqual([1, 2, 3, 4]);
  });

  it('leaves images out when asked (their addresses are gone)', () => {
    expect(productCreateBody(snapshot, { images: false }).product).not.toHaveProperty('images');
  });
});

describe('after the create', () => {
  // What the shop answers: new ids, no links yet, variants listed in another order.
  const { copy } = restoredCopy(snapshot, ABOVE_2_53);
  const created = edited(copy, (c) => {
    c.variants = variants(c)
      .reverse()
      .map((v) => ({ ...v, image_id: null }));
    for (const image of images(c)) image.variant_ids = [];
  });

  it('pairs the snapshot ids with the created ones: variants by options, images by position', () => {
    expect(createdChildIds(snapshot, created)).toEqual({
      variants: [808950810n, 49148385n, 39072856n, 457924702n].map((id, k) => [
        String(id + NEAR_2_63),
        String(ABOVE_2_53 + 1n + BigInt(k)),
      ]),
      images: [850703190n, 562641783n, 378407906n].map((id, k) => [
        String(id + NEAR_2_63),
        String(ABOVE_2_53 + 5n + BigInt(k)),
      ]),
    });
  });

  it('links the images to the variants in one PUT naming every image', () => {
    expect(imageLinksBody(snapshot, created)).toEqual({
      product: {
        id: ABOVE_2_53,
        images: [
          { id: ABOVE_2_53 + 5n, variant_ids: [] },
          { id: ABOVE_2_53 + 6n, variant_ids: [ABOVE_2_53 + 1n] },
          { id: ABOVE_2_53 + 7n, variant_ids: [] },
        ],
      },
    });
  });

  it('has no link PUT for a product without links', () => {
    const plain = edited(snapshot, (s) => {
      for (const image of images(s)) image.variant_ids = [];
    });
    expect(imageLinksBody(plain, created)).toBeUndefined();
    expect([hasImageLinks(plain), hasImageLinks(snapshot)]).toEqual([false, true]);
  });
});

describe('lostVariants and productUpdate', () => {
  const restored = restoredCopy(snapshot, ABOVE_2_53);
  const target = withMarker('products', restored.copy, source);
  const { ids } = restored;
  const id = (k: number) => ABOVE_2_53 + BigInt(k);

  it('lists the variants the target lost, as variant create bodies', () => {
    const lost = edited(target, (t) => void variants(t).splice(1, 2));
    expect(lostVariants(snapshot, lost, ids)).toEqual([
      { sourceId: String(49148385n + NEAR_2_63), body: { variant: { ...variant('Red', 'IPOD2008RED'), position: 2 } } },
      {
        sourceId: String(39072856n + NEAR_2_63),
        body: { variant: { ...variant('Green', 'IPOD2008GREEN'), position: 3 } },
      },
    ]);
    expect(lostVariants(snapshot, target, ids)).toEqual([]);
  });

  const withVariants = (fields: (k: number) => JsonObject) =>
    ['Pink', 'Red', 'Green', 'Black'].map((color, k) => ({
      id: id(k + 1),
      ...variant(color, `IPOD2008${color.toUpperCase()}`),
      compare_at_price: null,
      option2: null,
      option3: null,
      position: k + 1,
      ...fields(k),
    }));

  it.each<[string, (t: JsonObject) => void, { prune?: boolean }, JsonObject | undefined, string[]]>([
    ['nothing for an equal product', () => {}, {}, undefined, []],
    [
      "a changed title and tags (the marker, a metafield, is not the PUT's)",
      (t) => Object.assign(t, { title: 'x', tags: 'y' }),
      {},
      { id: id(0), title: 'IPod Nano - 8GB', tags: 'Emotive, Flash Memory, MP3, Music' },
      [],
    ],
    ['unpublished', (t) => Object.assign(t, { published_at: null }), {}, { id: id(0), published: true }, []],
    [
      'a price: every kept variant by id',
      (t) => Object.assign(variants(t)[2] as JsonObject, { price: '1.00' }),
      {},
      {
        id: id(0),
        variants: withVariants(() => ({})),
      },
      [],
    ],
    [
      'a variant the snapshot lacks is kept',
      (t) => {
        variants(t).push({ ...(variants(t)[0] as JsonObject), id: 7, option1: 'Gold' });
        (variants(t)[0] as JsonObject).sku = 'changed';
      },
      {},
      { id: id(0), variants: [...withVariants(() => ({})), { id: 7 }] },
      ['$.variants[4]'],
    ],
    [
      'a variant the snapshot lacks, alone, is only reported',
      (t) => {
        variants(t).push({ ...(variants(t)[0] as JsonObject), id: 7, option1: 'Gold' });
      },
      {},
      undefined,
      ['$.variants[4]'],
    ],
    [
      '--prune drops a variant the snapshot lacks',
      (t) => {
        variants(t).push({ ...(variants(t)[0] as JsonObject), id: 7, option1: 'Gold' });
      },
      { prune: true },
      { id: id(0), variants: withVariants(() => ({})) },
      [],
    ],
    [
      'a lost image comes back by src with its links',
      (t) => {
        images(t).splice(1, 1);
        (variants(t)[0] as JsonObject).image_id = null;
      },
      {},
      {
        id: id(0),
        images: [
          { id: id(5), alt: null, position: 1, variant_ids: [] },
          { src: `${cdn}/ipod-nano-2.png?v=1664397424`, position: 2, variant_ids: [id(1)] },
          { id: id(7), alt: null, position: 3, variant_ids: [] },
        ],
      },
      [],
    ],
    [
      'an option renamed',
      (t) => Object.assign((t.options as JsonObject[])[0] as JsonObject, { name: 'Colour' }),
      {},
      {
        id: id(0),
        options: [{ id: id(8), name: 'Color' }],
      },
      [],
    ],
    [
      'an option more cannot be rolled back',
      (t) => void (t.options as JsonObject[]).push({ name: 'Size', position: 2, values: ['S'] }),
      {},
      undefined,
      ['$.options[1]'],
    ],
  ])('%s', (_name, edit, options, body, fixed) => {
    const update = productUpdate(snapshot, edited(target, edit), ids, options);
    expect(update.body).toEqual(body === undefined ? undefined : { product: body });
    expect(update.cannotRollBack.map((change) => change.path)).toEqual(fixed);
  });
});
