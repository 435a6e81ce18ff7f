import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Reads } from '../../../db/replicas.js';
import { tenantPage } from '../../../db/list.js';
import { shapesResult, type PrismaQuery } from '../../../db/query.js';
import { recordEvent } from '../../../events/outbox.js';
import { Prisma, type Client } from '../../../generated/prisma/client.js';
import { args, dto, fields, pagination } from '../../../lib/dto.js';
import { conflictReasons, notFound, validationFailed } from '../../../lib/errors.js';
import { languageField } from '../../../lib/i18n.js';
import { assertMoneyScale } from '../../../lib/money.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import { clientEInvoiceFormats, peppolSchemes } from '../party/party.codes.js';
import { assertRatesFit } from '../../platform/tenant/tenant.rates.js';
import { AddressDto, email, ElectronicAddressDto, exemptionReason, isCurrencyCode, taxCategory, vatId } from '../party/party.fields.js';

/** Why a write to a client is refused with 409. */
export const clientConflicts = conflictReasons('Client', {
  CLIENT_NAME_TAKEN: { code: 'CONFLICT', description: 'Another client of the tenant has this name' },
  CLIENT_HAS_PROJECTS: { code: 'CONFLICT', description: 'The client has projects and cannot be deleted; archive it instead (archived: true)' },
});

const name = z.string().trim().min(1).max(200).describe('Name, unique in the tenant');
/** ISO 4217: three letters, written in upper case. */
export const currencyCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 code like EUR')
  .transform((code) => code.toUpperCase())
  .refine(isCurrencyCode, 'is not an ISO 4217 currency code in use')
  .describe('ISO 4217 currency code; entries of its projects are in it');
/** A billable or cost rate per hour: a decimal string of at most its currency's decimals, not negative. */
export const hourlyRate = (what: string) => fields.money(`${what}, per hour`, { min: 0, max: 1_000_000 });
const notes = z.string().trim().max(5000).describe('Free text (only those who manage clients read it)');

/** Billing details (CONTRACT.md section 9): what invoices say of the client as buyer. Null clears one on update. */
const billingDetails = {
  billingAddress: AddressDto.nullable().optional().describe('The address invoices are made out to (replaced whole)'),
  vatId: vatId.nullable().optional(),
  invoiceEmail: email.nullable().optional().describe('Where invoices are sent'),
  buyerReference: z.string().trim().min(1).max(200).nullable().optional().describe('The reference the client wants on invoices, e.g. a German Leitweg-ID'),
  electronicAddress: ElectronicAddressDto.nullable().optional().describe('Where e-invoices go'),
  taxCategory: taxCategory
    .schema("The tax category of this client's invoice lines (before the billing profile's default), e.g. AE for reverse charge")
    .nullable()
    .optional(),
  taxExemptionReason: exemptionReason.nullable().optional(),
  // A string rather than an enum: GraphQL enum values cannot carry the contract's hyphens (xrechnung-cii).
  einvoiceFormat: z
    .string()
    .trim()
    .pipe(z.enum(clientEInvoiceFormats, { error: `must be one of: ${clientEInvoiceFormats.join(', ')}` }))
    .optional()
    .describe(
      `The e-invoice it receives: ${clientEInvoiceFormats.join(', ')} (default none). Issuing checks what that format needs ` +
        '(peppol: a Peppol electronicAddress and a buyerReference; xrechnung-*: a buyerReference such as a Leitweg-ID and an electronicAddress)',
    ),
  language: languageField("The language of its invoices, credit notes and reminders; null: the billing profile's").nullable().optional(),
};

interface BillingDetails {
  taxCategory?: string | null | undefined;
  taxExemptionReason?: string | null | undefined;
  einvoiceFormat?: string | undefined;
  electronicAddress?: { scheme: string } | null | undefined;
}

/**
 * An exempt category needs its reason: E has no default one (AE, K, G and O have). A client sent Peppol has a
 * Peppol address when it has one at all (an EAS scheme of the Peppol participant list: EM is none).
 */
