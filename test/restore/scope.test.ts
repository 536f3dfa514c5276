import { describe, expect, it } from 'vitest';
import { parseOnly } from '../../src/restore/scope.js';

describe('--only', () => {
  it.each([
    [['orders:1', '2'], { orders: ['1', '2'] }],
    [['orders:1', 'customers:3', '4'], { orders: ['1'], customers: ['3', '4'] }],
    [['products:18446744073709551615'], { products: ['18446744073709551615'] }],
    [['orders:007'], { orders: ['7'] }],
  ])('%j', (items, expected) => {
    const only = parseOnly(items);
    expect(Object.fromEntries(Object.entries(only).map(([resource, ids]) => [resource, [...ids]]))).toEqual(expected);
  });

  it.each([
    [['1'], /name the resource first \(orders:1\)/],
    [['order:1'], /"order" is not one of products, customers, orders/],
    [['orders:abc'], /"abc" is not a record id/],
    [['orders:'], /"" is not a record id/],
  ])('refuses %j', (items, message) => {
    expect(() => parseOnly(items)).toThrow(message);
  });
});
