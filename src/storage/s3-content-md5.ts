import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';

const BODY_COMMANDS = new Set(['PutObjectCommand', 'UploadPartCommand']);

/**
 * With requestChecksumCalculation 'WHEN_REQUIRED' (our option, AWS_REQUEST_CHECKSUM_CALCULATION or the profile's
 * request_checksum_calculation) the SDK sends no checksum on PutObject/UploadPart. Stores that reject the SDK's CRC32
 * headers (R2, B2, older MinIO) all accept Content-MD5, so it is added then: every request body is still checked by
 * the store, and a part damaged in transit is refused instead of stored. Bodies are Buffers (our uploads never hand
 * the SDK a stream), so hashing them is cheap and a retry re-sends the same bytes and header.
 */
export function addContentMd5(client: S3Client): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown } | undefined;
      if (
        BODY_COMMANDS.has(context.commandName ?? '') &&
        request?.headers !== undefined &&
        request.body instanceof Uint8Array &&
        request.headers['content-md5'] === undefined &&
        (await client.config.requestChecksumCalculation()) === 'WHEN_REQUIRED'
      ) {
        request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
      }
      return next(args);
    },
    { step: 'build', name: 'shopsnapContentMd5', override: true },
  );
}