function checkBillingDetails(client: BillingDetails): void {
  if (client.taxCategory === 'E' && !client.taxExemptionReason) {
    throw validationFailed([{ path: 'taxExemptionReason', message: 'is required for tax category E (why the client is exempt)' }]);
  }
  if (client.einvoiceFormat === 'peppol' && client.electronicAddress && !peppolSchemes.has(client.electronicAddress.scheme)) {
    throw validationFailed([
      {
        path: 'electronicAddress.scheme',
        message: `must be a Peppol participant scheme (such as 0088, 0208, 9930) for einvoiceFormat peppol; ${client.electronicAddress.scheme} is none`,
      },
    ]);
  }
}

export const CreateClientDto = dto('CreateClientDto', 'A new client.', {
  name,
  currency: currencyCode.optional().describe("ISO 4217 currency code; default: the tenant's"),
  hourlyRate: hourlyRate('Billable rate, before the member’s own and after the project’s').optional(),
  notes: notes.optional(),
  archived: z.boolean().default(false).describe('Archived clients take no new projects'),
  ...billingDetails,
});

export const UpdateClientDto = dto('UpdateClientDto', 'Changes to a client; null clears a field.', {
  name: name.optional(),
  currency: currencyCode.optional(),
  hourlyRate: hourlyRate('Billable rate').nullable().optional(),
  notes: notes.nullable().optional(),
  archived: z.boolean().optional().describe('Archive a client instead of deleting it'),
  ...billingDetails,
});

const tenantId = fields.id('Tenant id');
const clientId = fields.id('Client id');
export const ListClientsArgs = args({
  tenantId,
  archived: z.boolean().optional().describe('Only archived (true) or only active (false) clients'),
  ...pagination,
});
export const ClientArgs = args({ tenantId, id: clientId });
export const CreateClientArgs = args({ tenantId, input: CreateClientDto });
export const UpdateClientArgs = args({ tenantId, id: clientId, input: UpdateClientDto });

export type ClientQuery = PrismaQuery<Prisma.ClientInclude, Prisma.ClientSelect>;

/** A client of the tenant that may take new projects (its currency), or a 400 naming `path` (another tenant's reads as unknown). */
export async function clientForWork(tx: Tx | Db, access: TenantAccess, id: string, path: string): Promise<{ currency: string }> {
  const client = await tx.client.findFirst({ where: { id, ...access.scope('read', 'Client') }, select: { archived: true, currency: true } });
  if (!client) throw validationFailed([{ path, message: 'is not a client of this tenant' }]);
  if (client.archived) throw validationFailed([{ path, message: 'is an archived client' }]);
  return { currency: client.currency };
}

/** The JSON billing fields as Prisma writes them: null is the database's NULL. */
function jsonColumns<Data extends { billingAddress?: object | null | undefined; electronicAddress?: object | null | undefined }>(data: Data) {
  const { billingAddress, electronicAddress, ...rest } = data;
  const column = (value: object | null | undefined) => (value === null ? Prisma.DbNull : value);
  return {
    ...rest,
    ...(billingAddress === undefined ? {} : { billingAddress: column(billingAddress) }),
    ...(electronicAddress === undefined ? {} : { electronicAddress: column(electronicAddress) }),
  };
}

/**
 * Clients: who the work is for. Managers and admins manage them; members
 * read their names. A client with projects is archived, never deleted (409).
 */
