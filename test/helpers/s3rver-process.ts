import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** s3rver's built-in account; it rejects any other access key with InvalidAccessKeyId. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface S3rverProcess {
  endpoint: string;
  port: number;
  directory: string;
  stop(): Promise<void>;
}

// s3rver in a child Node that exits when its stdin closes, so a crashed test run cannot leave it behind.
// An extra key pair, if any, comes through the environment (S3RVER_EXTRA_KEY), never through argv.
// s3rver 3.7.1 answers a PUT before the object's file is written: it resolves as soon as its input is consumed, while
// the file stream it truncated is still writing, so a HEAD right after can see 0 bytes (shopsnap's check after each
// upload then fails the run, as it must). The patch writes the whole object, then answers.
const SERVER_SCRIPT = `
const S3rver = require(process.argv[1]);
const { dirname, join } = require('node:path');
const { createHash } = require('node:crypto');
const fsp = require('node:fs/promises');
const FilesystemStore = require(join(dirname(process.argv[1]), 'stores/filesystem.js'));
FilesystemStore.prototype.putObject = async function (object) {
  const chunks = [];
  if (Buffer.isBuffer(object.content)) chunks.push(object.content);
  else for await (const chunk of object.content) chunks.push(chunk);
  const content = Buffer.concat(chunks);
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await fsp.mkdir(dirname(objectPath), { recursive: true });
  await fsp.writeFile(objectPath, content);
  const md5 = createHash('md5').update(content).digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size: content.length, md5 };
};
const [directory, ...buckets] = process.argv.slice(2);
if (process.env.S3RVER_EXTRA_KEY) {
  const { accessKeyId, secretAccessKey } = JSON.parse(process.env.S3RVER_EXTRA_KEY);
  const account = require(require('node:path').join(require('node:path').dirname(process.argv[1]), 'models/account.js'));
  account.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
}
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })) })
  .run()
  .then(({ address, port }) => process.stdout.write('listening on ' + address + ':' + port + '\\n'));
process.stdin.on('end', () => process.exit(0)).resume();
`;

/**
 * Starts s3rver on 127.0.0.1, port 0, with the given buckets created. It runs in its own Node with
 * --openssl-legacy-provider: its ListObjectsV2 continuation tokens use DES, which OpenSSL 3 refuses otherwise (500).
 * `extraKey` is a key pair it accepts besides its own (e.g. canary credentials that must sign real requests).
 */
export async function startS3rver(
  buckets: string[],
  extraKey?: { accessKeyId: string; secretAccessKey: string },
): Promise<S3rverProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'shopsnap-s3rver-'));
  const main = createRequire(import.meta.url).resolve('s3rver');
  const args = ['--openssl-legacy-provider', '-e', SERVER_SCRIPT, main, directory, ...buckets];
  const env = extraKey ? { ...process.env, S3RVER_EXTRA_KEY: JSON.stringify(extraKey) } : process.env;
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  const port = await listeningPort(child);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    directory,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.stdin?.end();
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function listeningPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening:\n${output}`)));
    child.once('error', reject);
  });
}
