/**
 * Facts are the few values of a record that filters and sort orders look at. They are computed without building the
 * record (cheap enough to scan a million of them) and are equal to what the built record says (tested).
 */
export interface BaseFacts {
  /** Generated index, or -1 for a record that lives only in the overlay (created through the API). */
  index: number;
  id: bigint;
  createdMs: number;
  updatedMs: number;
}

export interface ProductFacts extends BaseFacts {
  title: string;
  handle: string;
  vendor: string;
  productType: string;
  status: string;
  publishedMs: number | null;
}

export interface CustomerFacts extends BaseFacts {
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  phone: string | null;
  state: string;
  tags: string;
  verifiedEmail: boolean;
  acceptsMarketing: boolean;
  country: string | null;
  ordersCount: number;
}

export interface OrderFacts extends BaseFacts {
  processedMs: number;
  closedMs: number | null;
  cancelledMs: number | null;
  financialStatus: string;
  fulfillmentStatus: string | null;
  customerId: bigint | null;
  name: string;
  appId: number | null;
}

export type AnyFacts = ProductFacts | CustomerFacts | OrderFacts;
