import type { Shape } from '../schema.js';

/** Every `*_set` field: the amount in the shop's currency and in the currency the buyer saw. */
export const MONEY_SET: Shape = {
  shop_money: { amount: 'decimal', currency_code: 'string' },
  presentment_money: { amount: 'decimal', currency_code: 'string' },
};

/** A customer's address (customer `addresses`, `default_address`). */
export const CUSTOMER_ADDRESS: Shape = {
  id: 'int64',
  customer_id: 'int64',
  first_name: 'string',
  last_name: 'string',
  company: 'string',
  address1: 'string',
  address2: 'string',
  city: 'string',
  province: 'string',
  country: 'string',
  zip: 'string',
  phone: 'string',
  name: 'string',
  province_code: 'string',
  country_code: 'string',
  country_name: 'string',
  default: 'boolean',
};

/** An order's billing or shipping address: no id, with coordinates. */
export const ORDER_ADDRESS: Shape = {
  first_name: 'string',
  address1: 'string',
  phone: 'string',
  city: 'string',
  zip: 'string',
  province: 'string',
  country: 'string',
  last_name: 'string',
  address2: 'string',
  company: 'string',
  latitude: 'double',
  longitude: 'double',
  name: 'string',
  country_code: 'string',
  province_code: 'string',
};

const MARKETING_CONSENT: Shape = {
  state: 'string',
  opt_in_level: 'string',
  consent_updated_at: 'timestamp',
  consent_collected_from: 'string',
};

/** The scalar and object fields of a customer, shared by the customers table and an order's `customer`. */
export const CUSTOMER_FIELDS: Shape = {
  id: 'int64',
  email: 'string',
  accepts_marketing: 'boolean',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  first_name: 'string',
  last_name: 'string',
  orders_count: 'int32',
  state: 'string',
  total_spent: 'decimal',
  last_order_id: 'int64',
  note: 'string',
  verified_email: 'boolean',
  multipass_identifier: 'string',
  tax_exempt: 'boolean',
  tags: 'string',
  last_order_name: 'string',
  currency: 'string',
  phone: 'string',
  accepts_marketing_updated_at: 'timestamp',
  marketing_opt_in_level: 'string',
  tax_exemptions: 'json',
  email_marketing_consent: MARKETING_CONSENT,
  sms_marketing_consent: MARKETING_CONSENT,
  admin_graphql_api_id: 'string',
  default_address: CUSTOMER_ADDRESS,
};
