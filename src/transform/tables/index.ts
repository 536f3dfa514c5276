import type { ResourceName } from '../../shopify/resources.js';
import type { DeclaredTable } from '../schema.js';
import { customerAddresses, customers } from './customers.js';
import {
  orderDiscountApplications,
  orderDiscountCodes,
  orderFulfillments,
  orderLineItems,
  orderNoteAttributes,
  orderRefundLineItems,
  orderRefunds,
  orderRefundTransactions,
  orderShippingLines,
  orders,
  orderTaxLines,
} from './orders.js';
import { productImages, productOptions, products, productVariants } from './products.js';

/** Every output table, parents first, in the order `shopsnap schema` prints them. */
export const TABLES: readonly DeclaredTable[] = [
  products,
  productVariants,
  productImages,
  productOptions,
  customers,
  customerAddresses,
  orders,
  orderLineItems,
  orderShippingLines,
  orderTaxLines,
  orderDiscountCodes,
  orderDiscountApplications,
  orderFulfillments,
  orderRefunds,
  orderRefundTransactions,
  orderRefundLineItems,
  orderNoteAttributes,
];

const BY_NAME = new Map(TABLES.map((table) => [table.name, table]));

/** The tables one resource fills: its parent table first, then its child (and grandchild) tables. */
export function tablesFor(resource: ResourceName): readonly DeclaredTable[] {
  return TABLES.filter((table) => table.resource === resource);
}

export function tableByName(name: string): DeclaredTable | undefined {
  return BY_NAME.get(name);
}
