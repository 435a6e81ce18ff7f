import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import { recordEvent } from '../../../events/outbox.js';
import { Prisma, type BillingProfile } from '../../../generated/prisma/client.js';
import type { TaxCategory } from '../../../generated/prisma/enums.js';
import { args, dto, fields } from '../../../lib/dto.js';
import { defaultLanguage, languageField } from '../../../lib/i18n.js';
import { validationFailed, type FieldError } from '../../../lib/errors.js';
import { assertMoneyScale } from '../../../lib/money.js';
import { settingsFor } from '../../platform/tenant/tenant.settings.js';
import {
  AddressDto,
  bic,
  ElectronicAddressDto,
  email,
  exemptionReason,
  iban,
  icdScheme,
  taxCategory,
  taxRate,
  vatId,
  type Address,
  type ElectronicAddress,
} from '../../tracking/party/party.fields.js';
import { numberPatternMaxLength, numberPatternProblem } from './billing-profile.numbers.js';
import { defaultReminderLevels, type ReminderLevel, reminderLevelsField, reminderLevelsOf } from './billing-profile.reminders.js';

const text = (max: number, description: string) => z.string().trim().min(1).max(max).describe(description);

export const UpdateBillingProfileDto = dto('UpdateBillingProfileDto', 'Changes to the billing profile; fields left out keep their value, null clears one.', {
  legalName: text(200, 'The seller’s legal name, as invoices show it').nullable().optional(),
  address: AddressDto.nullable().optional().describe('The seller’s address (replaced whole)'),
  vatId: vatId.nullable().optional(),
  taxNumber: text(40, 'Tax number (when invoices show it instead of, or beside, the VAT id)').nullable().optional(),
  registrationId: text(100, 'Legal registration (EN 16931 BT-30), e.g. HRB 12345, Amtsgericht Hamburg, or a Belgian enterprise number').nullable().optional(),
  registrationScheme: icdScheme.nullable().optional(),
  email: email.nullable().optional().describe('Where clients write about invoices'),
  phone: text(50, 'Phone number').nullable().optional(),
  contactName: text(200, 'Who to ask about invoices (e-invoices name a seller contact)').nullable().optional(),
  electronicAddress: ElectronicAddressDto.nullable().optional().describe('The seller’s electronic address (e-invoices)'),
  iban: iban.nullable().optional(),
  bic: bic.nullable().optional(),
  bankName: text(200, 'Name of the bank').nullable().optional(),
  numberPattern: z
    .string()
    .trim()
    .max(numberPatternMaxLength)
    .superRefine((pattern, context) => {
      const problem = numberPatternProblem(pattern);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .describe('Invoice numbers: text and {YYYY}, {YY}, {MM} and one {SEQ:n} (n digits, 1 to 10), e.g. {YYYY}-{SEQ:4}'),
  paymentTermsDays: z.number().int().min(0).max(365).optional().describe('Days from the issue date to the due date'),
  defaultTaxCategory: taxCategory.schema('The tax category of lines whose client has none').optional(),
  defaultTaxRate: taxRate('VAT rate in percent of category S lines, e.g. 19.00').nullable().optional(),
  defaultTaxExemptionReason: exemptionReason.nullable().optional().describe('Why lines of the default category E are exempt'),
  smallBusiness: z.boolean().optional().describe('No VAT charged (e.g. Kleinunternehmer, § 19 UStG): every line is category E with the small-business note'),
  language: languageField('What documents for clients are written in, unless the client names its own (default en)').optional(),
  reminderLevels: reminderLevelsField.optional(),
});

const tenantId = fields.id('Tenant id');
export const BillingProfileArgs = args({ tenantId });
export const UpdateBillingProfileArgs = args({ tenantId, input: UpdateBillingProfileDto });

/** The billing profile as the API shows it: the defaults where nothing is stored. */
export interface BillingProfileView {
  tenantId: string;
  legalName: string | null;
  address: Address | null;
  vatId: string | null;
  taxNumber: string | null;
  registrationId: string | null;
  registrationScheme: string | null;
  email: string | null;
  phone: string | null;
  contactName: string | null;
  electronicAddress: ElectronicAddress | null;
  iban: string | null;
  bic: string | null;
  bankName: string | null;
  numberPattern: string;
  paymentTermsDays: number;
  defaultTaxCategory: TaxCategory;
  defaultTaxRate: Prisma.Decimal | null;
  defaultTaxExemptionReason: string | null;
  smallBusiness: boolean;
  /** BCP 47: what documents for clients are written in, unless the client names its own. */
  language: string;
  /** By afterDays: level 1 is the first. */
  reminderLevels: ReminderLevel[];
  /** The tenant's currency, which reminder fees are written in (set by the service's get and update, which show it). */
  currency?: string;
  /** Null while nothing is stored. */
  updatedAt: Date | null;
}

/** The profile a tenant has before it writes one: a pattern, 14 days, category S without a rate yet. */
function defaultRow(tenantIdValue: string): BillingProfile {
  return {
    tenantId: tenantIdValue,
    legalName: null,
    addressLine1: null,
    addressLine2: null,
    postcode: null,
    city: null,
    countryCode: null,
    vatId: null,
    taxNumber: null,
    registrationId: null,
    registrationScheme: null,
    email: null,
    phone: null,
    contactName: null,
    electronicAddressScheme: null,
    electronicAddressId: null,
    iban: null,
    bic: null,
    bankName: null,
    numberPattern: '{YYYY}-{SEQ:4}',
    paymentTermsDays: 14,
    defaultTaxCategory: 'S',
    defaultTaxRate: null,
    defaultTaxExemptionReason: null,
    smallBusiness: false,
    language: defaultLanguage,
    reminderLevels: defaultReminderLevels as unknown as Prisma.JsonValue,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
}

function viewOf(row: BillingProfile, stored: boolean): BillingProfileView {
  const {
    addressLine1,
    addressLine2,
    postcode,
    city,
    countryCode,
    electronicAddressScheme,
    electronicAddressId,
    createdAt: _created,
    updatedAt,
    ...rest
  } = row;
  return {
    ...rest,
    address: addressLine1 && postcode && city && countryCode ? { line1: addressLine1, line2: addressLine2, postcode, city, countryCode } : null,
    electronicAddress: electronicAddressScheme && electronicAddressId ? { scheme: electronicAddressScheme, id: electronicAddressId } : null,
    reminderLevels: reminderLevelsOf(rest.reminderLevels),
    updatedAt: stored ? updatedAt : null,
  };
}

/** The columns a change writes (the address and electronic address are kept in columns of their parts). */
function columnsOf(input: z.output<typeof UpdateBillingProfileDto>): Prisma.BillingProfileUncheckedUpdateInput {
  const { address, electronicAddress, reminderLevels, ...rest } = input;
  return {
    ...rest,
    ...(reminderLevels === undefined ? {} : { reminderLevels: reminderLevels as unknown as Prisma.InputJsonValue }),
    ...(address === undefined
      ? {}
      : {
          addressLine1: address?.line1 ?? null,
          addressLine2: address?.line2 ?? null,
          postcode: address?.postcode ?? null,
          city: address?.city ?? null,
          countryCode: address?.countryCode ?? null,
        }),
    ...(electronicAddress === undefined
      ? {}
      : { electronicAddressScheme: electronicAddress?.scheme ?? null, electronicAddressId: electronicAddress?.id ?? null }),
  };
}

/** What a profile must not be, whatever was changed: an S rate of 0, an exempt default without its reason. */
function profileProblems(profile: BillingProfileView): FieldError[] {
  const problems: FieldError[] = [];
  if (profile.defaultTaxCategory === 'S' && profile.defaultTaxRate?.isZero()) {
    problems.push({ path: 'defaultTaxRate', message: 'must be above 0 for category S (use category Z for zero-rated supplies)' });
  }
  if (profile.registrationScheme !== null && profile.registrationId === null) {
    problems.push({ path: 'registrationScheme', message: 'names the scheme of registrationId, which is not set' });
  }
  if (profile.defaultTaxCategory === 'E' && !profile.smallBusiness && profile.defaultTaxExemptionReason === null) {
    problems.push({ path: 'defaultTaxExemptionReason', message: 'is required when the default category is E (exempt)' });
  }
  return problems;
}

/** The tenant's billing profile (its defaults while none is stored), read in `tx` so that a transaction sees its own changes. */
export async function billingProfileFor(tx: Tx | Db, access: TenantAccess): Promise<BillingProfileView> {
  const row = await tx.billingProfile.findFirst({ where: access.scope('read', 'BillingProfile') });
  return row ? viewOf(row, true) : viewOf(defaultRow(access.tenantId), false);
}

/**
 * The billing profile: the seller's legal data, bank details, number
 * pattern, payment terms and default tax of a tenant's client invoices. One
 * per tenant; it always "exists" (GET answers the defaults until the first
 * PATCH stores it). Owners, admins and API keys change it; managers read it.
 */
export function createBillingProfileService({ db }: { db: Db }) {
  return {
    /** The tenant's profile, or its defaults. */
    async get(access: TenantAccess): Promise<BillingProfileView> {
      const profile = await billingProfileFor(db, access);
      return { ...profile, currency: (await settingsFor(db, access)).currency };
    },

    /** Changes the profile (storing it the first time) and records `billing_profile.updated`. */
    async update(access: TenantAccess, input: z.output<typeof UpdateBillingProfileDto>): Promise<BillingProfileView> {
      access.assert('update', 'BillingProfile');
      return db.$transaction(async (tx) => {
        const before = await tx.billingProfile.findFirst({ where: access.scope('update', 'BillingProfile') });
        const merged = { ...(before ?? defaultRow(access.tenantId)), ...columnsOf(input) } as BillingProfile;
        const problems = profileProblems(
          viewOf({ ...merged, defaultTaxRate: merged.defaultTaxRate === null ? null : new Prisma.Decimal(merged.defaultTaxRate) }, true),
        );
        if (problems.length > 0) throw validationFailed(problems);
        // A reminder's fee is charged in the invoice's currency: at most the decimals of the tenant's.
        const fees = Object.fromEntries((input.reminderLevels ?? []).map((level, index) => [`reminderLevels.${index}.feeAmount`, level.feeAmount]));
        const { currency } = await settingsFor(tx, access);
        assertMoneyScale(currency, fees);
        const data = columnsOf(input) as Prisma.BillingProfileUncheckedCreateInput;
        const row = before
          ? await tx.billingProfile.update({ where: access.scope('update', 'BillingProfile'), data })
          : await tx.billingProfile.create({ data: access.stamp(data) });
        const profile = viewOf(row, true);
        await recordEvent(tx, access, { type: 'billing_profile.updated', subjectId: access.tenantId, data: profile });
        return { ...profile, currency };
      });
    },
  };
}

export type BillingProfileService = ReturnType<typeof createBillingProfileService>;
