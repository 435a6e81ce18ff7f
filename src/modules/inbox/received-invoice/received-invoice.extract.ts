/**
 * Field extraction from an invoice's text (OCR or a PDF's text layer): the
 * number, vendor, dates, currency and amounts, by their labels in English
 * and German. Pure: text in, fields out. What it cannot find it leaves out,
 * and OCR fills only what is still empty, so a wrong guess never overwrites
 * what a person typed.
 */
import { isCalendarDay } from '../../../lib/day.js';

export interface ExtractedFields {
  number?: string;
  vendorName?: string;
  /** YYYY-MM-DD */
  issueDate?: string;
  dueDate?: string;
  /** ISO 4217 */
  currency?: string;
  /** Decimal strings, "1234.56" */
  netAmount?: string;
  taxAmount?: string;
  totalAmount?: string;
}

const currencySymbols: Record<string, string> = { '€': 'EUR', $: 'USD', '£': 'GBP' };
const currencyCodes = new Set(['EUR', 'USD', 'GBP', 'CHF', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'HUF', 'JPY', 'CAD', 'AUD']);
const amountPattern = String.raw`([0-9](?:[0-9.,' \u00a0]*[0-9])?)`;
const currencyPattern = '(?:([A-Z]{3})|([€$£]))';
const datePattern = String.raw`(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{4})`;

/**
 * "1,234.56", "1.234,56", "1 234,56", "1'234.5" -> "1234.56" / "1234.50":
 * the last `.` or `,` is the decimal mark when one or two digits follow it;
 * with three it groups thousands ("1.234" is 1234), as do all other marks.
 */
export function parseAmount(written: string): string | undefined {
  const compact = written.replace(/[\s\u00a0']/g, '');
  const mark = Math.max(compact.lastIndexOf('.'), compact.lastIndexOf(','));
  const decimals = mark >= 0 ? compact.length - mark - 1 : 0;
  const [whole, fraction] =
    mark >= 0 && decimals >= 1 && decimals <= 2 ? [compact.slice(0, mark).replace(/[.,]/g, ''), compact.slice(mark + 1)] : [compact.replace(/[.,]/g, ''), ''];
  if (!/^\d{1,12}$/.test(whole) || !/^\d{0,2}$/.test(fraction)) return undefined;
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** A real calendar date as YYYY-MM-DD (day-first when written with dots or slashes after the day). */
export function parseDate(written: string | undefined): string | undefined {
  if (!written) return undefined;
  const yearFirst = written.match(/^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$/);
  const dayFirst = written.match(/^(\d{1,2})[./](\d{1,2})[./](\d{4})$/);
  const [year, month, day] = yearFirst ? [yearFirst[1], yearFirst[2], yearFirst[3]] : dayFirst ? [dayFirst[3], dayFirst[2], dayFirst[1]] : [];
  if (!year || !month || !day) return undefined;
  const iso = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  return isCalendarDay(iso) ? iso : undefined;
}

const codeOf = (code: string | undefined): string | undefined => (code && currencyCodes.has(code) ? code : undefined);

/** The first amount after one of `labels` on the same line, skipping a rate ("VAT 19% 197.12"). */
function amountAfter(text: string, labels: string): { amount?: string; currency?: string } | undefined {
  const pattern = new RegExp(
    String.raw`^.*?\b(?:${labels})\b[^0-9\n€$£]*(?:\d{1,2}(?:[.,]\d+)?\s*%[^0-9\n€$£]*)?${currencyPattern}?\s*${amountPattern}\s*${currencyPattern}?`,
    'im',
  );
  const match = text.match(pattern);
  if (!match) return undefined;
  const [, codeBefore, symbolBefore, amount, codeAfter, symbolAfter] = match;
  const currency = codeOf(codeBefore) ?? codeOf(codeAfter) ?? currencySymbols[symbolBefore ?? symbolAfter ?? ''];
  return { amount: amount ? parseAmount(amount) : undefined, currency };
}

export function extractFields(text: string): ExtractedFields {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const number = text.match(/\b(?:invoice|rechnung|facture)\s*(?:no\.?|number|nr\.?|#)?\s*[:#]?\s*(?!date\b)([A-Z0-9][A-Z0-9\-/]{2,})/i)?.[1];
  const issueDate = parseDate(text.match(new RegExp(String.raw`\b(?:invoice\s+date|date|issued|datum|rechnungsdatum)\b\s*:?\s*${datePattern}`, 'i'))?.[1]);
  const dueDate = parseDate(
    text.match(new RegExp(String.raw`\b(?:due(?:\s+date)?|payable\s+by|fällig(?:\s+am)?|zahlbar\s+bis)\b\s*:?\s*${datePattern}`, 'i'))?.[1],
  );
  const total = amountAfter(text, String.raw`total|amount\s+due|grand\s+total|gesamt(?:betrag)?|brutto|summe`);
  const net = amountAfter(text, 'net|subtotal|netto(?:betrag)?');
  const tax = amountAfter(text, 'vat|tax|gst|mwst|ust');
  const currency =
    total?.currency ?? net?.currency ?? tax?.currency ?? text.match(/\b(EUR|USD|GBP|CHF)\b/)?.[1] ?? currencySymbols[text.match(/[€$£]/)?.[0] ?? ''];
  const vendorName = lines[0] && !/\binvoice\b|\brechnung\b/i.test(lines[0]) ? lines[0].slice(0, 200) : undefined;
  const found: ExtractedFields = {
    number: number?.slice(0, 100),
    vendorName,
    issueDate,
    dueDate,
    currency,
    netAmount: net?.amount,
    taxAmount: tax?.amount,
    totalAmount: total?.amount,
  };
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined)) as ExtractedFields;
}
