import type { ResourceName } from '../../shopify/resources.js';

/**
 * The fields restore writes and, after writing, compares: per resource its own fields and those of each child array.
 * A few are states read from a timestamp rather than the timestamp itself (the time cannot be written, the state
 * can): a product's `published` (published_at set), an order's `cancelled` and `closed` (cancelled_at, closed_at set).
 * An order's `customer` is its customer's id; its `fulfillment_status` counts only as fulfilled or not (partial
 * fulfilments cannot be written, see UNRESTORABLE). Ids never count, references do (through the id maps).
 */
export interface RestorableFields {
  fields: readonly string[];
  children: Readonly<Record<string, readonly string[]>>;
}

const ADDRESS = [
  'first_name',
  'last_name',
  'company',
  'address1',
  'address2',
  'city',
  'province',
  'province_code',
  'country',
  'country_code',
  'zip',
  'phone',
] as const;

export const RESTORABLE: Readonly<Record<ResourceName, RestorableFields>> = {
  products: {
    fields: [
      'title',
      'body_html',
      'vendor',
      'product_type',
      'handle',
      'template_suffix',
      'status',
      'published_scope',
      'published',
      'tags',
      'options',
      'variants',
      'images',
    ],
    children: {
      options: ['name', 'position', 'values'],
      variants: [
        'option1',
        'option2',
        'option3',
        'price',
        'compare_at_price',
        'sku',
        'barcode',
        'grams',
        'weight',
        'weight_unit',
        'inventory_policy',
        'inventory_management',
        'fulfillment_service',
        'taxable',
        'requires_shipping',
        'position',
        'image_id',
      ],
      images: ['alt', 'position', 'variant_ids'],
    },
  },
  customers: {
    fields: [
      'first_name',
      'last_name',
      'email',
      'phone',
      'note',
      'tags',
      'accepts_marketing',
      'marketing_opt_in_level',
      'tax_exempt',
      'tax_exemptions',
      'verified_email',
      'multipass_identifier',
      'addresses',
    ],
    children: { addresses: [...ADDRESS, 'default'] },
  },
  orders: {
    fields: [
      'name',
      'email',
      'phone',
      'processed_at',
      'currency',
      'financial_status',
      'fulfillment_status',
      'buyer_accepts_marketing',
      'taxes_included',
      'tags',
      'note',
      'note_attributes',
      'billing_address',
      'shipping_address',
      'customer',
      'line_items',
      'tax_lines',
      'shipping_lines',
      'discount_codes',
      'subtotal_price',
      'total_discounts',
      'total_tax',
      'total_price',
      'cancelled',
      'cancel_reason',
      'closed',
    ],
    children: {
      note_attributes: ['name', 'value'],
      billing_address: ADDRESS,
      shipping_address: ADDRESS,
      line_items: ['title', 'price', 'quantity', 'sku', 'grams', 'taxable', 'properties', 'variant_id', 'product_id'],
      tax_lines: ['title', 'price', 'rate'],
      shipping_lines: ['title', 'code', 'source', 'price'],
      discount_codes: ['code', 'amount', 'type'],
    },
  },
};

/** Fields of a line item that Shopify takes from its variant: restorable only on a custom line item. */
export const FROM_VARIANT: ReadonlySet<string> = new Set(['title', 'sku', 'grams']);

/**
 * The restorable fields an update can change on a record that exists (migrate --update-existing, recover). Products
 * and customers take every restorable field through their PUT. An order takes only what its PUT accepts
 * (restore.md §1.6) and its states through cancel, close and open; the rest is reported as "cannot roll back".
 */
export const UPDATABLE: Readonly<Record<ResourceName, ReadonlySet<string>>> = {
  products: new Set(RESTORABLE.products.fields),
  customers: new Set(RESTORABLE.customers.fields),
  orders: new Set([
    'note',
    'note_attributes',
    'tags',
    'email',
    'phone',
    'buyer_accepts_marketing',
    'shipping_address',
    'cancelled',
    'cancel_reason',
    'closed',
  ]),
};

export const ORDER_PUT_FIELDS: ReadonlySet<string> = new Set([
  'note',
  'note_attributes',
  'tags',
  'email',
  'phone',
  'buyer_accepts_marketing',
  'shipping_address',
]);

/** Why an order field outside UPDATABLE cannot be rolled back on an order that exists. */
export const ORDER_FIXED_REASON =
  'an order that exists takes only note, note_attributes, tags, email, phone, buyer_accepts_marketing and shipping_address through its PUT (and its state through cancel, close and open); Shopify keeps every other field as created';

/** A field (JSON path below the record) that restore cannot write, and why: the plan's "cannot be restored" list. */
export interface Unrestorable {
  field: string;
  reason: string;
}

const COMMON: readonly Unrestorable[] = [
  { field: 'id', reason: 'Shopify assigns ids on create; restore maps the snapshot ids to the new ones' },
  { field: 'created_at', reason: 'Shopify stamps the time a record is created; it cannot be set' },
  { field: 'updated_at', reason: 'Shopify stamps the time of every write' },
  { field: 'admin_graphql_api_id', reason: 'derived from the id Shopify assigns' },
];

