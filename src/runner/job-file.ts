import { parse as parseYaml } from 'yaml';
import { commaList } from '../cli/flags.js';
import { parseShopAddress } from '../cli/shop-address.js';
import { RESOURCES, type ResourceName } from '../shopify/resources.js';
import type { S3Settings } from '../storage/index.js';
import { OUTPUT_FORMATS, type OutputFormat } from './output-format.js';

/** One shop of a job. The token is never in the file: it names an environment variable or a file holding it. */
export interface JobShop {
  shop: string;
  tokenEnv?: string;
  tokenFile?: string;
  /** The shop really lost records: its next snapshot is complete despite a suspicious shrink (remove it after). */
  acceptShrink?: boolean;
}

export interface JobSpec {
  name: string;
  shops: JobShop[];
  resources: ResourceName[];
  formats: OutputFormat[];
  depth: number;
  out: string;
  s3: S3Settings;
  /** Shops backed up at once by one worker; each keeps its own rate-limit pacer. */
  parallelShops: number;
  /** Snapshots of each shop pruned after its successful backup (see runner/prune.ts); none when absent. */
  retention?: JobRetention;
}

export interface JobRetention {
  keepWithinDays: number;
  keepLast: number;
}

export class JobFileError extends Error {
  override name = 'JobFileError';
  readonly code = 'ERR_JOB_FILE';
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`invalid job file ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }
}

const TOP_KEYS = new Set([
  'name',
  'shops',
  'resources',
  'formats',
  'depth',
  'out',
  's3',
  'parallel_shops',
  'retention',
]);

/** Parses and validates a YAML job file, reporting every problem with its path (e.g. `shops[1].token_env`). */
export function parseJobFile(text: string, file: string): JobSpec {
  const problems: string[] = [];
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new JobFileError(file, [`not valid YAML: ${yamlErrorText((error as Error).message)}`]);
  }
  if (!isRecord(document)) throw new JobFileError(file, ['the file must be a mapping of job settings']);
  for (const key of Object.keys(document)) if (!TOP_KEYS.has(key)) problems.push(`${key}: unknown setting`);
  const shops = readShops(document.shops, problems);
  const resources = readList(document.resources, 'resources', RESOURCES, [...RESOURCES], problems);
  const formats = readList(document.formats, 'formats', OUTPUT_FORMATS, [...OUTPUT_FORMATS], problems);
  const depth = readInteger(document.depth, 'depth', 20, 1, 100, problems);
  const parallelShops = readInteger(document.parallel_shops, 'parallel_shops', 4, 1, 64, problems);
  const out = document.out;
  if (typeof out !== 'string' || out === '') problems.push('out: required, a directory or s3://bucket/prefix');
  const s3 = readS3(document.s3, problems);
  const retention = readRetention(document.retention, problems);
  const name = document.name ?? file.replace(/^.*\//, '').replace(/\.ya?ml$/, '');
  if (typeof name !== 'string') problems.push('name: must be text');
  if (problems.length > 0) throw new JobFileError(file, problems);
  return {
    name: String(name),
    shops,
    resources,
    formats,
    depth,
    out: out as string,
    s3,
    parallelShops,
    ...(retention === undefined ? {} : { retention }),
  };
}

/**
 * The yaml library's message whole: its first line says what and where, the lines after it show the offending line
 * with a caret under the spot. Indented to sit under the problem's text, the caret still pointing where it should.
 */
function yamlErrorText(message: string): string {
  const [what = '', ...context] = message.replace(/\s+$/, '').split('\n');
  while (context[0]?.trim() === '') context.shift();
  return [what, ...context.map((line) => (line === '' ? '' : `      ${line}`))].join('\n');
}

const RETENTION_KEYS = ['keep_within_days', 'keep_last'];

function readRetention(value: unknown, problems: string[]): JobRetention | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    problems.push(`retention: must be a mapping of ${RETENTION_KEYS.join(', ')}`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!RETENTION_KEYS.includes(key)) problems.push(`retention.${key}: unknown setting`);
  }
  return {
    keepWithinDays: readInteger(value.keep_within_days, 'retention.keep_within_days', 35, 1, 36500, problems),
    keepLast: readInteger(value.keep_last, 'retention.keep_last', 7, 0, 1_000_000, problems),
  };
}

function readShops(value: unknown, problems: string[]): JobShop[] {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push('shops: required, a list of {shop, token_env | token_file}');
    return [];
  }
  return value.flatMap((entry, index): JobShop[] => {
    const where = `shops[${index}]`;
    if (!isRecord(entry)) {
      problems.push(`${where}: must be a mapping with shop and token_env or token_file`);
      return [];
    }
    for (const key of Object.keys(entry)) {
      if (key === 'token') problems.push(`${where}.token: tokens never go in job files; use token_env or token_file`);
      else if (!['shop', 'token_env', 'token_file', 'accept_shrink'].includes(key)) {
        problems.push(`${where}.${key}: unknown setting`);
      }
    }
    if (typeof entry.shop !== 'string' || entry.shop === '') problems.push(`${where}.shop: required text`);
    else {
      try {
        parseShopAddress(entry.shop);
      } catch (error) {
        problems.push(`${where}.shop: ${(error as Error).message}`);
      }
    }
    const tokenEnv = optionalText(entry.token_env, `${where}.token_env`, problems);
    const tokenFile = optionalText(entry.token_file, `${where}.token_file`, problems);
    const acceptShrink = entry.accept_shrink;
    if (acceptShrink !== undefined && typeof acceptShrink !== 'boolean') {
      problems.push(`${where}.accept_shrink: must be true or false`);
    }
    return [
      {
        shop: String(entry.shop),
        ...(tokenEnv ? { tokenEnv } : {}),
        ...(tokenFile ? { tokenFile } : {}),
        ...(acceptShrink === true ? { acceptShrink } : {}),
      },
    ];
  });
}

function readList<T extends string>(
  value: unknown,
  where: string,
  allowed: readonly T[],
  fallback: T[],
  problems: string[],
): T[] {
  if (value === undefined) return fallback;
  // One value, or several separated by commas, as the flags take them: `formats: parquet`, `formats: parquet, raw`.
  const scalar = typeof value === 'string';
  const items: unknown[] = scalar ? commaList(value) : Array.isArray(value) ? value : [];
  if (items.length === 0) {
    problems.push(`${where}: must be a non-empty list of ${allowed.join(', ')}`);
    return fallback;
  }
  items.forEach((item, index) => {
    if (!(allowed as readonly unknown[]).includes(item)) {
      const at = scalar ? where : `${where}[${index}]`;
      problems.push(`${at}: ${JSON.stringify(item)} is not one of ${allowed.join(', ')}`);
    }
  });
  return [...new Set(items as T[])];
}

function readInteger(
  value: unknown,
  where: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    problems.push(`${where}: must be a whole number from ${min} to ${max}`);
    return fallback;
  }
  return value;
}

const S3_KEYS = ['endpoint', 'region', 'force_path_style', 'checksum', 'sse', 'sse_kms_key_id'];

function readS3(value: unknown, problems: string[]): S3Settings {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`s3: must be a mapping of ${S3_KEYS.join(', ')}`);
    return {};
  }
  for (const key of Object.keys(value)) if (!S3_KEYS.includes(key)) problems.push(`s3.${key}: unknown setting`);
  const endpoint = optionalText(value.endpoint, 's3.endpoint', problems);
  const region = optionalText(value.region, 's3.region', problems);
  if (value.force_path_style !== undefined && typeof value.force_path_style !== 'boolean') {
    problems.push('s3.force_path_style: must be true or false');
  }
  const checksum = optionalText(value.checksum, 's3.checksum', problems);
  if (checksum !== undefined && checksum !== 'when-supported' && checksum !== 'when-required') {
    problems.push('s3.checksum: must be when-supported or when-required');
  }
  const sse = optionalText(value.sse, 's3.sse', problems);
  if (sse !== undefined && sse !== 'aes256' && sse !== 'aws:kms') problems.push('s3.sse: must be aes256 or aws:kms');
  const keyId = optionalText(value.sse_kms_key_id, 's3.sse_kms_key_id', problems);
  if (keyId !== undefined && sse !== 'aws:kms') problems.push('s3.sse_kms_key_id: needs sse: aws:kms');
  return {
    ...(endpoint ? { endpoint } : {}),
    ...(region ? { region } : {}),
    ...(value.force_path_style === true ? { forcePathStyle: true } : {}),
    ...(checksum === 'when-required' ? { checksumCalculation: 'WHEN_REQUIRED' as const } : {}),
    ...(checksum === 'when-supported' ? { checksumCalculation: 'WHEN_SUPPORTED' as const } : {}),
    ...(sse === 'aes256' ? { sse: { kind: 'AES256' as const } } : {}),
    ...(sse === 'aws:kms' ? { sse: { kind: 'aws:kms' as const, ...(keyId ? { keyId } : {}) } } : {}),
  };
}

function optionalText(value: unknown, where: string, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    problems.push(`${where}: must be text`);
    return undefined;
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
