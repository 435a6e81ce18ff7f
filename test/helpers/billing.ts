/** A tenant set up to bill, through the API: its billing profile, a client with two projects at two rates, and approved time. */
import { expect } from 'vitest';
import type { Entry } from '../generated/openapi/types.gen.js';
import type { ApiClient, Json } from './http.js';
import type { IdentityProvider } from './oidc.js';
import { seeder, type SeededMember, type SeededTenant } from './seed.js';
import type { TestServer } from './server.js';

/** A German seller with what an invoice and an XRechnung need. */
export const sellerProfile = {
  legalName: 'Tally Test GmbH',
  address: { line1: 'Hauptstraße 1', postcode: '10115', city: 'Berlin', countryCode: 'DE' },
  vatId: 'DE123456789',
  email: 'billing@example.com',
  iban: 'DE89370400440532013000',
  defaultTaxRate: '19.00',
};

/** What XRechnung asks of the seller beyond an invoice: a contact and an electronic address. */
export const xrechnungSeller = {
  ...sellerProfile,
  phone: '+49 30 1234567',
  contactName: 'Jana Berger',
  electronicAddress: { scheme: 'EM', id: 'invoices@tally-test.example' },
};

/** A client who takes every format: a Leitweg-ID as buyer reference, a VAT id and an electronic address. */
export const publicClient = {
  buyerReference: '04011000-12345-34',
  vatId: 'ATU12345678',
  electronicAddress: { scheme: 'EM', id: 'einvoice@buyer.example' },
};

export interface Billing {
  tenant: SeededTenant;
  member: SeededMember;
  api: ApiClient;
  /** `/tenants/{tenantId}/client-invoices` */
  path: string;
  clientId: string;
  projects: { id: string; rate: string }[];
}

/** A tenant with `profile`, a client (Buyer AG in Vienna, EUR, with `client`'s fields) with projects at 100.00 and 85.50, and a member who works on them. */
export async function billingTenant(server: TestServer, provider: IdentityProvider, profile: Json = sellerProfile, client: Json = {}): Promise<Billing> {
  const member = await seeder(server, provider).tenant().member('member');
  const tenant = member.tenant;
  const t = tenant.id;
  expect((await tenant.api.patch(`/tenants/${t}`, { settings: { approvalRequired: true, timezone: 'Europe/Berlin' } })).status).toBe(200);
  expect((await tenant.api.patch(`/tenants/${t}/billing-profile`, profile)).status).toBe(200);
  const clientAnswer = await tenant.api.post<{ id: string }>(`/tenants/${t}/clients`, {
    name: 'Buyer AG',
    currency: 'EUR',
    billingAddress: { line1: 'Ring 2', postcode: '1010', city: 'Wien', countryCode: 'AT' },
    ...client,
  });
  expect(clientAnswer.status).toBe(201);
  const projects = [];
  for (const rate of ['100.00', '85.50']) {
    const project = await tenant.api.post<{ id: string }>(`/tenants/${t}/projects`, {
      name: `Project at ${rate}`,
      clientId: clientAnswer.body.id,
      hourlyRate: rate,
    });
    expect(project.status).toBe(201);
    projects.push({ id: project.body.id, rate });
  }
  return { tenant, member, api: tenant.api, path: `/tenants/${t}/client-invoices`, clientId: clientAnswer.body.id, projects };
}

/** An approved entry of the member: submitted by them, approved by the admin key. */
export async function approvedEntry(b: Billing, projectId: string, startedAt: string, minutes: number): Promise<Entry> {
  const endedAt = new Date(Date.parse(startedAt) + minutes * 60_000).toISOString();
  const created = await b.member.api.post<Entry>(`/tenants/${b.tenant.id}/entries`, { projectId, startedAt, endedAt, description: 'Work' });
  expect(created.status).toBe(201);
  expect((await b.member.api.post(`/tenants/${b.tenant.id}/entries/${created.body.id}/submit`)).status).toBe(200);
  const approved = await b.api.post<Entry>(`/tenants/${b.tenant.id}/entries/${created.body.id}/approve`);
  expect(approved.status).toBe(200);
  return approved.body;
}
