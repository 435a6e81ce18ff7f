/**
 * The billing profile (the seller) and a client's billing details (the
 * buyer), over REST: defaults until changed, and every bad value of issue 31
 * refused with its field named and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillingProfile, Client, Problem } from './generated/openapi/types.gen.js';
import { seeder, type SeededTenant } from './helpers/seed.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let server: TestServer;
let alpha: SeededTenant;

beforeAll(async () => {
  server = await startTestServer();
  alpha = await seeder(server).tenant();
});
afterAll(async () => {
  await server?.stop();
});

const profilePath = (tenantId: string) => `/tenants/${tenantId}/billing-profile`;

const sellerProfile = {
  legalName: 'Tally Test GmbH',
  address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'de' },
  vatId: 'DE 123 456 789',
  email: 'billing@example.com',
  iban: 'DE89 3704 0044 0532 0130 00',
  bic: 'COBADEFFXXX',
  defaultTaxRate: '19.00',
};

describe('the billing profile', () => {
  it('answers its defaults before it is written, then keeps what PATCH sets (normalised)', async () => {
    const tenant = await seeder(server).tenant();
    const before = await tenant.api.get<BillingProfile>(profilePath(tenant.id));
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      numberPattern: '{YYYY}-{SEQ:4}',
      paymentTermsDays: 14,
      defaultTaxCategory: 'S',
      defaultTaxRate: null,
      updatedAt: null,
    });

    const changed = await tenant.api.patch<BillingProfile>(profilePath(tenant.id), sellerProfile);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      legalName: 'Tally Test GmbH',
      address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE', line2: null },
      vatId: 'DE123456789',
      iban: 'DE89370400440532013000',
      defaultTaxRate: '19.00',
    });
    expect((await tenant.api.get<BillingProfile>(profilePath(tenant.id))).body).toEqual(changed.body);
    const events = await server.app.db.event.findMany({ where: { tenantId: tenant.id, type: 'billing_profile.updated' } });
    expect(events).toHaveLength(1);
  });

  it.each([
    ['address.countryCode', { address: { ...sellerProfile.address, countryCode: 'XX' } }],
    ['iban', { iban: 'DE89 3704 0044 0532 0130 01' }],
    ['vatId', { vatId: 'ZZ123456789' }],
    ['vatId', { vatId: 'GR123456789' }],
    ['numberPattern', { numberPattern: '{YYYY}-0001' }],
    ['numberPattern', { numberPattern: 'INV-{NUM}' }],
    ['defaultTaxCategory', { defaultTaxCategory: 'X' }],
    ['defaultTaxRate', { defaultTaxRate: '19.005' }],
    ['bic', { bic: 'NOTABIC' }],
    ['defaultTaxExemptionReason', { defaultTaxCategory: 'E' }],
  ])('refuses a bad %s, naming it, and writes nothing', async (field, body) => {
    const tenant = await seeder(server).tenant();
    const answer = await tenant.api.patch<Problem>(profilePath(tenant.id), { legalName: 'Kept out', ...body });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body.errors?.map((error) => error.path)).toContain(field);
    expect(await server.app.db.billingProfile.findUnique({ where: { tenantId: tenant.id } })).toBeNull();
  });
});

describe("a client's billing details", () => {
  it('are kept, and a bad currency, country or VAT id is refused by name', async () => {
    const created = await alpha.api.post<Client>(`/tenants/${alpha.id}/clients`, {
      name: 'Buyer AG',
      currency: 'eur',
      billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
      vatId: 'ATU12345678',
      buyerReference: '04011000-12345-67',
      electronicAddress: { scheme: 'EM', id: 'invoices@buyer.example' },
      taxCategory: 'AE',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ currency: 'EUR', vatId: 'ATU12345678', taxCategory: 'AE', billingAddress: { countryCode: 'AT' } });

    for (const [field, body] of [
      ['currency', { currency: 'XYZ' }],
      ['billingAddress.countryCode', { billingAddress: { line1: 'a', postcode: '1', city: 'c', countryCode: 'QQ' } }],
      ['vatId', { vatId: 'QQ1234' }],
      ['taxCategory', { taxCategory: 'VAT' }],
      ['taxExemptionReason', { taxCategory: 'E' }],
      ['electronicAddress.id', { electronicAddress: { scheme: 'EM', id: 'not-mail' } }],
    ] as const) {
      const name = `Refused ${field}`;
      const answer = await alpha.api.post<Problem>(`/tenants/${alpha.id}/clients`, { name, ...body });
      expect(answer.status, field).toBe(400);
      expect(answer.body.errors?.map((error) => error.path)).toContain(field);
      expect(await server.app.db.client.findFirst({ where: { tenantId: alpha.id, name } })).toBeNull();
    }
  });
});
