/**
 * What every part of the seed shares: one seeded random source (the same options give the same data, so the
 * parts must draw from it in the same order every run: seed.ts calls them in one fixed order), ids that sort
 * like the rows' creation, the instant the data is dated back from, and the bulk insert by columns.
 */
import type { Sql } from '../../db/client.js';

export const dayMs = 24 * 60 * 60 * 1000;

/** A seeded generator, so that the same numbers give the same data. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** UUIDv7 for a given time: ids that sort like the rows' creation, as the application's do. */
export function uuidv7At(time: number, random: () => number): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(Math.max(0, Math.floor(time)), 0, 6);
  for (let index = 6; index < 16; index += 1) bytes[index] = Math.floor(random() * 256);
  bytes[6] = (bytes.readUInt8(6) & 0x0f) | 0x70;
  bytes[8] = (bytes.readUInt8(8) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The seed's random draws: a number in [0, 1), or one of `items`. */
export interface SeedRandom {
  random(): number;
  pick<T>(items: readonly T[]): T;
}

export function seedRandom(seed: number): SeedRandom {
  const random = randomSource(seed);
  return { random, pick: <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T };
}

/** One tenant being seeded: where to write, what to draw from, and when "now" is. */
export interface TenantSeed extends SeedRandom {
  sql: Sql;
  /** This run's tag, in slugs, e-mail addresses and licence plates: runs into one database do not collide. */
  run: string;
  tenantIndex: number;
  tenantId: string;
  instant: Date;
  /** `instant` in milliseconds. */
  now: number;
}

/** Appends one row to column arrays (what `unnest` takes), a value to each column. */
export function appendRow(columns: unknown[][], row: readonly unknown[]): void {
  if (row.length !== columns.length) throw new Error(`a row of ${row.length} values for ${columns.length} columns`);
  for (const [column, values] of columns.entries()) values.push(row[column]);
}

/** Inserts rows given column by column, `columns` naming each column and its SQL type. */
export async function insertColumns(sql: Sql, table: string, columns: [name: string, type: string][], values: unknown[][]): Promise<void> {
  const list = columns.map(([name]) => `"${name}"`).join(', ');
  const unnest = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  await sql.query(`INSERT INTO ${table} (${list}) SELECT * FROM unnest(${unnest})`, values);
}
