/**
 * Tenant scope comes from the access model (STYLE.md, "One home for each
 * rule"): a service reads and writes a tenant's records through its
 * TenantAccess (`scope`, `sqlScope`, `tenantWide`, `stamp`), never through a
 * `tenantId` condition of its own. So that a new one cannot slip in, this
 * reads every source file under src/modules/ (unit tests aside: they hold
 * fixtures, not queries) and fails on:
 * - `tenantId: access.tenantId`, the tenant spelled by hand;
 * - a Prisma `where` (or an object typed as one) that names `tenantId`
 *   itself, at any depth;
 * - raw SQL comparing a `"tenantId"` column: the access's `sqlScope` writes
 *   those predicates, in src/auth/.
 * Only the sites below may, each for a reason: they run where no access
 * exists and none can.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, withoutComments } from './sources.js';

const modulesRoot = path.resolve('src/modules');

/** Sites that may name the tenant themselves: the file under src/modules/, a piece of the flagged line, and why. */
const allowed: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'platform/webhook/webhook.work.ts',
    line: 'where: { tenantId: { in: tenants }, enabled: true }',
    why:
      "The outbox dispatcher's fan-out: one statement reads the subscriptions of every tenant whose events a batch " +
      'committed. It has no caller, and an access per tenant would cost a read of each tenant per batch, for a filter ' +
      'that only repeats the tenant ids the events carry.',
  },
  {
    file: 'platform/notification/notification.work.ts',
    line: '({ tenantId: tenant, role: { in: [...roles] }',
    why: "The same fan-out for notifications: the members a batch's events address by role, in each of the batch's " + 'tenants, in one statement.',
  },
  {
    file: 'billing/payment-reminder/payment-reminder.work.ts',
    line: 'LEFT JOIN billing_profiles p ON p."tenantId" = i."tenantId"',
    why:
      "The daily reminder sweep: one statement finds every tenant's overdue invoices with their own tenant's reminder " +
      'levels. It has no caller; the join pairs each invoice with its own profile and filters nothing by tenant.',
  },
  {
    file: 'time/holiday/holiday.service.ts',
    line: '{ id: null, tenantId: access.tenantId, ...holiday',
    why:
      'No condition and no record: a public holiday is computed from the region (date-holidays), and the view of it ' +
      "names the tenant whose holidays are read, as a holiday of the tenant's own does. stamp() is for new records.",
  },
];

interface Violation {
  file: string;
  line: number;
  rule: string;
  text: string;
}

/** The object literal whose `{` is at `open`: up to its matching `}` (quotes and template strings are skipped whole). */
function objectAt(text: string, open: number): string {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    const char = text[index];
    if (char === "'" || char === '"' || char === '`') {
      const close = text.indexOf(char, index + 1);
      index = close === -1 ? text.length : close;
    } else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(open, index + 1);
    }
  }
  return text.slice(open);
}

