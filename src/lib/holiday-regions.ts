/**
 * Public holidays of a region, from the `date-holidays` package (its data is
 * CC BY-SA 3.0; the README credits it). A region is `DE`, `DE-BY` or
 * `DE-BY-A`: a country, optionally a state and a region inside it. Only
 * holidays of type `public` count (bank and school holidays, observances do
 * not reduce anyone's expected time).
 */
import { createRequire } from 'node:module';
import type HolidaysClass from 'date-holidays';

export interface PublicHoliday {
  /** `YYYY-MM-DD` */
  date: string;
  name: string;
}

// Loaded on first use (synchronously: a settings check needs it inside zod): its data of every country costs a process
// that never asks about holidays tens of megabytes and tens of milliseconds at start (figures: docs/performance.md).
const require = createRequire(import.meta.url);
let loaded: { Holidays: typeof HolidaysClass; catalogue: HolidaysClass; countries: Record<string, string> } | undefined;
function library() {
  if (!loaded) {
    const Holidays = require('date-holidays') as typeof HolidaysClass;
    const catalogue = new Holidays();
    loaded = { Holidays, catalogue, countries: catalogue.getCountries('en') };
  }
  return loaded;
}

/** Codes already checked: every settings read checks the tenant's again. Bounded: clients may send any text. */
const checked = new Map<string, boolean>();

/** Whether `code` names a region date-holidays knows (`DE-BY` yes, `DE-XX` and `ZZ` no). */
export function isHolidayRegion(code: string): boolean {
  const known = checked.get(code);
  if (known !== undefined) return known;
  const valid = regionExists(code);
  if (checked.size >= 1000) checked.clear();
  checked.set(code, valid);
  return valid;
}

function regionExists(code: string): boolean {
  const { catalogue, countries } = library();
  const [country, state, region, ...rest] = code.split('-');
  if (!country || rest.length > 0 || !Object.hasOwn(countries, country)) return false;
  if (state === undefined) return true;
  const states = catalogue.getStates(country, 'en') ?? {};
  if (!Object.hasOwn(states, state)) return false;
  if (region === undefined) return true;
  return Object.hasOwn(catalogue.getRegions(country, state, 'en') ?? {}, region);
}

/** A region's public holidays of one year: computed once per process (the rules do not change while it runs). */
const byRegionYear = new Map<string, readonly PublicHoliday[]>();

function holidaysOfYear(code: string, year: number): readonly PublicHoliday[] {
  const key = `${code} ${year}`;
  const known = byRegionYear.get(key);
  if (known) return known;
  const [country, state, region] = code.split('-') as [string, string | undefined, string | undefined];
  const calendar = new (library().Holidays)(country, state ?? '', region ?? '', { types: ['public'], languages: ['en'] });
  const found = calendar
    .getHolidays(year, 'en')
    .filter((holiday) => holiday.type === 'public')
    // `date` is the local day the holiday starts (`2027-03-26 00:00:00`), whatever zone the machine is in.
    .map((holiday) => ({ date: holiday.date.slice(0, 10), name: holiday.name }));
  if (byRegionYear.size >= 10_000) byRegionYear.clear();
  byRegionYear.set(key, found);
  return found;
}

/** The public holidays of `code` from `from` to `to` (inclusive days), by date. */
export function publicHolidays(code: string, from: string, to: string): PublicHoliday[] {
  const first = Number(from.slice(0, 4));
  const last = Number(to.slice(0, 4));
  const days: PublicHoliday[] = [];
  for (let year = first; year <= last; year++) {
    for (const holiday of holidaysOfYear(code, year)) if (holiday.date >= from && holiday.date <= to) days.push(holiday);
  }
  return days;
}
