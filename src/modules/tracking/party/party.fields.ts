/**
 * The billing vocabulary, declared once: the fields a seller (the billing
 * profile) and a buyer (a client's billing details) are written with, and
 * how each is checked. Country codes come from i18n-iso-countries (ISO
 * 3166-1 alpha-2), currencies from the platform's ICU data (ISO 4217),
 * IBANs and BICs from ibantools; nothing here is a hand-kept list.
 */
// The library without its names: its main entry registers the names of every country in 80 languages
// (1.8 MB of heap in every process); the codes are all this checks (docs/performance.md, "Memory").
import countries from 'i18n-iso-countries/index.js';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { TaxCategory } from '../../../generated/prisma/enums.js';
import { fields, namedInputs, type StrictObject } from '../../../lib/dto.js';
import { isCurrencyCode } from '../../../lib/money.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { easSchemes, icdSchemes } from './party.codes.js';

export const taxCategory = defineEnum(
  'TaxCategory',
  TaxCategory,
  'EN 16931 VAT category (UNTDID 5305): S standard, Z zero, E exempt, AE reverse charge, K intra-community, G export, O not subject',
);

const alpha2 = new Set(Object.keys(countries.getAlpha2Codes()));

/** An ISO 3166-1 alpha-2 country code (`DE`). */
export const isCountryCode = (code: string): boolean => alpha2.has(code);
export { isCurrencyCode };

export const countryCode = z
  .string()
  .trim()
  .transform((code) => code.toUpperCase())
  .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code such as DE')
  .describe('ISO 3166-1 alpha-2 country code');

/** ISO 4217, in upper case. */
export const currencyCode = z
  .string()
  .trim()
  .transform((code) => code.toUpperCase())
  .refine(isCurrencyCode, 'must be an ISO 4217 currency code such as EUR');

const text = (max: number, description: string) => z.string().trim().min(1).max(max).describe(description);

/**
 * A named input (as `dto()` makes one) with a check across its fields: the check makes a new schema, so the
 * name is given to that one.
 */
function checkedDto<Shape extends z.ZodRawShape>(
  name: string,
  description: string,
  shape: Shape,
  check?: (value: z.output<StrictObject<Shape>>, context: z.RefinementCtx) => void,
): StrictObject<Shape> {
  const schema = check ? z.strictObject(shape).superRefine(check) : z.strictObject(shape);
  namedInputs.add(schema, { id: name, description });
  return schema;
}

export const AddressDto = checkedDto('AddressDto', 'A postal address.', {
  line1: text(200, 'Street and number'),
  line2: text(200, 'More of the address').nullable().optional(),
  postcode: text(20, 'Postal code'),
  city: text(100, 'City'),
  countryCode,
});
export type Address = z.output<typeof AddressDto>;

/** The prefix of a VAT id: its country, except Greece (EL) and Northern Ireland (XI). */
const vatPrefixes = new Set([...alpha2].filter((code) => code !== 'GR').concat(['EL', 'XI']));

/** A VAT id as kept: upper case, without spaces, dots or dashes. */
export const normalVatId = (value: string): string => value.replace(/[\s.-]/g, '').toUpperCase();

export const vatId = z
  .string()
  .max(30)
  .transform(normalVatId)
  .superRefine((value, context) => {
    if (!/^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(value)) {
      context.addIssue({ code: 'custom', message: 'must be a country prefix and 2 to 13 letters or digits, such as DE123456789' });
    } else if (value.startsWith('GR')) {
      context.addIssue({ code: 'custom', message: "must start with EL for Greece (the VAT prefix, not the country's ISO code)" });
    } else if (!vatPrefixes.has(value.slice(0, 2))) {
      context.addIssue({ code: 'custom', message: `starts with ${value.slice(0, 2)}, which is no country's VAT prefix` });
    }
  })
  .describe('VAT identifier with its country prefix (EL for Greece), e.g. DE123456789');

export const iban = z
  .string()
  .max(50)
  .transform((value) => electronicFormatIBAN(value) ?? value)
  .refine((value) => isValidIBAN(value), 'is not a valid IBAN (its length or check digits are wrong)')
  .describe('IBAN; spaces allowed, kept without them');

export const bic = z
  .string()
  .max(20)
  .transform((value) => value.replace(/\s/g, '').toUpperCase())
  .refine((value) => isValidBIC(value), 'must be a BIC of 8 or 11 characters, such as COBADEFFXXX')
  .describe('BIC (SWIFT code)');

export const email = z.email('must be an e-mail address').max(320);

export const ElectronicAddressDto = checkedDto(
  'ElectronicAddressDto',
  'Where e-invoices go: an EAS scheme and an id in it.',
  {
    scheme: z
      .string()
      .trim()
      .toUpperCase()
      .refine((scheme) => easSchemes.has(scheme), 'must be a code of the EAS list, such as 0088 (GLN), 0208 (Belgian enterprise number), 9930 or EM (e-mail)')
      .describe('EAS code, e.g. 0088 (GLN), 0208 (Belgian enterprise number), 9930 (German VAT id), EM (e-mail; not on Peppol)'),
    id: text(200, 'The address in that scheme'),
  },
  (value, context) => {
    if (value.scheme === 'EM' && !email.safeParse(value.id).success)
      context.addIssue({ code: 'custom', path: ['id'], message: 'must be an e-mail address for scheme EM' });
  },
);
export type ElectronicAddress = z.output<typeof ElectronicAddressDto>;

/** A tax rate in percent, with at most two decimals. */
export const taxRate = (description: string) => fields.percent(description, { min: 0, max: 100 });

/** An ISO 6523 ICD code: the scheme of a legal registration (BT-30), e.g. 0208 for a Belgian enterprise number. */
export const icdScheme = z
  .string()
  .trim()
  .refine((scheme) => icdSchemes.has(scheme), 'must be an ISO 6523 ICD code of four digits, such as 0208 (Belgian enterprise number) or 0106 (Dutch KVK)')
  .describe('ISO 6523 ICD code of the registration, e.g. 0208 (BE enterprise number), 0106 (NL KVK), 0002 (FR SIRENE)');

export const exemptionReason = text(300, 'Why no VAT is charged (categories E, AE, K, G, O)');
