import { join } from 'node:path';
import { writeFileDurably } from '../local-file.js';
import type { ResourceName } from '../shopify/resources.js';
import type { Journal } from './journal.js';
import type { IdKind, IdLookup } from './records/ids.js';

export const ID_MAP_NAME = 'idmap.json';

const KINDS: readonly IdKind[] = ['products', 'variants', 'images', 'customers', 'orders'];

/**
 * Where each snapshot id lives in the target shop: records a restore created (from the journal, so earlier runs'
 * count) and records it matched (by id, marker or natural key, found anew by every plan). Exact decimal ids.
 */
export class IdMap implements IdLookup {
  private readonly maps = new Map<IdKind, Map<string, string>>(KINDS.map((kind) => [kind, new Map()]));

  /** The records and children every `create` and `variant` step of the journal made. */
  static fromJournal(journal: Journal): IdMap {
    const map = new IdMap();
    for (const [key, state] of journal.steps()) {
      if (state.state !== 'done') continue;
      if (key.step === 'create' && state.targetId !== undefined) map.set(key.resource, key.id, state.targetId);
      if (key.step === 'create' || key.step === 'variant') map.addChildren(state.children);
    }
    return map;
  }

  target(kind: IdKind, sourceId: string): string | undefined {
    return this.maps.get(kind)?.get(sourceId);
  }

  set(kind: IdKind | ResourceName, sourceId: string, targetId: string): void {
    this.maps.get(kind)?.set(sourceId, targetId);
  }

  addChildren(children: { variants?: Record<string, string>; images?: Record<string, string> } | undefined): void {
    for (const [source, target] of Object.entries(children?.variants ?? {})) this.set('variants', source, target);
    for (const [source, target] of Object.entries(children?.images ?? {})) this.set('images', source, target);
  }

  size(kind: IdKind): number {
    return this.maps.get(kind)?.size ?? 0;
  }

  toJSON(): Record<IdKind, Record<string, string>> {
    return Object.fromEntries(KINDS.map((kind) => [kind, Object.fromEntries(this.maps.get(kind) ?? [])])) as Record<
      IdKind,
      Record<string, string>
    >;
  }

  /** Writes `idmap.json` in `dir` whole: for people and tools; the journal stays the truth. */
  async save(dir: string): Promise<string> {
    const path = join(dir, ID_MAP_NAME);
    await writeFileDurably(path, `${JSON.stringify(this, null, 2)}\n`);
    return path;
  }
}
