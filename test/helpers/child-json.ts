import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** The JSON a child process prints on stdout once it exits 0; otherwise an error naming `what` with its stderr. */
export function jsonFromChild<T>(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  what: string,
): Promise<T> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as T);
      else reject(new Error(`${what} exited with ${code}: ${stderr}`));
    });
  });
}
