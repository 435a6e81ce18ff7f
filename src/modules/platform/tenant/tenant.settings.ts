/**
 * A tenant's settings, declared once: each one's schema, their defaults, and
 * how every module reads them (`settingsFor`, in the caller's transaction;
 * `settingsOf`, of a tenant already read). A stored value that no longer
 * passes its schema reads as the default.
 */
import { z } from 'zod';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { Db, Tx } from '../../../db/client.js';
import type { Tenant } from '../../../generated/prisma/client.js';
import { dto, fields } from '../../../lib/dto.js';
import { enums } from '../../../lib/enums.js';
import { isHolidayRegion } from '../../../lib/holiday-regions.js';
import { defaultCurrency, isCurrencyCode } from '../../../lib/money.js';
import { isTimeZone } from '../../../lib/time.js';
import { standardWeek, type WeekMinutes, WeekMinutesDto } from '../../../lib/week.js';

const settingsFields = {
  timezone: z.string().refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').describe('IANA time zone'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR')
    .refine(isCurrencyCode, 'is not an ISO 4217 currency code in use')
    .describe("ISO 4217 currency code: of the tenant's own rates, and of clients created without one"),
  weekStart: enums.WeekStart.schema('First day of the week'),
  approvalRequired: z.boolean().describe('Entries must be submitted and approved (default true; false: submitting approves)'),
  lockedUntil: fields.date('Entries on or before this date are read-only').nullable(),
  preventOverlap: z.boolean().describe('Refuse overlapping entries of one member'),
  roundingMinutes: z
    .number()
    .int()
    .refine((value) => [0, 1, 5, 6, 10, 15, 30, 60].includes(value), 'must be one of 0, 1, 5, 6, 10, 15, 30, 60')
    .describe('Round durations to this many minutes (0: no rounding)'),
  defaultHourlyRate: fields
    .money("Billable rate per hour when no project member, project, client or member rate is set, in the tenant's currency", { min: 0, max: 1_000_000 })
    .nullable(),
  membersSeeRates: z.boolean().describe('Members see rates and amounts (default false: they read null)'),
  // Described by its DTO (a described copy would lose the name the GraphQL input type and OpenAPI schema take).
  defaultWorkSchedule: WeekMinutesDto,
  holidayRegion: z
    .string()
    .trim()
    .refine(isHolidayRegion, 'must be a holiday region of date-holidays such as DE, DE-BY or US-CA')
    .nullable()
    .describe('Public holidays of this region reduce expected time (a date-holidays code such as DE-BY); null: none'),
  balanceCapMinutes: z
    .number()
    .int('must be whole minutes')
    .min(0)
    .max(10 * 366 * 1440)
    .nullable()
    .describe('Time balances above this many minutes are flagged, and a member’s overtime account crossing it notifies them and the admins; null: no cap'),
  workingTimeRules: enums.WorkingTimeRuleSet.schema(
    'Working-time law the days are checked against: none, eu (Directive 2003/88/EC) or de (ArbZG); null: de when the holiday region is in DE, else eu',
  ).nullable(),
  deductStatutoryBreaks: z
    .boolean()
    .describe("A day's worked minutes lose what its breaks lack of the statutory minimum (balance, timesheets; never billable amounts)"),
};

export type WorkingTimeRuleSet = (typeof enums.WorkingTimeRuleSet.values)[number];

export type TenantSettings = {
  timezone: string;
  currency: string;
  weekStart: 'monday' | 'sunday' | 'saturday';
  approvalRequired: boolean;
  lockedUntil: string | null;
  preventOverlap: boolean;
  roundingMinutes: number;
  defaultHourlyRate: string | null;
  membersSeeRates: boolean;
  defaultWorkSchedule: WeekMinutes;
  holidayRegion: string | null;
  balanceCapMinutes: number | null;
  /** The rule set in effect: the chosen one, else the one the holiday region implies. */
  workingTimeRules: WorkingTimeRuleSet;
  deductStatutoryBreaks: boolean;
};

