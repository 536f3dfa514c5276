import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JobFileError, parseJobFile } from '../../src/runner/job-file.js';

function problemsOf(text: string): string[] {
  try {
    parseJobFile(text, 'job.yaml');
  } catch (error) {
    if (error instanceof JobFileError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseJobFile', () => {
  it.each(readdirSync('jobs').filter((name) => name.endsWith('.yaml')))('accepts the shipped example %s', (name) => {
    const job = parseJobFile(readFileSync(`jobs/${name}`, 'utf8'), `jobs/${name}`);
    expect(job.shops.length).toBeGreaterThan(0);
    expect(job.out).not.toBe('');
  });

  it('names a YAML syntax error with the offending line and a caret under the spot', () => {
    expect(problemsOf('shops:\n  - shop: a\n    token_env: T\n out: x\n')).toEqual([
      [
        'not valid YAML: All mapping items must start at the same column at line 4, column 1:',
        '          token_env: T',
        '       out: x',
        '      ^',
      ].join('\n'),
    ]);
  });

  it.each([
    ['one name', 'formats: parquet', 'resources: orders', ['parquet'], ['orders']],
    [
      'names separated by commas',
      'formats: "parquet, raw,"',
      'resources: orders,products',
      ['parquet', 'raw'],
      ['orders', 'products'],
    ],
    ['a list', 'formats: [ndjson, ndjson]', 'resources: [customers]', ['ndjson'], ['customers']],
  ])(
    'takes formats and resources as %s, as the flags do',
    (_name, formats, resources, expectedFormats, expectedResources) => {
      const job = parseJobFile(`shops: [{shop: a, token_env: T}]\nout: x\n${formats}\n${resources}\n`, 'job.yaml');
      expect([job.formats, job.resources]).toEqual([expectedFormats, expectedResources]);
    },
  );

  it('fills defaults', () => {
    const job = parseJobFile('shops: [{shop: a, token_env: T}]\nout: ./x\n', 'jobs/daily.yaml');
    expect(job).toEqual({
      name: 'daily',
      shops: [{ shop: 'a', tokenEnv: 'T' }],
      resources: ['products', 'customers', 'orders'],
      formats: ['parquet', 'ndjson', 'raw'],
      depth: 20,
      out: './x',
      s3: {},
      parallelShops: 4,
    });
  });

  it.each([
    ['given whole', '{ keep_within_days: 90, keep_last: 3 }', { keepWithinDays: 90, keepLast: 3 }],
    ['by its defaults', '{}', { keepWithinDays: 35, keepLast: 7 }],
    ['keeping no minimum', '{ keep_within_days: 1, keep_last: 0 }', { keepWithinDays: 1, keepLast: 0 }],
  ])('reads retention %s', (_name, retention, expected) => {
    const job = parseJobFile(`shops: [{shop: a, token_env: T}]\nout: ./x\nretention: ${retention}\n`, 'job.yaml');
    expect(job.retention).toEqual(expected);
  });

  it('reads a shop’s accept_shrink', () => {
    const job = parseJobFile(
      'shops: [{shop: a, token_env: T, accept_shrink: true}, {shop: b}]\nout: ./x\n',
      'job.yaml',
    );
    expect(job.shops).toEqual([{ shop: 'a', tokenEnv: 'T', acceptShrink: true }, { shop: 'b' }]);
    expect(problemsOf('shops: [{shop: a, accept_shrink: "yes"}]\nout: x')).toEqual([
      'shops[0].accept_shrink: must be true or false',
    ]);
  });

  it.each([
    ['no shops', 'out: x', ['shops: required, a list of {shop, token_env | token_file}']],
    [
      'a literal token and an unknown key',
      'out: x\nshops: [{shop: a, token: shpat_x, colour: red}]',
      ['shops[0].token: tokens never go in job files; use token_env or token_file', 'shops[0].colour: unknown setting'],
    ],
    [
      'every bad value at once',
      'shops: [{shop: a}]\nresources: [orders, refunds]\nformats: []\ndepth: 0\nout: ""\nspeed: fast',
      [
        'speed: unknown setting',
        'resources[1]: "refunds" is not one of products, customers, orders',
        'formats: must be a non-empty list of parquet, ndjson, raw',
        'depth: must be a whole number from 1 to 100',
        'out: required, a directory or s3://bucket/prefix',
      ],
    ],
    [
      'shop addresses that could leave the shop host or its folder',
      'out: x\nshops: [{shop: ../x, token_env: T}, {shop: x.myshopify.com.evil.io, token_env: T}, {shop: ok, token_env: T}]',
      [
        'shops[0].shop: invalid shop "../x": not a shop name; expected a shop name, name.myshopify.com, https://name.myshopify.com or https://admin.shopify.com/store/name',
        'shops[1].shop: invalid shop "x.myshopify.com.evil.io": not a shop name; expected a shop name, name.myshopify.com, https://name.myshopify.com or https://admin.shopify.com/store/name',
      ],
    ],
    [
      'a retention it cannot apply',
      'out: x\nshops: [{shop: a, token_env: T}]\nretention: { keep_within_days: 0, keep_last: -1, keep_weekly: 4 }',
      [
        'retention.keep_weekly: unknown setting',
        'retention.keep_within_days: must be a whole number from 1 to 36500',
        'retention.keep_last: must be a whole number from 0 to 1000000',
      ],
    ],
    [
      'formats and resources given as text that names nothing known',
      'out: x\nshops: [{shop: a, token_env: T}]\nformats: parquet, csv\nresources: " , "',
      [
        'resources: must be a non-empty list of products, customers, orders',
        'formats: "csv" is not one of parquet, ndjson, raw',
      ],
    ],
    [
      'formats that are neither text nor a list',
      'out: x\nshops: [{shop: a, token_env: T}]\nformats: 5',
      ['formats: must be a non-empty list of parquet, ndjson, raw'],
    ],
    [
      'a retention that is not a mapping',
      'out: x\nshops: [{shop: a, token_env: T}]\nretention: 35',
      ['retention: must be a mapping of keep_within_days, keep_last'],
    ],
  ])('reports %s with paths', (_name, text, expected) => {
    expect(problemsOf(text)).toEqual(expected);
  });
});
