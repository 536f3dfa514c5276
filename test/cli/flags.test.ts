import { describe, expect, it } from 'vitest';
import { closest } from '../../src/cli/closest.js';
import { flag, optionName, resolveFlags, variableName, wholeNumber } from '../../src/cli/flags.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { unknownVariableWarnings } from '../../src/cli/variables.js';

const FLAGS = {
  out: flag.string({ describe: 'd', env: true, default: './snapshots' }),
  depth: flag.number({ describe: 'd', env: true, default: 20, check: wholeNumber(1, 100) }),
  fresh: flag.boolean({ describe: 'd', env: true, default: false }),
  formats: flag.list({ describe: 'd', env: true, choices: ['parquet', 'ndjson', 'raw'], default: ['parquet'] }),
  s3Sse: flag.string({ describe: 'd', env: true, choices: ['aes256', 'aws:kms'] }),
  port: flag.number({ describe: 'd', default: 8080 }),
};

describe('resolveFlags: command line > environment > default', () => {
  it.each([
    ['the default', {}, {}, { out: './snapshots', depth: 20, fresh: false, formats: ['parquet'], port: 8080 }],
    ['the variable', {}, { SHOPSNAP_OUT: '/env', SHOPSNAP_DEPTH: ' 7 ' }, { out: '/env', depth: 7 }],
    ['the flag over the variable', { out: '/flag' }, { SHOPSNAP_OUT: '/env' }, { out: '/flag' }],
    ['an empty variable as unset', {}, { SHOPSNAP_OUT: '' }, { out: './snapshots' }],
    ['a flag without env ignores its name', {}, { SHOPSNAP_PORT: '1' }, { port: 8080 }],
    ['true/false/1/0/yes/no for booleans', {}, { SHOPSNAP_FRESH: 'Yes' }, { fresh: true }],
    ['false from the variable', {}, { SHOPSNAP_FRESH: '0' }, { fresh: false }],
    ['--no-fresh over the variable', { fresh: false }, { SHOPSNAP_FRESH: 'true' }, { fresh: false }],
    ['a list, trimmed and deduplicated', {}, { SHOPSNAP_FORMATS: 'raw, parquet,raw' }, { formats: ['raw', 'parquet'] }],
    ['a repeated list flag adds up', { formats: ['raw', 'ndjson'] }, {}, { formats: ['raw', 'ndjson'] }],
    ['a choice', {}, { SHOPSNAP_S3_SSE: 'aws:kms' }, { s3Sse: 'aws:kms' }],
  ] as const)('takes %s', (_case, given, env, expected) => {
    expect(resolveFlags(FLAGS, given, env)).toMatchObject(expected);
  });

  it.each([
    [{}, { SHOPSNAP_DEPTH: 'abc' }, 'SHOPSNAP_DEPTH must be a number, not "abc"'],
    [{}, { SHOPSNAP_DEPTH: '0' }, 'SHOPSNAP_DEPTH must be a whole number from 1 to 100'],
    [{ depth: 101 }, {}, '--depth must be a whole number from 1 to 100'],
    [{ depth: Number.NaN }, {}, '--depth must be a number'],
    [{}, { SHOPSNAP_FRESH: 'maybe' }, 'SHOPSNAP_FRESH must be true or false, not "maybe"'],
    [{ formats: 'parket' }, {}, '--formats: "parket" is not one of parquet, ndjson, raw; did you mean parquet?'],
    [{}, { SHOPSNAP_FORMATS: ',' }, 'SHOPSNAP_FORMATS names nothing; choose from parquet, ndjson, raw'],
    [{}, { SHOPSNAP_S3_SSE: 'kms' }, 'SHOPSNAP_S3_SSE: "kms" is not one of aes256, aws:kms'],
    [{ out: ['a', 'b'] }, {}, '--out is given more than once'],
  ])('refuses %j with %j: %s', (given, env, message) => {
    const attempt = () => resolveFlags(FLAGS, given, env);
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(message);
  });
});

describe('flag names', () => {
  it.each([
    ['shop', '--shop', 'SHOPSNAP_SHOP'],
    ['tokenFile', '--token-file', 'SHOPSNAP_TOKEN_FILE'],
    ['s3SseKmsKeyId', '--s3-sse-kms-key-id', 'SHOPSNAP_S3_SSE_KMS_KEY_ID'],
  ])('%s is %s and %s', (name, option, variable) => {
    expect(`--${optionName(name)}`).toBe(option);
    expect(variableName(name)).toBe(variable);
  });
});

describe('closest', () => {
  it.each([
    ['bakup', ['backup', 'verify'], 'backup'],
    ['FORMAT', ['FORMATS', 'OUT'], 'FORMATS'],
    ['--fromats', ['--formats', '--fresh'], '--formats'],
    ['Verify', ['backup', 'verify'], 'verify'],
    ['colour', ['backup', 'verify'], undefined],
    ['x', ['backup'], undefined],
  ])('%s among %j is %s', (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });
});

describe('unknownVariableWarnings', () => {
  const known = ['SHOPSNAP_FORMATS', 'SHOPSNAP_TOKEN', 'SHOPSNAP_TOKEN_FILE', 'SHOPSNAP_SHARD_COUNT'];
  it.each([
    [{ SHOPSNAP_TOKEN: 'x', SHOPSNAP_FORMATS: 'raw', PATH: '/bin', TEST_SHOPSNAP_CRASH_AT: 'x' }, []],
    [
      { SHOPSNAP_FORMAT: 'raw' },
      ['SHOPSNAP_FORMAT is not a shopsnap variable and is ignored; did you mean SHOPSNAP_FORMATS?'],
    ],
    [{ SHOPSNAP_TOKENFILE: 'x' }, [expect.stringMatching(/did you mean SHOPSNAP_TOKEN_FILE\?$/)]],
    [{ shopsnap_token: 'x' }, [expect.stringMatching(/^shopsnap_token .*did you mean SHOPSNAP_TOKEN\?$/)]],
    [{ SHOPSNAP_COLOUR: 'red' }, ['SHOPSNAP_COLOUR is not a shopsnap variable and is ignored']],
  ])('%j → %j', (env, expected) => {
    expect(unknownVariableWarnings(env, known)).toEqual(expected);
  });
});
