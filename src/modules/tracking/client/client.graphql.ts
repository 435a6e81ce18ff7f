import { builder } from '../../../graphql/builder.js';
import { rateField } from '../../../graphql/rates.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { restrictedField, visibleTo } from '../../../graphql/visibility.js';
import type { Address, ElectronicAddress } from '../party/party.fields.js';
import { taxCategory } from '../party/party.fields.js';
import { AddressObject, ElectronicAddressObject } from '../party/party.graphql.js';
import { resourceFields } from '../../../graphql/resource-fields.js';
import { ClientArgs, CreateClientArgs, ListClientsArgs, UpdateClientArgs } from './client.service.js';

const readBilling = ['read', 'ClientBilling'] as const;
const billingVisibility = 'Null for members (they read client names only).';

builder.prismaObject('Client', {
  description: 'Who the work is for: projects belong to at most one client, and take its currency and rate.',
  fields: (t) => ({
    id: t.exposeID('id'),
    tenantId: t.exposeID('tenantId'),
    name: t.exposeString('name', { description: 'Unique in the tenant' }),
    currency: t.exposeString('currency', { description: 'ISO 4217; entries of its projects are in it' }),
    hourlyRate: t.field(rateField('hourlyRate', "Billable rate per hour, after the project's and the project member's.")),
    notes: t.field(restrictedField('notes', ['read', 'ClientNotes'], 'Free text; null for those who do not manage clients (members read names only)')),
    archived: t.exposeBoolean('archived', { description: 'Archived clients take no new projects' }),
    // Billing details: for those who read clients' billing (owners, admins, managers, API keys); null for members.
    billingAddress: t.field({
      type: AddressObject,
      nullable: true,
      description: `The address invoices are made out to. ${billingVisibility}`,
      resolve: (client, _args, context) => visibleTo(context, client.tenantId, readBilling, client.billingAddress as Address | null),
    }),
    vatId: t.field(restrictedField('vatId', readBilling, `VAT identifier. ${billingVisibility}`)),
    invoiceEmail: t.field(restrictedField('invoiceEmail', readBilling, `Where invoices are sent. ${billingVisibility}`)),
    buyerReference: t.field(restrictedField('buyerReference', readBilling, `The reference invoices carry (e.g. a Leitweg-ID). ${billingVisibility}`)),
    electronicAddress: t.field({
      type: ElectronicAddressObject,
      nullable: true,
      description: `Where e-invoices go. ${billingVisibility}`,
      resolve: (client, _args, context) => visibleTo(context, client.tenantId, readBilling, client.electronicAddress as ElectronicAddress | null),
    }),
    taxCategory: t.field({
      type: graphqlEnum(taxCategory),
      nullable: true,
      description: `The tax category of its invoice lines (before the billing profile's default). ${billingVisibility}`,
      resolve: (client, _args, context) => visibleTo(context, client.tenantId, readBilling, client.taxCategory),
    }),
    taxExemptionReason: t.field(restrictedField('taxExemptionReason', readBilling, `Why its lines carry no VAT. ${billingVisibility}`)),
    einvoiceFormat: t.field(
      restrictedField(
        'einvoiceFormat',
        readBilling,
        `The e-invoice it receives: none, cii, ubl, xrechnung-cii, xrechnung-ubl, peppol or facturx; issuing checks what it needs. ${billingVisibility}`,
      ),
    ),
    language: t.field(restrictedField('language', readBilling, `BCP 47: the language of its documents; null: the billing profile's. ${billingVisibility}`)),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

resourceFields('Client', {
  subject: 'Client',
  service: (services) => services.clients,
  queries: {
    clients: { list: ListClientsArgs, description: "The tenant's clients, newest first." },
    client: { get: ClientArgs, description: 'One client.' },
  },
  mutations: {
    createClient: {
      create: CreateClientArgs,
      description: "Creates a client; its name is unique in the tenant (409 otherwise), its currency the tenant's unless given.",
    },
    updateClient: { update: UpdateClientArgs, description: 'Changes a client; set archived to retire it.' },
    deleteClient: {
      remove: ClientArgs,
      description: 'Deletes a client without projects (409 otherwise: archive it). GraphQL returns the deleted client.',
    },
  },
});
