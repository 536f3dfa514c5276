/** The plan a REST bucket size implies; Shopify leaks a twentieth of the bucket per second on each. */
export type RateTier = 'basic' | 'advanced' | 'plus' | 'custom' | 'unlimited';

const TIERS_BY_BUCKET: ReadonlyMap<number, RateTier> = new Map([
  [40, 'basic'],
  [80, 'advanced'],
  [400, 'plus'],
]);

/** 40 Basic (the standard limit), 80 Advanced, 400 Plus; any other size a custom limit; no header no limit. */
export function rateTier(bucketMax: number | undefined): RateTier {
  if (bucketMax === undefined) return 'unlimited';
  return TIERS_BY_BUCKET.get(bucketMax) ?? 'custom';
}

export const TIER_NAMES: Record<RateTier, string> = {
  basic: 'Basic (the standard limit)',
  advanced: 'Advanced',
  plus: 'Plus',
  custom: 'custom (a raised or unknown limit)',
  unlimited: 'no limit reported',
};