export function createClientService({ db, reads }: { db: Db; reads: Reads }) {
  async function findClient(tx: Tx | Db, access: TenantAccess, id: string): Promise<Client> {
    const client = await tx.client.findFirst({ where: { id, ...access.scope('read', 'Client') } });
    if (!client) throw notFound('Client', id);
    return client;
  }

  async function assertNameFree(tx: Tx, access: TenantAccess, clientName: string | undefined, except?: string): Promise<void> {
    if (clientName === undefined) return;
    const taken = await tx.client.findFirst({
      where: { name: clientName, ...(except ? { NOT: { id: except } } : {}), ...access.tenantWide('Client') },
      select: { id: true },
    });
    if (taken) {
      throw clientConflicts.refuse('CLIENT_NAME_TAKEN', `Another client is already called "${clientName}"`, {
        errors: [{ path: 'name', message: 'is already taken' }],
      });
    }
  }

  const reread = (tx: Tx, id: string, query: ClientQuery, row: Client) =>
    shapesResult(query) ? tx.client.findUniqueOrThrow({ ...query, where: { id } }) : row;

  return {
    /** The tenant's clients, newest first. */
    async list(access: TenantAccess, { limit, offset, archived }: z.output<typeof ListClientsArgs>, query: ClientQuery = {}): Promise<Client[]> {
      return reads.run(access, ({ db }) =>
        db.client.findMany({ ...query, ...tenantPage(access.scope('read', 'Client'), { limit, offset }, archived === undefined ? {} : { archived }) }),
      );
    },

    /** One client. */
    async get(access: TenantAccess, id: string, query: ClientQuery = {}): Promise<Client> {
      const client = await db.client.findFirst({ ...query, where: { id, ...access.scope('read', 'Client') } });
      if (!client) throw notFound('Client', id);
      return client;
    },

    /** Creates a client (in the tenant's currency unless given) and records `client.created`. */
    async create(access: TenantAccess, { currency, ...data }: z.output<typeof CreateClientDto>, query: ClientQuery = {}): Promise<Client> {
      access.assert('create', 'Client');
      checkBillingDetails(data);
      return db.$transaction(async (tx) => {
        await assertNameFree(tx, access, data.name);
        const tenantCurrency = currency ?? (await settingsFor(tx, access)).currency;
        assertMoneyScale(tenantCurrency, { hourlyRate: data.hourlyRate });
        const client = await tx.client.create({ data: access.stamp({ ...jsonColumns(data), currency: tenantCurrency }) });
        await recordEvent(tx, access, { type: 'client.created', subjectId: client.id, data: client });
        return reread(tx, client.id, query, client);
      });
    },

    /**
     * Changes a client (archiving included) and records `client.updated`; entries keep the currency they were recorded
     * in. A new currency keeps the numbers of the rates in the client's currency (tenant.rates.ts): 400 naming
     * `currency` when one has more decimals than it.
     */
    async update(access: TenantAccess, id: string, data: z.output<typeof UpdateClientDto>, query: ClientQuery = {}): Promise<Client> {
      access.assert('update', 'Client');
      return db.$transaction(async (tx) => {
        const existing = await findClient(tx, access, id);
        await assertNameFree(tx, access, data.name, id);
        checkBillingDetails({
          taxCategory: data.taxCategory === undefined ? existing.taxCategory : data.taxCategory,
          taxExemptionReason: data.taxExemptionReason === undefined ? existing.taxExemptionReason : data.taxExemptionReason,
          einvoiceFormat: data.einvoiceFormat ?? existing.einvoiceFormat,
          electronicAddress: data.electronicAddress === undefined ? (existing.electronicAddress as { scheme: string } | null) : data.electronicAddress,
        });
        assertMoneyScale(data.currency ?? existing.currency, { hourlyRate: data.hourlyRate });
        const client = await tx.client.update({ where: { id }, data: jsonColumns(data) });
        if (client.currency !== existing.currency) await assertRatesFit(tx, access, { kind: 'client', clientId: id }, client.currency, 'currency');
        await recordEvent(tx, access, { type: 'client.updated', subjectId: id, data: client });
        return reread(tx, id, query, client);
      });
    },

    /** Deletes a client without projects (409 otherwise: archive it) and records `client.deleted`. */
    async remove(access: TenantAccess, id: string, query: ClientQuery = {}): Promise<Client> {
      access.assert('delete', 'Client');
      return db.$transaction(async (tx) => {
        const existing = await findClient(tx, access, id);
        const projects = await tx.project.count({ where: { clientId: id, ...access.tenantWide('Project') } });
        if (projects > 0) {
          throw clientConflicts.refuse(
            'CLIENT_HAS_PROJECTS',
            `The client has ${projects} ${projects === 1 ? 'project' : 'projects'}; archive it instead (archived: true)`,
          );
        }
        const deleted = await tx.client.delete({ ...query, where: { id } });
        await recordEvent(tx, access, { type: 'client.deleted', subjectId: id, data: existing });
        return deleted;
      });
    },
  };
}

export type ClientService = ReturnType<typeof createClientService>;
