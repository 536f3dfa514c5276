import type { ListedRecord } from './list-page.js';
import { type CreatedWindow, inWindow } from './windows.js';

/**
 * "Newest updated_at wins" for a crawl whose records stream out: a record handed to the consumer cannot be taken
 * back, so a copy that may still be superseded is held back instead, and only those. In the windowed crawl a record
 * is listed again only by a chain whose created_at window can hold it and whose since_id is still below its id:
 * in practice the few records on the overlap second of two adjacent windows (windows.ts). They wait here, the newer
 * copy replacing the older, until no chain can list them again; every other record goes out at once. Until a page
 * has shown that the shop honours the filters, everything waits: a shop that ignores them gets one Link chain, which
 * lists the early records again and may bring newer copies. Memory stays small: the overlap records, or the first
 * pages.
 */
export interface ChainPosition {
  window: CreatedWindow;
  /** The chain has fetched every record of its window with an id up to this one (or has a request for it in flight). */
  sinceId: bigint;
  done: boolean;
}

/** Whether a copy fetched after `kept` replaces it: unless `kept` has the strictly later updated_at. */
export function laterCopyWins(kept: string | undefined, later: string | undefined): boolean {
  return !(stampMs(kept) > stampMs(later));
}

/** Whether an unfinished chain can still list a record with this id and created_at (NaN: unknown, any window). */
export function mayListAgain(id: bigint, createdMs: number, chains: Iterable<ChainPosition>): boolean {
  for (const chain of chains) {
    if (chain.done || chain.sinceId >= id) continue;
    if (Number.isNaN(createdMs) || inWindow(chain.window, createdMs)) return true;
  }
  return false;
}

interface Held {
  record: ListedRecord;
  id: bigint;
  createdMs: number;
}

/** The records held back, newest copy of each. */
export class HeldCopies {
  private readonly held = new Map<string, Held>();

  get size(): number {
    return this.held.size;
  }

  /** True when a copy of this id is held: the newer of the two stays, the other counts as a dropped duplicate. */
  merge(record: ListedRecord): boolean {
    const kept = this.held.get(record.id);
    if (kept === undefined) return false;
    if (laterCopyWins(kept.record.updatedAt, record.updatedAt)) kept.record = record;
    return true;
  }

  /** Holds the record if `chains` may list it again; false when it can go out now. */
  holdIfListedAgain(record: ListedRecord, chains: Iterable<ChainPosition>, always: boolean): boolean {
    const id = BigInt(record.id);
    const createdMs = stampMs(record.createdAt);
    if (!always && !mayListAgain(id, createdMs, chains)) return false;
    this.held.set(record.id, { record, id, createdMs });
    return true;
  }

  /** Removes and returns the records no chain can list again (all of them when `chains` is empty). */
  release(chains: Iterable<ChainPosition>): ListedRecord[] {
    const out: ListedRecord[] = [];
    const live = [...chains];
    for (const [key, held] of this.held) {
      if (mayListAgain(held.id, held.createdMs, live)) continue;
      this.held.delete(key);
      out.push(held.record);
    }
    return out;
  }
}

function stampMs(text: string | undefined): number {
  return text === undefined ? Number.NaN : Date.parse(text);
}
