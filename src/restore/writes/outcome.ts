import type { JsonValue } from '../../shopify/json.js';
import type { ResourceName } from '../../shopify/resources.js';
import type { StepKind } from '../journal.js';

/** A write the shop refused (or that could not be settled), with the shop's reason: the report lists each. */
export interface Failure {
  resource: ResourceName;
  /** The snapshot's id (for a delete, the target's). */
  id: string;
  step: StepKind;
  status?: number;
  errors?: JsonValue;
  message: string;
}

export interface ResourceOutcome {
  created: number;
  updated: number;
  /** Creates an earlier run or a lost answer left unsure, found in the shop by their marker (never sent again). */
  found: number;
  /** Records a create found already there (a customer's email taken by a record the index had not listed). */
  matched: number;
  states: Record<'cancel' | 'close' | 'open', number>;
  deleted: number;
  failed: number;
}

export interface ExecuteResult {
  resources: Partial<Record<ResourceName, ResourceOutcome>>;
  failures: Failure[];
  /** Snapshot records this run wrote or found written (source id → target id), for verification. */
  written: Record<ResourceName, Map<string, string>>;
  /** Write requests sent, retries included. */
  writes: number;
}

export function noOutcome(): ResourceOutcome {
  return {
    created: 0,
    updated: 0,
    found: 0,
    matched: 0,
    states: { cancel: 0, close: 0, open: 0 },
    deleted: 0,
    failed: 0,
  };
}
