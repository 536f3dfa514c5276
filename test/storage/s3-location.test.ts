import { describe, expect, it } from 'vitest';
import { createStorage } from '../../src/storage/index.js';
import { LocalDirStorage } from '../../src/storage/local-dir-storage.js';
import { formatS3Url, isS3Url, parseS3Url } from '../../src/storage/s3-location.js';
import { S3Storage } from '../../src/storage/s3-storage.js';

describe('parseS3Url', () => {
  it.each([
    ['s3://backups', { bucket: 'backups', prefix: '' }],
    ['s3://backups/', { bucket: 'backups', prefix: '' }],
    ['s3://backups/shopsnap', { bucket: 'backups', prefix: 'shopsnap' }],
    ['s3://my.bucket-1/shop=acme/nightly/', { bucket: 'my.bucket-1', prefix: 'shop=acme/nightly' }],
  ])('%s', (url, expected) => {
    expect(parseS3Url(url)).toEqual(expected);
    expect(formatS3Url(expected)).toBe(url.replace(/\/$/, ''));
  });

  it.each([
    'backups/prefix',
    's3://',
    's3:///prefix',
    's3://Upper/x',
    's3://ab/x',
    's3://bucket..dots/x',
    's3://-bucket/x',
    's3://bucket/../escape',
    's3://bucket/a//b',
    's3://bucket/with space',
    's3://AKIA:secret@bucket/x',
  ])('refuses %j', (url) => {
    expect(() => parseS3Url(url)).toThrow(expect.objectContaining({ code: 'ERR_STORAGE_KEY' }));
  });
});

describe('createStorage', () => {
  it.each([
    ['s3://backups/nightly', S3Storage, 's3://backups/nightly'],
    ['/var/backups/shopsnap', LocalDirStorage, '/var/backups/shopsnap'],
  ])('%s', async (out, kind, location) => {
    expect(isS3Url(out)).toBe(kind === S3Storage);
    const storage = await createStorage(out, { region: 'eu-west-1' });
    expect(storage).toBeInstanceOf(kind);
    expect(storage.location).toBe(location);
  });
});
