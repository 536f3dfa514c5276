import { createHash } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export type S3Operation =
  | 'PutObject'
  | 'UploadPart'
  | 'CreateMultipartUpload'
  | 'CompleteMultipartUpload'
  | 'AbortMultipartUpload'
  | 'ListMultipartUploads'
  | 'HeadObject'
  | 'GetObject'
  | 'ListObjectsV2'
  | 'DeleteObject'
  | 'Other';

export interface ProxiedRequest {
  op: S3Operation;
  bucket: string;
  key: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  bytes: number;
  /** Hex MD5 of the body as received. */
  md5: string;
  /** 1 for the first request of this operation on this key (and part number), 2 for its first retry, … */
  attempt: number;
}

/**
 * An S3 error answer, a connection dropped before forwarding or after s3rver answered (reply lost), or a request
 * that is never answered (a hung connection).
 */
export type Fault = { status: number; code: string } | { drop: 'before' | 'after' } | { hang: true };

export interface FaultProxy {
  endpoint: string;
  requests: ProxiedRequest[];
  /** Decides per request; undefined forwards it unchanged. */
  setFault(decide: ((request: ProxiedRequest) => Fault | undefined) | undefined): void;
  /** Forces ListObjectsV2 and ListMultipartUploads pages of this many entries (S3's default is 1000). */
  setListPageSize(size: number | undefined): void;
  count(op: S3Operation): number;
  close(): Promise<void>;
}

