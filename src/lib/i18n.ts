/**
 * The languages documents for clients are written in (CONTRACT.md section 11, "Languages"): a BCP 47 tag
 * whose language has a catalogue (src/lib/messages/), e.g. `de`, `de-AT`, `fr-CH`, `en-GB`. Texts come
 * from the catalogue through i18next; dates, numbers and amounts are formatted by ICU (`Intl`) for the
 * full tag, so `de-CH` groups with an apostrophe where `de` uses a dot. A key missing from a catalogue
 * throws instead of printing the key: a document never goes out with a hole in it.
 */
import i18next, { type TFunction } from 'i18next';
import { z } from 'zod';
import { dayColumn } from './day.js';
import { fixedDecimal, minorUnitsOf } from './money.js';
import { de } from './messages/de.js';
import { type Catalogue, en } from './messages/en.js';
import { fr } from './messages/fr.js';

/** One catalogue per language, by its ISO 639-1 code. */
export const catalogues: Readonly<Record<string, Catalogue>> = { de, en, fr };
export const supportedLanguages = Object.keys(catalogues);
/** What a document is written in when neither the client nor the billing profile names a language. */
export const defaultLanguage = 'en';

/** `tag` in its canonical BCP 47 form when it is one and its language has a catalogue, else null. */
export function supportedLanguageTag(tag: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (!canonical) return null;
    return supportedLanguages.includes(new Intl.Locale(canonical).language) ? canonical : null;
  } catch {
    return null;
  }
}

/** A language field of the API: a BCP 47 tag of a language with a catalogue, stored in its canonical form. */
export const languageField = (description: string) =>
  z
    .string()
    .trim()
    .max(35)
    .transform((tag, context) => {
      const canonical = supportedLanguageTag(tag);
      if (canonical) return canonical;
      context.addIssue({ code: 'custom', message: `must be a BCP 47 language tag of ${supportedLanguages.join(', ')} (e.g. de, de-AT, fr)` });
      return z.NEVER;
    })
    .describe(`${description}: a BCP 47 tag of ${supportedLanguages.join(', ')}, e.g. de, de-AT, fr`);

const instance = i18next.createInstance();
void instance.init({
  // Synchronous: the catalogues are in memory, and a document renders without waiting for a backend.
  initAsync: false,
  resources: Object.fromEntries(Object.entries(catalogues).map(([language, catalogue]) => [language, { translation: catalogue }])),
  fallbackLng: false,
  supportedLngs: supportedLanguages,
  interpolation: { escapeValue: false },
  returnNull: false,
  returnEmptyString: false,
  parseMissingKeyHandler: (key: string) => {
    throw new Error(`The message catalogue lacks "${key}"`);
  },
});

/** Formats for one language tag: the catalogue's texts and ICU's dates, numbers and amounts. */
export interface DocumentLocale {
  /** The BCP 47 tag, as pdfkit's `lang` and Intl take it. */
  readonly tag: string;
  readonly t: TFunction;
  /** `2026-11-28` as `28.11.2026` (de), `28/11/2026` (en, fr). */
  date(day: string): string;
  /** `2026-11-28` as `28. November 2026`, `28 November 2026`, `28 novembre 2026`. */
  longDate(day: string): string;
  /** A decimal string at `digits` decimals, grouped: `1.234,50` (de). */
  number(value: string, digits?: number): string;
  /** An amount at its currency's scale, without the currency. */
  money(value: string, currency: string): string;
  /** An amount with its currency as the locale writes it: `1.234,50 €` (de), `€1,234.50` (en). */
  amount(value: string, currency: string): string;
  /** A percent rate `19.00` as `19 %` (de), `19%` (en). */
  percent(rate: string): string;
  /** An ISO 3166-1 code as the country's name. */
  country(code: string): string;
  /** `2026-11-28` as its short weekday: `Sa.` (de), `Sat` (en), `sam.` (fr). */
  weekday(day: string): string;
}

const cache = new Map<string, DocumentLocale>();

/** The formats of `language` (a supported tag; anything else is written in the default language). */
export function documentLocale(language: string | null | undefined): DocumentLocale {
  const tag = (language && supportedLanguageTag(language)) || defaultLanguage;
  const known = cache.get(tag);
  if (known) return known;
  // English documents are written the British way (day first), as they were before languages came.
  const intlTag = tag === 'en' ? 'en-GB' : tag;
  const t = instance.getFixedT(new Intl.Locale(tag).language);
  const shortFormat = new Intl.DateTimeFormat(intlTag, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });
  const longFormat = new Intl.DateTimeFormat(intlTag, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const numbers = new Map<number, Intl.NumberFormat>();
  const numberFormat = (digits: number) => {
    let format = numbers.get(digits);
    if (!format) numbers.set(digits, (format = new Intl.NumberFormat(intlTag, { minimumFractionDigits: digits, maximumFractionDigits: digits })));
    return format;
  };
  const percentFormat = new Intl.NumberFormat(intlTag, { style: 'percent', maximumFractionDigits: 2 });
  const countries = new Intl.DisplayNames([intlTag], { type: 'region' });
  const weekdayFormat = new Intl.DateTimeFormat(intlTag, { weekday: 'short', timeZone: 'UTC' });
  // Intl formats a decimal string exactly (no float on the way): the amounts stay the stored ones.
  const exact = (value: string) => value as unknown as number;
  const locale: DocumentLocale = {
    tag,
    t,
    date: (day) => shortFormat.format(dayColumn(day)),
    longDate: (day) => longFormat.format(dayColumn(day)),
    number: (value, digits = 2) => numberFormat(digits).format(exact(fixedDecimal(value, digits))),
    money: (value, currency) => numberFormat(minorUnitsOf(currency)).format(exact(fixedDecimal(value, minorUnitsOf(currency)))),
    amount: (value, currency) =>
      new Intl.NumberFormat(intlTag, {
        style: 'currency',
        currency,
        minimumFractionDigits: minorUnitsOf(currency),
        maximumFractionDigits: minorUnitsOf(currency),
      }).format(exact(fixedDecimal(value, minorUnitsOf(currency)))),
    percent: (rate) => percentFormat.format(exact(`${Number(rate) / 100}`)),
    country: (code) => countries.of(code) ?? code,
    weekday: (day) => weekdayFormat.format(dayColumn(day)),
  };
  cache.set(tag, locale);
  return locale;
}