export const UNRESTORABLE: Readonly<Record<ResourceName, readonly Unrestorable[]>> = {
  products: [
    ...COMMON,
    {
      field: 'published_at',
      reason: 'Shopify stamps the time of publishing; restore restores whether it is published',
    },
    {
      field: 'variants[].inventory_quantity',
      reason: 'stock levels live per location in the InventoryLevel API, which restore does not write',
    },
    { field: 'variants[].old_inventory_quantity', reason: 'stock levels are not written (see inventory_quantity)' },
    { field: 'variants[].inventory_item_id', reason: 'Shopify creates the inventory item with the variant' },
    { field: 'variants[].presentment_prices', reason: "Shopify derives them from the shop's currencies and price" },
    { field: 'variants[].title', reason: "Shopify derives it from the variant's options" },
    {
      field: 'images[].src',
      reason:
        "Shopify copies an image into its own CDN under a new address; restore sends the snapshot's address, which must still be reachable",
    },
    { field: 'images[].width', reason: 'Shopify reads it from the image file' },
    { field: 'images[].height', reason: 'Shopify reads it from the image file' },
    { field: 'metafields', reason: 'not part of a snapshot (the product list does not carry them)' },
  ],
  customers: [
    ...COMMON,
    {
      field: 'password',
      reason: 'Shopify never serves passwords; a restored account is not enabled until its owner sets one',
    },
    {
      field: 'state',
      reason: 'an account becomes enabled only when its owner sets a password (invite or activation URL)',
    },
    { field: 'orders_count', reason: "Shopify counts the customer's orders itself" },
    { field: 'total_spent', reason: "Shopify sums the customer's orders itself" },
    { field: 'last_order_id', reason: "Shopify tracks the customer's orders itself" },
    { field: 'last_order_name', reason: "Shopify tracks the customer's orders itself" },
    { field: 'currency', reason: "the target shop's currency" },
    {
      field: 'accepts_marketing_updated_at',
      reason: 'Shopify stamps the time consent changes; restore restores the consent, not when it was given',
    },
    { field: 'email_marketing_consent', reason: 'consent records are stamped by Shopify when consent changes' },
    { field: 'sms_marketing_consent', reason: 'consent records are stamped by Shopify when consent changes' },
    {
      field: 'default_address',
      reason: 'Shopify derives it from the addresses (the first one restored is the default)',
    },
  ],
  orders: [
    ...COMMON,
    { field: 'order_number', reason: 'Shopify numbers orders itself, from 1001 on; restore keeps the name' },
    { field: 'number', reason: 'Shopify numbers orders itself' },
    { field: 'cancelled_at', reason: 'cancel stamps the time it runs; restore restores that the order is cancelled' },
    { field: 'closed_at', reason: 'close stamps the time it runs; restore restores that the order is closed' },
    {
      field: 'refunds',
      reason: 'refunds are not written: the Refund API would try to return money again (financial_status is kept)',
    },
    {
      field: 'transactions',
      reason: 'gateway transactions cannot be recreated: an order created through the API has no payment',
    },
    { field: 'gateway', reason: 'an order created through the API has no payment gateway' },
    { field: 'payment_gateway_names', reason: 'an order created through the API has no payment gateway' },
    { field: 'payment_details', reason: 'an order created through the API has no payment' },
    {
      field: 'fulfillments',
      reason:
        'fulfilment details and tracking need the Fulfillment API, which restore does not write; a fulfilled order is restored as fulfilled',
    },
    {
      field: 'fulfillment_status',
      reason: 'a partial fulfilment cannot be written through order create; such an order is restored unfulfilled',
    },
    {
      field: 'source_name',
      reason: 'Shopify reserves its channel names (web, pos, …); restored orders say shopsnap-restore',
    },
    {
      field: 'line_items[].tax_lines',
      reason:
        "Shopify refuses tax lines on both an order and its line items; restore writes the order's, which hold every tax",
    },
    {
      field: 'line_items[].title',
      reason:
        "a line item of a variant takes its title, SKU and weight from the variant as the target has it (a custom line item keeps the snapshot's)",
    },
    { field: 'line_items[].discount_allocations', reason: "Shopify allocates the discount codes' amounts itself" },
    { field: 'discount_applications', reason: 'Shopify derives them from the discount codes' },
    {
      field: 'line_items[].gift_card',
      reason: 'a gift card line would issue a new gift card; such a line is restored as a plain custom item',
    },
    {
      field: 'current_total_price',
      reason: 'current_* totals follow refunds and edits, which are not restored; the original totals are',
    },
    { field: 'presentment_currency', reason: "Shopify takes it from the target shop's currency settings" },
    { field: 'token', reason: 'Shopify issues it (and order_status_url, cart_token, checkout_token) itself' },
    { field: 'client_details', reason: "the buyer's browser at checkout; an order created through the API has none" },
    { field: 'landing_site', reason: "the buyer's visit at checkout (landing_site, referring_site) is not writable" },
    { field: 'location_id', reason: 'set by point-of-sale orders only' },
    { field: 'user_id', reason: 'the staff member who created it; API orders have none' },
    { field: 'app_id', reason: 'the app that creates the order: shopsnap' },
  ],
};
