import { describe, expect, it } from 'vitest';
import {
  type Match,
  markerOf,
  naturalKeys,
  TargetIndex,
  withMarker,
} from '../../../src/restore/records/natural-keys.js';
import { type JsonObject, parseJson } from '../../../src/shopify/json.js';
import type { ResourceName } from '../../../src/shopify/resources.js';

const json = (text: string) => parseJson(text) as JsonObject;

describe('naturalKeys', () => {
  it.each([
    ['products', '{"id":1,"handle":"ipod-nano"}', [{ kind: 'handle', value: 'ipod-nano' }]],
    ['products', '{"id":1,"handle":"тест-ünï"}', [{ kind: 'handle', value: 'тест-ünï' }]],
    ['products', '{"id":1,"handle":null}', []],
    ['products', '{"id":1,"handle":""}', []],
    [
      'customers',
      '{"id":1,"email":"Bob@Example.com","phone":"+1 613 612 0707"}',
      [
        { kind: 'email', value: 'bob@example.com' },
        { kind: 'phone', value: '+16136120707' },
      ],
    ],
    ['customers', '{"id":1,"email":null,"phone":"+16136120707"}', [{ kind: 'phone', value: '+16136120707' }]],
    ['customers', '{"id":1,"email":null,"phone":null,"first_name":"Ann"}', []],
    [
      'orders',
      '{"id":1,"name":"#1001","processed_at":"2008-01-10T11:00:00-05:00","total_price":"598.90"}',
      [{ kind: 'order', value: '["#1001","2008-01-10T16:00:00Z","598.9"]' }],
    ],
    ['orders', '{"id":1,"name":"#1001","processed_at":null,"total_price":"598.90"}', []],
  ])('%s %s → %j', (resource, record, expected) => {
    expect(naturalKeys(resource as ResourceName, json(record))).toEqual(expected);
  });

  it('an order key is the same for the same instant and amount however written', () => {
    const a = json('{"id":1,"name":"#1001","processed_at":"2008-01-10T11:00:00-05:00","total_price":"598.90"}');
    const b = json('{"id":2,"name":"#1001","processed_at":"2008-01-10T16:00:00Z","total_price":"598.9"}');
    expect(naturalKeys('orders', a)).toEqual(naturalKeys('orders', b));
  });
});

describe('the provenance marker', () => {
  it.each([
    [
      'products',
      '9223372036854775807',
      { tags: 'Émotive, MP3' },
      {
        tags: 'Émotive, MP3',
        metafields: [
          {
            namespace: 'shopsnap',
            key: 'source_id',
            value: '9223372036854775807',
            type: 'single_line_text_field',
          },
        ],
      },
    ],
    ['customers', '9007199254740993', { tags: '' }, { tags: 'shopsnap-source:9007199254740993' }],
    ['customers', '42', { tags: 'a, shopsnap-source:7' }, { tags: 'a, shopsnap-source:42' }],
    [
      'products',
      '42',
      {
        metafields: [
          { namespace: 'shopsnap', key: 'source_id', value: '7', type: 'single_line_text_field' },
          { namespace: 'shopsnap', key: 'other', value: 'x', type: 'single_line_text_field' },
        ],
      },
      {
        metafields: [
          { namespace: 'shopsnap', key: 'other', value: 'x', type: 'single_line_text_field' },
          { namespace: 'shopsnap', key: 'source_id', value: '42', type: 'single_line_text_field' },
        ],
      },
    ],
    [
      'orders',
      '9223372036854775807',
      { note_attributes: [{ name: 'colour', value: 'grün' }] },
      {
        note_attributes: [
          { name: 'colour', value: 'grün' },
          { name: 'shopsnap_source_id', value: '9223372036854775807' },
        ],
      },
    ],
    [
      'orders',
      '5',
      { note_attributes: [{ name: 'shopsnap_source_id', value: '4' }] },
      { note_attributes: [{ name: 'shopsnap_source_id', value: '5' }] },
    ],
    ['orders', '5', {}, { note_attributes: [{ name: 'shopsnap_source_id', value: '5' }] }],
  ])('%s: marks %s', (resource, source, fields, expected) => {
    const marked = withMarker(resource as ResourceName, fields as JsonObject, source);
    expect(marked).toEqual(expected);
    expect(markerOf(resource as ResourceName, { id: 1, ...marked })).toBe(source);
  });

  it.each([
    ['customers', { tags: 'shopsnap-source' }],
    ['customers', { tags: 'shopsnap-source:abc' }],
    ['products', { tags: 'shopsnap-source:5' }],
    ['products', { metafields: [{ namespace: 'shopsnap', key: 'source_id', value: 'abc' }] }],
    ['products', { metafields: [{ namespace: 'other', key: 'source_id', value: '5' }] }],
    ['customers', { tags: null }],
    ['orders', { note_attributes: null }],
    ['orders', { note_attributes: [{ name: 'shopsnap_source_id', value: null }] }],
    ['orders', { tags: 'shopsnap-source:5' }],
  ])('%s: no marker in %j', (resource, record) => {
    expect(markerOf(resource as ResourceName, record as JsonObject)).toBeUndefined();
  });
});

