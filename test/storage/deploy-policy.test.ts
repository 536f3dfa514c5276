import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { S3Operation } from '../helpers/s3-fault-proxy.js';

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: unknown;
}

const read = async (name: string) =>
  JSON.parse(await readFile(new URL(`../../deploy/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const BUCKET_ARN = 'arn:aws:s3:::BACKUP_BUCKET';
const OBJECT_ARN = `${BUCKET_ARN}/BACKUP_PREFIX/acme.myshopify.com/20261122T050623123Z/orders.parquet`;
const LEASE_ARN = `${BUCKET_ARN}/BACKUP_PREFIX/acme.myshopify.com/lease.json`;
const CHECKPOINT_ARN = `${BUCKET_ARN}/BACKUP_PREFIX/acme.myshopify.com/checkpoint.json`;

/** The IAM action and resource that authorize each S3 request S3Storage sends (AWS service authorization reference). */
const NEEDED: Record<Exclude<S3Operation, 'Other' | 'DeleteObject'>, [string, string]> = {
  PutObject: ['s3:PutObject', OBJECT_ARN],
  CreateMultipartUpload: ['s3:PutObject', OBJECT_ARN],
  UploadPart: ['s3:PutObject', OBJECT_ARN],
  CompleteMultipartUpload: ['s3:PutObject', OBJECT_ARN],
  AbortMultipartUpload: ['s3:AbortMultipartUpload', OBJECT_ARN],
  HeadObject: ['s3:GetObject', OBJECT_ARN],
  GetObject: ['s3:GetObject', OBJECT_ARN],
  ListObjectsV2: ['s3:ListBucket', BUCKET_ARN],
  ListMultipartUploads: ['s3:ListBucketMultipartUploads', BUCKET_ARN],
};

const list = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());
const matches = (pattern: string, arn: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(arn);

/** IAM evaluation for one request without conditions: an explicit Deny wins, then an Allow, else denied. */
function decide(statements: Statement[], action: string, arn: string): 'allow' | 'deny' | 'implicit deny' {
  const applies = (s: Statement) =>
    s.Action.includes(action) &&
    (s.NotResource === undefined
      ? list(s.Resource).some((p) => matches(p, arn))
      : !list(s.NotResource).some((p) => matches(p, arn)));
  const relevant = statements.filter(applies);
  if (relevant.some((s) => s.Effect === 'Deny')) return 'deny';
  return relevant.some((s) => s.Effect === 'Allow' && s.Condition === undefined) ? 'allow' : 'implicit deny';
}

describe('deploy/iam-policy.json (uploader)', () => {
  it.each(Object.entries(NEEDED))('allows %s', async (_op, [action, arn]) => {
    const policy = await read('iam-policy.json');
    expect(decide(policy.Statement as Statement[], action, arn)).toBe('allow');
  });

  it.each([
    ['s3:DeleteObject', OBJECT_ARN],
    ['s3:DeleteObject', `${BUCKET_ARN}/BACKUP_PREFIX/acme.myshopify.com/20261122T050623123Z/manifest.json`],
    ['s3:DeleteObject', `${BUCKET_ARN}/elsewhere/lease.json`],
    ['s3:DeleteObject', `${BUCKET_ARN}/elsewhere/checkpoint.json`],
    ['s3:DeleteObjectVersion', LEASE_ARN],
    ['s3:BypassGovernanceRetention', OBJECT_ARN],
    ['s3:PutLifecycleConfiguration', BUCKET_ARN],
  ])('denies %s on %s explicitly', async (action, arn) => {
    const policy = await read('iam-policy.json');
    expect(decide(policy.Statement as Statement[], action, arn)).toBe('deny');
  });

  it.each([
    ['its lease (release and takeover)', LEASE_ARN],
    ['the checkpoint of a finished or abandoned snapshot', CHECKPOINT_ARN],
  ])('lets a run delete %s and nothing else', async (_what, arn) => {
    const policy = await read('iam-policy.json');
    expect(decide(policy.Statement as Statement[], 's3:DeleteObject', arn)).toBe('allow');
  });

  it('allows nothing beyond the requests shopsnap sends (plus KMS for SSE-KMS)', async () => {
    const policy = await read('iam-policy.json');
    const allowed = (policy.Statement as Statement[]).filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action);
    const needed = [...Object.values(NEEDED).map(([action]) => action), 's3:DeleteObject', 'kms:GenerateDataKey'];
    expect(new Set(allowed)).toEqual(new Set([...needed, 'kms:Decrypt']));
  });
});

describe('deploy/s3-lifecycle.json', () => {
  it('aborts incomplete multipart uploads and expires objects by age', async () => {
    const rules = (await read('s3-lifecycle.json')).Rules as Record<string, unknown>[];
    expect(rules.every((r) => r.Status === 'Enabled')).toBe(true);
    expect(rules.find((r) => r.AbortIncompleteMultipartUpload)).toMatchObject({
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: expect.any(Number) },
    });
    expect(rules.find((r) => r.Expiration)).toMatchObject({ Expiration: { Days: expect.any(Number) } });
  });
});