/**
 * A node:http proxy in front of s3rver that records every request and injects S3 faults. It also stands in for what
 * s3rver lacks and AWS S3 has: If-None-Match on PutObject (412 when the key exists), ListMultipartUploads,
 * AbortMultipartUpload, and NoSuchUpload for a finished upload id (from its own record of the uploads s3rver initiated).
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const targetUrl = new URL(target);
  const requests: ProxiedRequest[] = [];
  const openUploads = new Map<string, { bucket: string; key: string; initiated: Date }>();
  let decide: ((request: ProxiedRequest) => Fault | undefined) | undefined;
  let listPageSize: number | undefined;

  // s3rver does not check SigV4 signatures, so the query can be changed on the way.
  const pathOf = (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (listPageSize !== undefined && url.searchParams.get('list-type') === '2') {
      url.searchParams.set('max-keys', String(listPageSize));
    }
    return url.pathname + url.search;
  };

  const forward = (req: IncomingMessage, body: Buffer, method = req.method) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const { expect: _expect, ...headers } = req.headers;
      if (method === 'HEAD') {
        headers['content-length'] = '0';
        delete headers['if-none-match'];
      }
      const out = httpRequest(
        { host: targetUrl.hostname, port: targetUrl.port, method, path: pathOf(req), headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(method === 'HEAD' ? undefined : body);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://proxy');
    const [, bucket = '', ...keyParts] = url.pathname.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    const op = operationOf(req.method ?? 'GET', key, url.searchParams);
    const identity = `${op} ${bucket}/${key} ${url.searchParams.get('partNumber') ?? ''}`;
    const attempt = requests.filter(
      (r) => `${r.op} ${r.bucket}/${r.key} ${r.query.get('partNumber') ?? ''}` === identity,
    ).length;
    const recorded: ProxiedRequest = {
      op,
      bucket,
      key,
      query: url.searchParams,
      headers: req.headers,
      bytes: body.length,
      md5: createHash('md5').update(body).digest('hex'),
      attempt: attempt + 1,
    };
    requests.push(recorded);

    const fault = decide?.(recorded);
    if (fault && 'drop' in fault) {
      if (fault.drop === 'after') await forwardTracked(req, body, op, url.searchParams, bucket, key);
      req.socket.destroy();
      return;
    }
    if (fault && 'hang' in fault) return;
    if (fault) return sendError(res, req.method, fault.status, fault.code);

    if (op === 'PutObject' && req.headers['if-none-match'] === '*') {
      const existing = await forward(req, body, 'HEAD');
      if (existing.status === 200) return sendError(res, req.method, 412, 'PreconditionFailed');
    }
    if (op === 'AbortMultipartUpload') {
      const uploadId = url.searchParams.get('uploadId') ?? '';
      if (!openUploads.delete(uploadId)) return sendError(res, req.method, 404, 'NoSuchUpload');
      res.writeHead(204).end();
      return;
    }
    if (op === 'CompleteMultipartUpload' && !openUploads.has(url.searchParams.get('uploadId') ?? '')) {
      return sendError(res, req.method, 404, 'NoSuchUpload');
    }
    if (op === 'ListMultipartUploads') return listUploads(res, bucket, url.searchParams);

    const answer = await forwardTracked(req, body, op, url.searchParams, bucket, key);
    res.writeHead(answer.status, answer.headers).end(answer.body);
  };

  const forwardTracked = async (
    req: IncomingMessage,
    body: Buffer,
    op: S3Operation,
    query: URLSearchParams,
    bucket: string,
    key: string,
  ) => {
    const answer = await forward(req, body);
    if (op === 'CreateMultipartUpload' && answer.status === 200) {
      const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(answer.body.toString())?.[1];
      if (uploadId) openUploads.set(uploadId, { bucket, key, initiated: new Date() });
    }
    if (op === 'CompleteMultipartUpload' && answer.status === 200) openUploads.delete(query.get('uploadId') ?? '');
    return answer;
  };

  const listUploads = (res: ServerResponse, bucket: string, query: URLSearchParams) => {
    const prefix = query.get('prefix') ?? '';
    const keyMarker = query.get('key-marker') ?? '';
    const idMarker = query.get('upload-id-marker') ?? '';
    const after = ([id, u]: [string, { key: string }]) =>
      u.key > keyMarker || (u.key === keyMarker && idMarker !== '' && id > idMarker);
    const matching = [...openUploads]
      .filter(([, u]) => u.bucket === bucket && u.key.startsWith(prefix))
      .sort(([ia, a], [ib, b]) => (a.key === b.key ? ia.localeCompare(ib) : a.key.localeCompare(b.key)))
      .filter(after);
    const page = matching.slice(0, listPageSize ?? 1000);
    const last = page.at(-1);
    const truncated = page.length < matching.length && last !== undefined;
    const next = truncated
      ? `<NextKeyMarker>${last[1].key}</NextKeyMarker><NextUploadIdMarker>${last[0]}</NextUploadIdMarker>`
      : '';
    const uploads = page.map(
      ([id, u]) =>
        `<Upload><Key>${u.key}</Key><UploadId>${id}</UploadId><Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
    );
    const xml = `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>${bucket}</Bucket><Prefix>${prefix}</Prefix><IsTruncated>${truncated}</IsTruncated>${next}${uploads.join('')}</ListMultipartUploadsResult>`;
    res.writeHead(200, { 'content-type': 'application/xml' }).end(xml);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.destroy(error as Error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    setFault(next) {
      decide = next;
    },
    setListPageSize(size) {
      listPageSize = size;
    },
    count: (op) => requests.filter((r) => r.op === op).length,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function operationOf(method: string, key: string, query: URLSearchParams): S3Operation {
  if (key === '') {
    if (method === 'GET') return query.has('uploads') ? 'ListMultipartUploads' : 'ListObjectsV2';
    return 'Other';
  }
  switch (method) {
    case 'PUT':
      return query.has('uploadId') ? 'UploadPart' : 'PutObject';
    case 'POST':
      return query.has('uploads')
        ? 'CreateMultipartUpload'
        : query.has('uploadId')
          ? 'CompleteMultipartUpload'
          : 'Other';
    case 'DELETE':
      return query.has('uploadId') ? 'AbortMultipartUpload' : 'DeleteObject';
    case 'HEAD':
      return 'HeadObject';
    case 'GET':
      return 'GetObject';
    default:
      return 'Other';
  }
}

function sendError(res: ServerResponse, method: string | undefined, status: number, code: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>injected by the test proxy</Message><RequestId>proxy</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml' }).end(method === 'HEAD' ? undefined : xml);
}
