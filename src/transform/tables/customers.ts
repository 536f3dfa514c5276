import { createTable, omitFields } from '../schema.js';
import { CUSTOMER_ADDRESS, CUSTOMER_FIELDS } from './common.js';

export const customers = createTable({ name: 'customers', resource: 'customers', shape: CUSTOMER_FIELDS });

export const customerAddresses = createTable({
  name: 'customer_addresses',
  resource: 'customers',
  parent: { table: 'customers', key: 'customer_id', field: 'addresses' },
  shape: omitFields(CUSTOMER_ADDRESS, 'customer_id'),
});
