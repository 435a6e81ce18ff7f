import { builder } from '../../../graphql/builder.js';
import { graphqlEnum } from '../../../graphql/inputs.js';
import { tenantOperation } from '../../../graphql/operations.js';
import { moneyField, optionalPercentField } from '../../../graphql/money.js';
import { defaultCurrency } from '../../../lib/money.js';
import type { ReminderLevel } from './billing-profile.reminders.js';
import { taxCategory } from '../../tracking/party/party.fields.js';
import { AddressObject, ElectronicAddressObject } from '../../tracking/party/party.graphql.js';
import { BillingProfileArgs, UpdateBillingProfileArgs, type BillingProfileView } from './billing-profile.service.js';

type ReminderLevelView = ReminderLevel & { currency: string };

const ReminderLevelObject = builder.objectRef<ReminderLevelView>('ReminderLevel').implement({
  description: 'A payment reminder level: after how many days past the due date, with which fee and text.',
  fields: (t) => ({
    afterDays: t.exposeInt('afterDays'),
    feeAmount: t.field(
      moneyField<ReminderLevelView>(
        'The fee this reminder adds',
        (level) => level.feeAmount,
        (level) => level.currency,
      ),
    ),
    currency: t.exposeString('currency', { description: "The tenant's currency; an invoice in another is charged the fee in its own" }),
    text: t.exposeString('text', { description: 'The seller’s own text, printed above the standard one' }),
  }),
});

const BillingProfileObject = builder.objectRef<BillingProfileView>('BillingProfile').implement({
  description: "The seller on the tenant's client invoices: legal data, bank details, number pattern, payment terms and default tax.",
  fields: (t) => ({
    tenantId: t.exposeID('tenantId'),
    legalName: t.exposeString('legalName', { nullable: true }),
    address: t.field({ type: AddressObject, nullable: true, resolve: (profile) => profile.address }),
    vatId: t.exposeString('vatId', { nullable: true }),
    taxNumber: t.exposeString('taxNumber', { nullable: true }),
    registrationId: t.exposeString('registrationId', { nullable: true, description: 'Legal registration (EN 16931 BT-30)' }),
    registrationScheme: t.exposeString('registrationScheme', { nullable: true, description: 'ISO 6523 ICD scheme of registrationId, e.g. 0208' }),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    contactName: t.exposeString('contactName', { nullable: true }),
    electronicAddress: t.field({ type: ElectronicAddressObject, nullable: true, resolve: (profile) => profile.electronicAddress }),
    iban: t.exposeString('iban', { nullable: true }),
    bic: t.exposeString('bic', { nullable: true }),
    bankName: t.exposeString('bankName', { nullable: true }),
    numberPattern: t.exposeString('numberPattern', { description: 'Tokens {YYYY}, {YY}, {MM} and {SEQ:n}' }),
    paymentTermsDays: t.exposeInt('paymentTermsDays'),
    defaultTaxCategory: t.expose('defaultTaxCategory', { type: graphqlEnum(taxCategory) }),
    defaultTaxRate: t.field(optionalPercentField<BillingProfileView>('Percent; null until set', (profile) => profile.defaultTaxRate)),
    defaultTaxExemptionReason: t.exposeString('defaultTaxExemptionReason', { nullable: true }),
    smallBusiness: t.exposeBoolean('smallBusiness', { description: 'No VAT charged: every line is category E with the small-business note' }),
    language: t.exposeString('language', { description: 'BCP 47: what documents for clients are written in, unless the client names its own' }),
    reminderLevels: t.field({
      type: [ReminderLevelObject],
      description: 'Payment reminder levels, by afterDays',
      resolve: (profile) => profile.reminderLevels.map((level) => ({ ...level, currency: profile.currency ?? defaultCurrency })),
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true, description: 'Null while the defaults have never been changed' }),
  }),
});

const readProfile = tenantOperation(BillingProfileArgs, ['read', 'BillingProfile']);
const updateProfile = tenantOperation(UpdateBillingProfileArgs, ['update', 'BillingProfile']);

builder.queryField('billingProfile', (t) =>
  t.field({
    type: BillingProfileObject,
    description: "The tenant's billing profile; its defaults until it is first changed.",
    ...readProfile.field(t),
    resolve: readProfile.resolve((_input, access, { services }) => services.billingProfile.get(access)),
  }),
);

builder.mutationField('updateBillingProfile', (t) =>
  t.field({
    type: BillingProfileObject,
    description: 'Changes the billing profile (owners, admins and API keys).',
    ...updateProfile.field(t),
    resolve: updateProfile.resolve((input, access, { services }) => services.billingProfile.update(access, input.input)),
  }),
);
