import { closeSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonValue, stringifyJson } from '../shopify/json.js';
import type { ResourceName } from '../shopify/resources.js';
import { RestoreError } from './errors.js';

/**
 * What one write does. `create` makes a record (a product with its variants and images, a customer with its addresses,
 * an order with its line items); `variant` re-creates a variant a product lost; `image-links` ties a created product's
 * images to its variants; `email` gives an order created without a customer its email; `update` brings a record to
 * the snapshot's values; `cancel`, `close` and `open` set an order's state; `delete` removes what the snapshot does
 * not have (--prune); `activation-url` and `invite` are the customer's opt-ins.
 */
export type StepKind =
  | 'create'
  | 'variant'
  | 'image-links'
  | 'email'
  | 'update'
  | 'cancel'
  | 'close'
  | 'open'
  | 'delete'
  | 'activation-url'
  | 'invite';

/** The child records a create (or a variant create) made, source id → target id, exact decimal ids. */
export interface ChildIds {
  variants?: Record<string, string>;
  images?: Record<string, string>;
}

/** Which write of which record: the record's snapshot id (for `delete`, the target's id). */
export interface StepKey {
  step: StepKind;
  resource: ResourceName;
  /** Exact decimal id of the snapshot's record; for `delete`, of the target's. For `variant`, `<product>/<variant>`. */
  id: string;
}

export type JournalLine =
  | { kind: 'begin'; at: string; source: string; snapshot_id: string; target: string; mode: string }
  | (StepKey & {
      kind: 'intent';
      at: string;
      request: string;
      payload_sha256?: string;
      /** The natural key a create asked for (a product's handle): where a lookup after a lost answer searches. */
      key?: string;
    })
  | (StepKey & {
      kind: 'done';
      at: string;
      target_id?: string;
      children?: ChildIds;
      how?: 'written' | 'found';
      /** What the write returned that the restore hands on: a customer's activation URL. */
      value?: string;
    })
  | (StepKey & {
      kind: 'failed';
      at: string;
      status?: number;
      errors?: JsonValue;
      message: string;
    })
  /** An intent without a result, looked up after a crash or an unsure answer: the shop does not hold its record. */
  | (StepKey & { kind: 'absent'; at: string });

export type StepState =
  | { state: 'done'; targetId: string | undefined; children: ChildIds | undefined; value?: string }
  | { state: 'failed'; status: number | undefined; errors: JsonValue | undefined; message: string }
  | { state: 'unsure'; since: string; key?: string }
  | { state: 'absent' };

export const JOURNAL_NAME = 'journal.ndjson';

/**
 * The write-ahead journal of a restore: one NDJSON line per event, each written with one write() and flushed to disk
 * (fdatasync) before the restore goes on. An `intent` goes down before its request is sent, its `done` or `failed`
 * after the answer; an intent found without either after a crash is a write that may have happened, which the
 * executor looks up in the shop before anything is sent again. The journal alone says what earlier runs did; the id
 * map is derived from it.
 */
export class Journal {
  private readonly states = new Map<string, StepState>();
  private constructor(
    private readonly fd: number | undefined,
    readonly path: string,
    readonly begun: Extract<JournalLine, { kind: 'begin' }> | undefined,
    lines: readonly JournalLine[],
  ) {
    for (const line of lines) this.apply(line);
  }

  /**
   * What earlier runs wrote in `dir`, without a way to add to it and without creating anything: for a plan that
   * writes nothing. An empty journal when there is none.
   */
  static read(dir: string): Journal {
    const path = join(dir, JOURNAL_NAME);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      text = '';
    }
    const lines = completeLines(text, path);
    return new Journal(undefined, path, beginOf(lines), lines);
  }

  /**
   * Opens the journal in `dir` (made if missing, readable by its owner only: it holds activation URLs), replaying
   * what earlier runs wrote. A last line cut short by a crash (no newline) is dropped from the file: it was never
   * acknowledged, and the next line must start clean.
   */
  static async open(dir: string): Promise<Journal> {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, JOURNAL_NAME);
    const fd = openSync(path, 'a+');
    try {
      const text = readFileSync(fd, 'utf8');
      const complete = text.lastIndexOf('\n') + 1;
      if (complete < text.length) {
        ftruncateSync(fd, Buffer.byteLength(text.slice(0, complete)));
        fdatasyncSync(fd);
      }
      const lines = completeLines(text, path);
      if (text === '') syncDir(dir);
      return new Journal(fd, path, beginOf(lines), lines);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The state of a step as the journal tells it; undefined when no run has started it. */
  state(key: StepKey): StepState | undefined {
    return this.states.get(keyOf(key));
  }

  /** Every step of every run, with its state. */
  *steps(): Iterable<[StepKey, StepState]> {
    for (const [key, state] of this.states) yield [parseKey(key), state];
  }

  append(line: JournalLine): void {
    if (this.fd === undefined) throw new Error(`the journal ${this.path} was opened to read`);
    writeSync(this.fd, `${stringifyJson(line)}\n`);
    fdatasyncSync(this.fd);
    this.apply(line);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }

  private apply(line: JournalLine): void {
    if (line.kind === 'begin') return;
    const key = keyOf(line);
    switch (line.kind) {
      case 'intent':
        this.states.set(key, { state: 'unsure', since: line.at, ...(line.key === undefined ? {} : { key: line.key }) });
        return;
      case 'done':
        this.states.set(key, {
          state: 'done',
          targetId: line.target_id,
          children: line.children,
          ...(line.value === undefined ? {} : { value: line.value }),
        });
        return;
      case 'failed':
        this.states.set(key, { state: 'failed', status: line.status, errors: line.errors, message: line.message });
        return;
      case 'absent':
        this.states.set(key, { state: 'absent' });
    }
  }
}

/** The journal's acknowledged lines: up to its last newline (a line a crash cut short was never acknowledged). */
function completeLines(text: string, path: string): JournalLine[] {
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line, i) => parseLine(line, path, i + 1));
}

function beginOf(lines: readonly JournalLine[]): Extract<JournalLine, { kind: 'begin' }> | undefined {
  return lines.find((line): line is Extract<JournalLine, { kind: 'begin' }> => line.kind === 'begin');
}

function keyOf(key: StepKey): string {
  return `${key.step} ${key.resource} ${key.id}`;
}

function parseKey(text: string): StepKey {
  const [step, resource, id] = text.split(' ');
  return { step: step as StepKind, resource: resource as ResourceName, id: id as string };
}

function parseLine(text: string, path: string, number: number): JournalLine {
  try {
    const line = JSON.parse(text) as JournalLine;
    if (typeof line?.kind === 'string') return line;
  } catch {
    // reported below
  }
  throw new RestoreError('ERR_RESTORE_STATE', `line ${number} of ${path} is not a journal line: ${text.slice(0, 80)}`);
}

/** A new file's name is durable once its directory is flushed. */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
