import { describe, expect, it } from 'vitest';
import { customerCreateBody, customerUpdate } from '../../../src/restore/records/customer-bodies.js';
import { withMarker } from '../../../src/restore/records/natural-keys.js';
import type { JsonObject } from '../../../src/shopify/json.js';
import { ABOVE_2_53, CHESTNUT_STREET, edited, exampleRecord, NEAR_2_63, restoredCopy } from './records.js';

const snapshot = exampleRecord('customers', NEAR_2_63);
const source = String(snapshot.id);
const addresses = (record: JsonObject) => record.addresses as JsonObject[];
const chestnut = { ...CHESTNUT_STREET, phone: '555-625-1199' };

describe('customerCreateBody', () => {
  it('writes the fields and addresses with the marker, contacts nobody, sets no password', () => {
    expect(customerCreateBody(snapshot)).toEqual({
      customer: {
        first_name: 'Bob',
        last_name: 'Norman',
        email: 'bob.norman@mail.example.com',
        phone: '+16136120707',
        tags: `shopsnap-source:${source}`,
        accepts_marketing: false,
        tax_exempt: false,
        tax_exemptions: [],
        verified_email: true,
        // An address without names takes the customer's: the snapshot's has none, and says so.
        addresses: [{ first_name: null, last_name: null, ...chestnut, default: true }],
        send_email_invite: false,
        send_email_welcome: false,
      },
    });
  });

  it('puts the default address first (Shopify makes the first one the default)', () => {
    const two = edited(snapshot, (s) => {
      s.addresses = [{ ...chestnut, id: 1, first_name: 'Zoë', city: 'Zürich', default: false }, ...addresses(s)];
    });
    const body = customerCreateBody(two).customer as JsonObject;
    expect((body.addresses as JsonObject[]).map((a) => [a.city, a.default])).toEqual([
      ['Louisville', true],
      ['Zürich', false],
    ]);
    expect((body.addresses as JsonObject[])[1]).toMatchObject({ first_name: 'Zoë' });
  });

  it('sends the invite only when asked', () => {
    expect(customerCreateBody(snapshot, { sendInvite: true }).customer).toMatchObject({ send_email_invite: true });
  });
});

describe('customerUpdate', () => {
  const restored = restoredCopy(snapshot, ABOVE_2_53);
  const target = withMarker('customers', restored.copy, source);
  const id = ABOVE_2_53;
  // Shopify's example address has the id of its customer.
  const address = ABOVE_2_53;

  it.each<[string, (t: JsonObject) => void, JsonObject | undefined, string[]]>([
    ['nothing for an equal customer', () => {}, undefined, []],
    [
      'a changed email and a cleared note, the marker kept with the tags',
      (t) => Object.assign(t, { email: 'other@example.com', note: 'x', tags: `vip, shopsnap-source:${source}` }),
      { id, email: 'bob.norman@mail.example.com', note: null, tags: `shopsnap-source:${source}` },
      [],
    ],
    [
      'a changed address, by its id',
      (t) => Object.assign(addresses(t)[0] as JsonObject, { city: 'Köln' }),
      {
        id,
        addresses: [{ id: address, first_name: null, last_name: null, company: null, ...chestnut, default: true }],
      },
      [],
    ],
    [
      'a lost address comes back without an id, the others kept by id',
      (t) => {
        t.addresses = [{ id: 5, address1: 'Elsewhere', default: true }];
      },
      {
        id,
        addresses: [{ id: 5, first_name: null, last_name: null, company: null, ...chestnut, default: true }],
      },
      [],
    ],
    [
      'an address the snapshot lacks is kept, and reported',
      (t) => addresses(t).push({ id: 6, address1: 'Extra', default: false }),
      undefined,
      ['$.addresses[1]'],
    ],
  ])('%s', (_name, edit, body, fixed) => {
    const update = customerUpdate(snapshot, edited(target, edit), restored.ids);
    expect(update.body).toEqual(body === undefined ? undefined : { customer: body });
    expect(update.cannotRollBack.map((change) => change.path)).toEqual(fixed);
  });
});
