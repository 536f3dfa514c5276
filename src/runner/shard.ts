import { createHash } from 'node:crypto';

export interface Shard {
  index: number;
  count: number;
}

/**
 * Rendezvous (highest random weight) hashing: each shop goes to the shard with the highest hash of (shop, shard).
 * Adding a shop moves no other shop; changing the shard count moves only about 1/n of them. No coordinator needed:
 * every worker computes the same assignment from the job file alone.
 */
export function shardOf(shop: string, count: number): number {
  let best = 0;
  let bestWeight = -1n;
  for (let index = 0; index < count; index++) {
    const weight = createHash('sha256').update(`${shop}\u0000${index}`).digest().readBigUInt64BE(0);
    if (weight > bestWeight) {
      best = index;
      bestWeight = weight;
    }
  }
  return best;
}

export function selectShard<T>(items: readonly T[], shard: Shard, keyOf: (item: T) => string): T[] {
  return items.filter((item) => shardOf(keyOf(item), shard.count) === shard.index);
}

export class ShardError extends Error {
  override name = 'ShardError';
  readonly code = 'ERR_USAGE';
}

/** `--shard i/n`, or Kubernetes' JOB_COMPLETION_INDEX with SHOPSNAP_SHARD_COUNT; 0/1 when neither is set. */
export function parseShard(text: string | undefined, env: NodeJS.ProcessEnv = process.env): Shard {
  const source =
    text ??
    (env.JOB_COMPLETION_INDEX === undefined ? '0/1' : `${env.JOB_COMPLETION_INDEX}/${env.SHOPSNAP_SHARD_COUNT ?? ''}`);
  const match = /^(\d+)\/(\d+)$/.exec(source);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index >= count) {
    throw new ShardError(
      `invalid shard ${JSON.stringify(source)}: expected i/n with 0 ≤ i < n (JOB_COMPLETION_INDEX needs SHOPSNAP_SHARD_COUNT)`,
    );
  }
  return { index, count };
}
