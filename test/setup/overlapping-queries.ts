/**
 * Fails the test during which queries overlap on one PostgreSQL connection:
 * a query sent while the connection still runs another (usually a
 * `Promise.all` over one transaction's client). pg 8 queues it and warns
 * ("Calling client.query() when the client is already executing a query is
 * deprecated"), pg 9 refuses it (issue 38).
 *
 * pg warns only from the third query at once and once a process, so the
 * second query of an overlap is caught here too, where it is sent: the
 * stack is that of the `client.query()` call that overlapped.
 */
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';

const warningText = 'Calling client.query() when the client is already executing a query';

let seen: Error | undefined;

process.on('warning', (warning) => {
  if (warning.name === 'DeprecationWarning' && warning.message.includes(warningText)) seen ??= warning;
});

/** pg's own bookkeeping of a connection's queries (not its deprecated `activeQuery` getters). */
interface QueryState {
  _activeQuery?: { text?: string } | null;
  _queryQueue?: { text?: string }[];
}

/** The statement a `client.query()` call sends, as text, shortened for the message. */
function statementOf(query: unknown): string {
  const text = typeof query === 'string' ? query : ((query as { text?: string } | undefined)?.text ?? '?');
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function overlapChecked(this: pg.Client, ...args: unknown[]): unknown {
  const state = this as unknown as QueryState;
  if (state._activeQuery || (state._queryQueue?.length ?? 0) > 0) {
    const running = state._activeQuery ?? state._queryQueue?.[0];
    seen ??= new Error(`${warningText}: sent ${statementOf(args[0])}\n  while the connection ran ${statementOf(running)}`);
  }
  return (query as (...args: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

function failOnOverlap(): void {
  const overlap = seen;
  if (!overlap) return;
  seen = undefined;
  throw new Error(`pg: queries overlapped on one connection; run them one after another\n${overlap.stack ?? overlap.message}`);
}

afterEach(failOnOverlap);
afterAll(failOnOverlap);
