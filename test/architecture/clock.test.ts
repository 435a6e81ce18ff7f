/**
 * Rules read the injected clock (src/lib/clock.ts), never the system clock:
 * otherwise a test that pins the date (TEST_CLOCK) pins some rules and not
 * others, and the suite passes on some days of the year only. This reads
 * every source file under src/modules/ (unit tests aside) and the seed CLI
 * (src/cli/seed.ts and src/cli/seed/, which date their data back from today), and fails on a
 * read of the system clock:
 * - `new Date()` (or `new Date` without arguments) and `Date.now()`;
 * - SQL's clock: `now()`, `current_date`, `current_timestamp`,
 *   `localtimestamp`, `localtime`, `current_time`, `clock_timestamp()`,
 *   `statement_timestamp()`, `transaction_timestamp()`.
 * Durations measured with `performance.now()` are no reading of the date and
 * pass; so does `clock.now()`. Only the sites below may read the system
 * clock, each for a reason: none of them decides anything by the date.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourceFiles, withoutComments } from './sources.js';

const scanned = [path.resolve('src/modules'), path.resolve('src/cli/seed.ts'), path.resolve('src/cli/seed')];

/** Reads of the system clock that stay: the file (from src/), a piece of the flagged line, and why. */
const allowed: readonly { file: string; line: string; why: string }[] = [
  {
    file: 'modules/platform/webhook/webhook.delivery.ts',
    line: 'signedHeaders(request, new Date())',
    why:
      'The `webhook-timestamp` a delivery is signed with: the receiver checks it against its own clock (Standard ' +
      'Webhooks refuses one more than five minutes off), so it must be the real time, whatever a test pinned.',
  },
  {
    file: 'modules/platform/admin/admin.service.ts',
    line: 'const sessionsNow = new Date();',
    why: "Sign-in sessions are better-auth's: it stamps and checks their expiry by the system clock, so the count of live ones reads the same clock.",
  },
  {
    file: 'modules/insight/event/event.work.ts',
    line: 'async prune(log: Logger, now = new Date())',
    why:
      "An event's time is when the database committed its change (its `createdAt`, the envelope's `timestamp`: a record's " +
      "technical time, like a log line's); the retention that prunes old ones compares with the clock that stamped them.",
  },
  {
    file: 'modules/inbox/sync/sync.work.ts',
    line: '{ updatedAt: { lt: new Date(Date.now() - staleRunMs) } }',
    why:
      "A lease, not a rule: a run that has not touched its sync for 15 minutes died with its worker. It reads the row's " +
      'updatedAt, which Prisma stamps by the system clock, so it compares with that clock.',
  },
  ...(
    [
      ['modules/platform/note/note.service.ts', '$1, $2, $3, now(), now())'],
      ['modules/tracking/import/import.batch.ts', 'r.fingerprint, now()'],
      ['modules/tracking/import/import.work.ts', '"updatedAt" = now() WHERE id'],
    ] as const
  ).map(([file, line]) => ({
    file,
    line,
    why:
      'createdAt and updatedAt written in SQL beside the ones Prisma writes for the same tables by the system clock: a ' +
      "record's technical time, which no rule reads.",
  })),
];

interface Violation {
  file: string;
  line: number;
  rule: string;
  text: string;
}

const reads: readonly { rule: string; pattern: RegExp }[] = [
  { rule: 'new Date() reads the system clock', pattern: /\bnew\s+Date\b\s*(?:\(\s*\)|(?![\s(]))/g },
  { rule: 'Date.now() reads the system clock', pattern: /\bDate\s*\.\s*now\s*\(/g },
  // now() as a bare call, in SQL: clock.now() and performance.now() are methods, and pruneNow() another name.
  { rule: "SQL's now() reads the database's clock", pattern: /(?<![.\w$])now\s*\(\s*\)/gi },
  {
    rule: "SQL's clock (current_date, current_timestamp, ...) reads the database's clock",
    pattern: /\b(?:current_date|current_timestamp|current_time|localtimestamp|localtime|clock_timestamp|statement_timestamp|transaction_timestamp)\b/gi,
  },
];

/** Every read of the system clock in one file's text. */
function violationsIn(file: string, source: string): Violation[] {
  const text = withoutComments(source);
  const lines = source.split('\n');
  const lineOf = (position: number) => text.slice(0, position).split('\n').length;
  const found: Violation[] = [];
  for (const { rule, pattern } of reads) {
    for (const match of text.matchAll(pattern)) {
      const line = lineOf(match.index);
      found.push({ file, line, rule, text: (lines[line - 1] ?? '').trim() });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

const isAllowed = (violation: Violation) => allowed.some((entry) => entry.file === violation.file && violation.text.includes(entry.line));

function scan(): Violation[] {
  const root = path.resolve('src');
  return scanned
    .flatMap((entry) => sourceFiles(entry))
    .flatMap((file) => violationsIn(path.relative(root, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')));
}

describe('the clock rules read', () => {
  it('finds the reads of the system clock it checks, and nothing else', () => {
    const flagged = (source: string) => violationsIn('sample.ts', source).map((violation) => violation.rule);
    expect(flagged('const today = localDate(new Date(), settings.timezone);')).toEqual(['new Date() reads the system clock']);
    expect(flagged('const at = new Date;')).toEqual(['new Date() reads the system clock']);
    expect(flagged('if (startedAt.getTime() > Date.now() + skew) throw tooEarly;')).toEqual(['Date.now() reads the system clock']);
    expect(flagged('sql.query(`UPDATE api_keys SET "lastUsedAt" = now() WHERE id = $1`, [id])')).toEqual(["SQL's now() reads the database's clock"]);
    expect(flagged("sql.query('SELECT 1 FROM syncs WHERE \"lastSyncedAt\" <= NOW() - interval \\'1 minute\\'')")).toEqual([
      "SQL's now() reads the database's clock",
    ]);
    expect(flagged('`INSERT INTO absences ("startDate") SELECT current_date + 30`')).toEqual([
      "SQL's clock (current_date, current_timestamp, ...) reads the database's clock",
    ]);
    expect(flagged('`UPDATE t SET "at" = CURRENT_TIMESTAMP`')).toEqual(["SQL's clock (current_date, current_timestamp, ...) reads the database's clock"]);
    // The clock's readings, durations, dates made from their parts, and comments pass.
    expect(flagged('const now = clock.now(); const today = clock.today(zone);')).toEqual([]);
    expect(flagged('const started = performance.now(); pruneNow();')).toEqual([]);
    expect(flagged("new Date(Date.UTC(2027, 0, 2)); new Date('2027-01-02T00:00:00Z'); new Date(instant.getTime() + delay);")).toEqual([]);
    expect(flagged('// new Date() and now() in a comment\n/* Date.now() */ const currentDate = today;')).toEqual([]);
  });

  it('is not read from the system clock in src/modules/ and the seed, but at the explained sites', () => {
    expect(sourceFiles(scanned[0] as string).length).toBeGreaterThan(50);
    const violations = scan();
    expect(
      violations.filter((violation) => !isAllowed(violation)).map((violation) => `${violation.file}:${violation.line} ${violation.rule}: ${violation.text}`),
    ).toEqual([]);
    // An exception that no longer matches anything goes from the list.
    expect(allowed.filter((entry) => !violations.some((violation) => entry.file === violation.file && violation.text.includes(entry.line)))).toEqual([]);
  });
});