/** Where an object literal opens as a Prisma where: `where: {`, `where = {`, `...WhereInput = {`, `...WhereInput => ({`. */
const whereOpenings = [/\bwhere\s*[:=]\s*\{/g, /WhereInput\s*=\s*\{/g, /WhereInput\s*=>\s*\(\s*\{/g];
/** `tenantId` as a key of an object (`tenantId: x`, or shorthand `{ tenantId,` / `, tenantId }`); not a value (`id: tenantId`), not `tenantId_email`. */
const tenantKey = /(?<=[{,]\s*)tenantId\s*(?=[:,}])/g;
const byHand = /\btenantId\s*:\s*access\.tenantId\b/g;
/** A raw statement comparing the tenant column: `"tenantId" = $1`, `e."tenantId" = ANY(...)`, `"tenantId" IN (...)`. */
const rawTenantCondition = /"tenantId"\s*(?:=|<>|!=|\bIN\s*\()/gi;

/** Every hand-written tenant condition in one file's text. */
function violationsIn(file: string, source: string): Violation[] {
  const text = withoutComments(source);
  const lines = source.split('\n');
  const lineOf = (position: number) => text.slice(0, position).split('\n').length;
  const found = new Map<string, Violation>();
  const add = (rule: string, position: number) => {
    const line = lineOf(position);
    found.set(`${line} ${rule}`, { file, line, rule, text: (lines[line - 1] ?? '').trim() });
  };
  for (const match of text.matchAll(byHand)) add('the tenant spelled by hand (tenantId: access.tenantId)', match.index);
  for (const opening of whereOpenings) {
    for (const match of text.matchAll(opening)) {
      const open = match.index + match[0].lastIndexOf('{');
      for (const key of objectAt(text, open).matchAll(tenantKey)) add('a Prisma where naming tenantId', open + key.index);
    }
  }
  for (const match of text.matchAll(rawTenantCondition)) add('raw SQL comparing "tenantId" outside sqlScope', match.index);
  return [...found.values()].sort((a, b) => a.line - b.line);
}

const isAllowed = (violation: Violation) => allowed.some((entry) => entry.file === violation.file && violation.text.includes(entry.line));

function scan(): Violation[] {
  return sourceFiles(modulesRoot).flatMap((file) => violationsIn(path.relative(modulesRoot, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')));
}

describe('tenant scope in src/modules/', () => {
  it('finds the hand-written tenant conditions it checks, and nothing the access model writes', () => {
    const flagged = (source: string) => violationsIn('sample.ts', source).map((violation) => violation.rule);
    expect(flagged('db.note.findFirst({ where: { id, tenantId: access.tenantId } })')).toEqual([
      'the tenant spelled by hand (tenantId: access.tenantId)',
      'a Prisma where naming tenantId',
    ]);
    expect(flagged('tx.note.create({ data: { ...data, tenantId: access.tenantId } })')).toEqual(['the tenant spelled by hand (tenantId: access.tenantId)']);
    expect(flagged('tx.client.findFirst({ where: { tenantId, name } })')).toEqual(['a Prisma where naming tenantId']);
    expect(flagged('tx.client.count({ where: { name, tenantId } })')).toEqual(['a Prisma where naming tenantId']);
    expect(flagged('tx.entry.findMany({\n  where: {\n    project: { clientId, tenantId: other },\n  },\n})')).toEqual(['a Prisma where naming tenantId']);
    expect(flagged('tx.tenantUser.findUnique({ where: { tenantId_email: { tenantId: t, email } } })')).toEqual(['a Prisma where naming tenantId']);
    expect(flagged("const whereOf = (t: string): Prisma.TaskWhereInput => ({ tenantId: t, status: 'open' });")).toEqual(['a Prisma where naming tenantId']);
    expect(flagged('sql.query(`SELECT * FROM notes WHERE id = $1 AND "tenantId" = $2`, [id, tenant])')).toEqual([
      'raw SQL comparing "tenantId" outside sqlScope',
    ]);
    expect(flagged(`tx.$queryRawUnsafe('SELECT 1 FROM entries e WHERE e."tenantId" IN ($1, $2)', one, two)`)).toEqual([
      'raw SQL comparing "tenantId" outside sqlScope',
    ]);
    // What the access model writes, and what merely mentions the tenant, passes.
    expect(flagged("db.note.findFirst({ where: { id, ...access.scope('read', 'Note') } })")).toEqual([]);
    expect(flagged("tx.client.create({ data: access.stamp({ name }) }); tx.client.findMany({ where: { name, ...access.tenantWide('Client') } })")).toEqual([]);
    expect(flagged('db.apiKey.findUnique({ where: { id }, select: { id: true, tenantId: true } })')).toEqual([]);
    expect(flagged('db.tenant.update({ where: { id: tenantId }, data: { status } })')).toEqual([]);
    expect(flagged('`SELECT k.id, k."tenantId" FROM api_keys k JOIN tenants t ON t.id = k."tenantId"`')).toEqual([]);
    expect(flagged("// where: { tenantId: access.tenantId }\n/* \"tenantId\" = $1 */ const where = { ...access.scope('read', 'Entry') };")).toEqual([]);
  });

  it('has no tenant condition outside the access model, but the explained exceptions', () => {
    const files = sourceFiles(modulesRoot);
    expect(files.length).toBeGreaterThan(50);
    const violations = scan();
    expect(
      violations.filter((violation) => !isAllowed(violation)).map((violation) => `${violation.file}:${violation.line} ${violation.rule}: ${violation.text}`),
    ).toEqual([]);
    // An exception that no longer matches anything goes from the list.
    expect(allowed.filter((entry) => !violations.some((violation) => entry.file === violation.file && violation.text.includes(entry.line)))).toEqual([]);
  });
});
