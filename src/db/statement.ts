import pg from 'pg';

/**
 * Runs one statement on a connection of its own, for what cannot run through
 * the pool (CREATE DATABASE, DROP DATABASE, advisory checks at start).
 */
export async function runStatement(connection: string | pg.ClientConfig, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : connection);
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}
