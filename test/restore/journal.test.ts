import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdMap } from '../../src/restore/id-map.js';
import { JOURNAL_NAME, Journal } from '../../src/restore/journal.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shopsnap-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const at = '2026-01-01T00:00:00.000Z';
const product = { step: 'create', resource: 'products', id: '9007199254740993' } as const;

describe('the restore journal', () => {
  it('replays what earlier runs wrote: an intent without a result is unsure, a result settles it', async () => {
    const first = await Journal.open(dir);
    first.append({ kind: 'begin', at, source: 's', snapshot_id: 'x', target: 't', mode: 'migrate' });
    first.append({ kind: 'intent', at, ...product, request: 'POST products.json' });
    first.append({ kind: 'intent', at, step: 'create', resource: 'orders', id: '1', request: 'POST orders.json' });
    first.append({
      kind: 'done',
      at,
      ...product,
      target_id: '18446744073709551615',
      children: { variants: { '40000000000000': '49000000000000' } },
    });
    first.close();

    const again = await Journal.open(dir);
    expect(again.begun?.target).toBe('t');
    expect(again.state(product)).toEqual({
      state: 'done',
      targetId: '18446744073709551615',
      children: { variants: { '40000000000000': '49000000000000' } },
    });
    expect(again.state({ step: 'create', resource: 'orders', id: '1' })).toEqual({ state: 'unsure', since: at });
    expect(again.state({ step: 'cancel', resource: 'orders', id: '1' })).toBeUndefined();
    const ids = IdMap.fromJournal(again);
    expect(ids.target('products', '9007199254740993')).toBe('18446744073709551615');
    expect(ids.target('variants', '40000000000000')).toBe('49000000000000');
    again.close();
  });

  it('drops a last line a crash cut short, so the next line starts clean', async () => {
    const journal = await Journal.open(dir);
    journal.append({ kind: 'intent', at, ...product, request: 'POST products.json' });
    journal.close();
    appendFileSync(join(dir, JOURNAL_NAME), '{"kind":"done","at":"2026');

    const again = await Journal.open(dir);
    expect(again.state(product)).toEqual({ state: 'unsure', since: at });
    again.append({ kind: 'absent', at, ...product });
    again.close();
    const lines = readFileSync(join(dir, JOURNAL_NAME), 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).kind)).toEqual(['intent', 'absent']);
  });

  it('refuses a journal whose lines are not its own, naming the line', async () => {
    appendFileSync(join(dir, JOURNAL_NAME), 'not json\n');
    await expect(Journal.open(dir)).rejects.toThrow(/line 1 of .*journal\.ndjson is not a journal line: not json/);
  });
});
