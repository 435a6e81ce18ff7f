/**
 * Which source answers a summary (report.sql.ts): the member and tag totals (their week rows with day rows at
 * the ends, or their day rows alone) for summaries by member or by tag that ask nothing they lack, the entries
 * for everything else. That every source gives the same numbers is
 * test/report-day-totals.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { systemActor } from '../../../auth/actor.js';
import { memberAccess, systemAccess, type TenantRecord } from '../../../auth/tenant-access.js';
import { settingsOf } from '../../platform/tenant/tenant.settings.js';
import type { ReportDimension, ReportFilter } from './report.contract.js';
import { summarySourceOf } from './report.sql.js';

const tenant: TenantRecord = { id: 't-1', name: 'Tenant', slug: 'tenant', status: 'active', settings: { timezone: 'Europe/Berlin' } };
const settings = settingsOf(tenant);
const admin = systemAccess(tenant, systemActor('test'));
const member = memberAccess(tenant, systemActor('test'), { id: 'm-1', role: 'member' });

/** Wednesday to Wednesday: whole weeks inside, days at both ends. */
const year = { from: '2025-12-03', to: '2026-12-02' };
const sourceOf = (dimensions: ReportDimension[], filter: ReportFilter = {}, { access = admin, timezone = settings.timezone, period = year } = {}) =>
  summarySourceOf(access, { ...period, timezone, settings, fromInstant: new Date(0), toInstant: new Date(0) }, dimensions, filter).name;

describe('the source of a summary by member or by tag', () => {
  it('is the member totals by member, alone or with a week, a billable flag or a status, and for one member', () => {
    expect(sourceOf(['user'])).toBe('memberWeekTotals');
    expect(sourceOf(['user', 'week'])).toBe('memberWeekTotals');
    expect(sourceOf(['week', 'user'])).toBe('memberWeekTotals');
    expect(sourceOf(['billable', 'user'], { status: 'approved', billable: true })).toBe('memberWeekTotals');
    expect(sourceOf(['status'], { tenantUserId: 'm-2' })).toBe('memberWeekTotals');
  });

  it('is the tag totals by tag, and the week totals for a tag report without a tag (its totals)', () => {
    expect(sourceOf(['tag'])).toBe('tagWeekTotals');
    expect(sourceOf(['tag', 'status'], { billable: false })).toBe('tagWeekTotals');
    expect(sourceOf(['week', 'tag'])).toBe('tagWeekTotals');
    expect(sourceOf([])).toBe('weekTotals');
  });

  it('is their day rows alone by day or month, and over a period without a whole week', () => {
    expect(sourceOf(['user', 'day'])).toBe('memberDayTotals');
    expect(sourceOf(['month', 'user'], { billable: true })).toBe('memberDayTotals');
    expect(sourceOf(['tag', 'month'])).toBe('tagDayTotals');
    expect(sourceOf(['day'], { tenantUserId: 'm-2' })).toBe('memberDayTotals');
    expect(sourceOf(['tag'], {}, { period: { from: '2026-03-04', to: '2026-03-10' } })).toBe('tagDayTotals');
    expect(sourceOf(['user'], {}, { period: { from: '2026-03-04', to: '2026-03-04' } })).toBe('memberDayTotals');
  });

  it('is the entries for what the totals do not hold', () => {
    const cases: [ReportDimension[], ReportFilter][] = [
      [['user', 'project'], {}],
      [['user', 'client'], {}],
      [['tag', 'task'], {}],
      [['user', 'tag'], {}],
      [['tag'], { tenantUserId: 'm-2' }],
      [['user'], { projectId: 'p-1' }],
      [['tag'], { clientId: 'c-1' }],
      [['user'], { taskId: 'k-1' }],
      [['user'], { tag: 'dev' }],
      [['tag'], { invoiced: true }],
    ];
    for (const [dimensions, filter] of cases) expect(sourceOf(dimensions, filter), JSON.stringify([dimensions, filter])).toBe('entries');
    // Another time zone, a caller who reads only their own entries.
    expect(sourceOf(['user'], {}, { timezone: 'UTC' })).toBe('entries');
    expect(sourceOf(['tag'], {}, { access: member })).toBe('entries');
  });
});
