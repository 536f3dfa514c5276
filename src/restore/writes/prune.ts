import type { ResourceName } from '../../shopify/resources.js';
import { ShopHttpError } from '../../source/errors.js';
import type { StepKey } from '../journal.js';
import type { PruneRow } from '../plan.js';
import type { RestoreWriter } from './writer.js';

/** --prune: deletes a target record the snapshot does not have; one the shop refuses to delete is a listed failure. */
export async function deleteRecord(w: RestoreWriter, resource: ResourceName, row: PruneRow): Promise<void> {
  const key: StepKey = { step: 'delete', resource, id: row.target_id };
  if (w.done(key)) return;
  try {
    await w.write(key, `${resource}/${row.target_id}.json`, { method: 'DELETE', repeatable: true }, undefined);
  } catch (error) {
    // Deleted already (its first answer lost): done.
    if (!(error instanceof ShopHttpError && error.status === 404)) {
      if (!w.refusal(error, resource, row.target_id, 'delete')) throw error;
      return;
    }
  }
  w.journalLine({ kind: 'done', ...key });
  w.outcome(resource).deleted++;
}