describe('TargetIndex', () => {
  // A product as the index sees it once its marker is read: with its metafields.
  const product = (id: string, handle: string, marker?: string) =>
    json(
      `{"id":${id},"handle":${JSON.stringify(handle)},"metafields":${
        marker ? `[{"namespace":"shopsnap","key":"source_id","value":"${marker}"}]` : '[]'
      }}`,
    );
  const order = (id: string, name: string, marker?: string) =>
    json(
      `{"id":${id},"name":"${name}","processed_at":"2008-01-10T11:00:00-05:00","total_price":"10.00","note_attributes":${
        marker ? `[{"name":"shopsnap_source_id","value":"${marker}"}]` : '[]'
      }}`,
    );
  const indexOf = (resource: ResourceName, records: JsonObject[]) => {
    const index = new TargetIndex<string>(resource);
    for (const record of records) index.add(record, String(record.id));
    return index;
  };
  const big = '9223372036854775807';

  it.each<[string, ResourceName, JsonObject[], JsonObject, 'migrate' | 'recover', Match<string>]>([
    [
      'recover: by id, beyond 2^53',
      'products',
      [product(big, 'x'), product('9223372036854775806', 'a')],
      product(big, 'a'),
      'recover',
      { kind: 'found', by: 'id', target: big },
    ],
    [
      'recover: a record restore re-created, by its marker',
      'products',
      [product('77', 'a', big)],
      product(big, 'a'),
      'recover',
      { kind: 'found', by: 'marker', target: '77' },
    ],
    [
      'recover: never by natural key',
      'products',
      [product('77', 'a')],
      product('76', 'a'),
      'recover',
      { kind: 'none' },
    ],
    [
      'migrate: the marker before the key',
      'products',
      [product('77', 'a'), product('78', 'renamed', '5')],
      product('5', 'a'),
      'migrate',
      { kind: 'found', by: 'marker', target: '78' },
    ],
    [
      'migrate: by handle',
      'products',
      [product('77', 'a'), product('78', 'b')],
      product('5', 'b'),
      'migrate',
      { kind: 'found', by: 'handle', target: '78' },
    ],
    [
      'migrate: a handle held by a record restored from another source',
      'products',
      [product('77', 'a', '4')],
      product('5', 'a'),
      'migrate',
      { kind: 'taken', by: 'handle', target: '77', markedFor: '4' },
    ],
    [
      'migrate: copies carrying the same marker',
      'products',
      [product('77', 'a', '5'), product('78', 'a-1', '5')],
      product('5', 'a'),
      'migrate',
      { kind: 'ambiguous', by: 'marker', targets: ['77', '78'] },
    ],
    [
      'migrate: a customer by email before phone',
      'customers',
      [json('{"id":1,"email":"x@y.z","phone":"+1555"}'), json('{"id":2,"email":"b@y.z","phone":"+1666"}')],
      json('{"id":9,"email":"B@Y.Z","phone":"+1555"}'),
      'migrate',
      { kind: 'found', by: 'email', target: '2' },
    ],
    [
      'migrate: a customer by phone when the email matches nobody',
      'customers',
      [json('{"id":1,"email":"x@y.z","phone":"+1 555 010"}')],
      json('{"id":9,"email":"new@y.z","phone":"+1555010"}'),
      'migrate',
      { kind: 'found', by: 'phone', target: '1' },
    ],
    [
      'migrate: two orders with the same name, time and total',
      'orders',
      [order('1', '#1001'), order('2', '#1001')],
      order('9', '#1001'),
      'migrate',
      { kind: 'ambiguous', by: 'order', targets: ['1', '2'] },
    ],
    [
      'migrate: an order whose twin was restored from another source order',
      'orders',
      [order('1', '#1001', '8')],
      order('9', '#1001'),
      'migrate',
      { kind: 'none' },
    ],
    [
      'migrate: the unmarked twin, not the one restored from another source order',
      'orders',
      [order('1', '#1001', '8'), order('2', '#1001')],
      order('9', '#1001'),
      'migrate',
      { kind: 'found', by: 'order', target: '2' },
    ],
    ['migrate: nothing', 'orders', [order('1', '#1002')], order('9', '#1001'), 'migrate', { kind: 'none' }],
  ])('%s', (_name, resource, targets, snapshot, mode, expected) => {
    expect(indexOf(resource, targets).match(snapshot, mode)).toEqual(expected);
  });

  it('forgets a removed record, and a record listed again replaces itself', () => {
    const index = indexOf('products', [product(big, 'a', '5'), product('78', 'b')]);
    index.add(product('78', 'c'), 'again');
    expect(index.match(product('1', 'b'), 'migrate')).toEqual({ kind: 'none' });
    expect(index.match(product('1', 'c'), 'migrate')).toEqual({ kind: 'found', by: 'handle', target: 'again' });
    index.remove(big);
    expect(index.size).toBe(1);
    expect(index.match(product('5', 'a'), 'migrate')).toEqual({ kind: 'none' });
  });

  it("learns a product's marker read apart from its list (its metafield), and matches by it from then on", () => {
    const listed = (id: string, handle: string) => json(`{"id":${id},"handle":"${handle}"}`);
    const index = indexOf('products', [listed('77', 'a'), listed('78', 'a-1')]);
    expect(index.match(product('5', 'a'), 'migrate')).toEqual({ kind: 'found', by: 'handle', target: '77' });
    index.mark('78', '5');
    expect(index.match(product('5', 'a'), 'migrate')).toEqual({ kind: 'found', by: 'marker', target: '78' });
    index.mark('77', '6');
    expect(index.match(product('6', 'x'), 'recover')).toEqual({ kind: 'found', by: 'marker', target: '77' });
    index.mark('78', undefined);
    index.mark('404', '5');
    expect(index.match(product('5', 'b'), 'migrate')).toEqual({ kind: 'none' });
  });

  it('refuses a record without an id', () => {
    expect(() => new TargetIndex('products').add(json('{"handle":"a"}'), 1)).toThrow(/no id/);
  });
});