/** Settings as stored: a rule set the tenant never chose is null, so it keeps following the holiday region. */
export type StoredTenantSettings = Omit<TenantSettings, 'workingTimeRules'> & { workingTimeRules: WorkingTimeRuleSet | null };

/** CONTRACT.md section 11: `de` when the holiday region is in Germany, else `eu`. */
export const regionRuleSet = (holidayRegion: string | null): WorkingTimeRuleSet => (holidayRegion === 'DE' || holidayRegion?.startsWith('DE-') ? 'de' : 'eu');

export const defaultTenantSettings: TenantSettings = {
  timezone: 'UTC',
  currency: defaultCurrency,
  weekStart: 'monday',
  // The spec: "entries have an approval step". A tenant that does not review time turns it off.
  approvalRequired: true,
  lockedUntil: null,
  preventOverlap: false,
  roundingMinutes: 0,
  defaultHourlyRate: null,
  membersSeeRates: false,
  defaultWorkSchedule: standardWeek,
  holidayRegion: null,
  balanceCapMinutes: null,
  workingTimeRules: regionRuleSet(null),
  deductStatutoryBreaks: false,
};

export const TenantSettingsDto = dto(
  'TenantSettingsDto',
  'Tenant settings; fields left out keep their value.',
  Object.fromEntries(Object.entries(settingsFields).map(([key, schema]) => [key, schema.optional()])) as {
    [Key in keyof typeof settingsFields]: z.ZodOptional<(typeof settingsFields)[Key]>;
  },
);

/** Stored settings merged over the defaults; unknown or invalid stored keys fall back to the default. */
export function settingsOf(tenant: { readonly settings: unknown }): TenantSettings {
  const stored = (tenant.settings ?? {}) as Record<string, unknown>;
  const settings: Record<string, unknown> = { ...defaultTenantSettings };
  for (const [key, schema] of Object.entries(settingsFields)) {
    const parsed = schema.safeParse(stored[key]);
    if (parsed.success) settings[key] = parsed.data;
  }
  settings.workingTimeRules ??= regionRuleSet(settings.holidayRegion as string | null);
  return settings as TenantSettings;
}

/**
 * The tenant's time zone alone, as `settingsOf` reads it: what most reads need (a search's titles, a project's spent
 * period), without checking every other setting. The holiday region's check loads date-holidays, some 20 MB resident
 * and 5 MB of heap that an API process which never computes holidays would otherwise keep (docs/performance.md).
 */
export function timezoneOf(tenant: { readonly settings: unknown }): string {
  const parsed = settingsFields.timezone.safeParse(((tenant.settings ?? {}) as Record<string, unknown>).timezone);
  return parsed.success ? parsed.data : defaultTenantSettings.timezone;
}

/** The rule set a tenant chose (null: none chosen, the region decides). */
const chosenRuleSet = (tenant: Pick<Tenant, 'settings'> | null): WorkingTimeRuleSet | null => {
  const parsed = settingsFields.workingTimeRules.safeParse(((tenant?.settings ?? {}) as Record<string, unknown>).workingTimeRules);
  return parsed.success ? parsed.data : null;
};

/** What to store of `merged`: the rule set only when the input or the stored settings chose one. */
export function storedSettings(
  current: Pick<Tenant, 'settings'> | null,
  merged: Omit<TenantSettings, 'workingTimeRules'>,
  input: { workingTimeRules?: WorkingTimeRuleSet | null },
): StoredTenantSettings {
  return { ...merged, workingTimeRules: input.workingTimeRules !== undefined ? input.workingTimeRules : chosenRuleSet(current) };
}

/** The tenant's settings as they are now (read in `tx`, so a transaction sees its own changes). */
export async function settingsFor(tx: Tx | Db, access: TenantAccess): Promise<TenantSettings> {
  return settingsOf(await tx.tenant.findUniqueOrThrow({ where: access.scope('read', 'Tenant'), select: { settings: true } }));
}
