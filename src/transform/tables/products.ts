import { createTable, omitFields, type Shape } from '../schema.js';

const IMAGE: Shape = {
  id: 'int64',
  product_id: 'int64',
  position: 'int32',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  alt: 'string',
  width: 'int32',
  height: 'int32',
  src: 'string',
  variant_ids: 'json',
  admin_graphql_api_id: 'string',
};

export const products = createTable({
  name: 'products',
  resource: 'products',
  shape: {
    id: 'int64',
    title: 'string',
    body_html: 'string',
    vendor: 'string',
    product_type: 'string',
    created_at: 'timestamp',
    handle: 'string',
    updated_at: 'timestamp',
    published_at: 'timestamp',
    template_suffix: 'string',
    status: 'string',
    published_scope: 'string',
    tags: 'string',
    admin_graphql_api_id: 'string',
    image: IMAGE,
  },
});

export const productVariants = createTable({
  name: 'product_variants',
  resource: 'products',
  parent: { table: 'products', key: 'product_id', field: 'variants' },
  shape: {
    id: 'int64',
    title: 'string',
    price: 'decimal',
    sku: 'string',
    inventory_policy: 'string',
    compare_at_price: 'decimal',
    fulfillment_service: 'string',
    inventory_management: 'string',
    option1: 'string',
    option2: 'string',
    option3: 'string',
    created_at: 'timestamp',
    updated_at: 'timestamp',
    taxable: 'boolean',
    barcode: 'string',
    grams: 'int32',
    image_id: 'int64',
    weight: 'double',
    weight_unit: 'string',
    inventory_item_id: 'int64',
    inventory_quantity: 'int32',
    old_inventory_quantity: 'int32',
    presentment_prices: 'json',
    requires_shipping: 'boolean',
    admin_graphql_api_id: 'string',
  },
});

export const productImages = createTable({
  name: 'product_images',
  resource: 'products',
  parent: { table: 'products', key: 'product_id', field: 'images' },
  shape: omitFields(IMAGE, 'product_id', 'position'),
});

export const productOptions = createTable({
  name: 'product_options',
  resource: 'products',
  parent: { table: 'products', key: 'product_id', field: 'options' },
  shape: { id: 'int64', name: 'string', values: 'json' },
});
