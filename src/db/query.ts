/**
 * The include/select that Pothos computes from a GraphQL selection. Services
 * spread it into their Prisma reads, so one query loads what a response needs
 * (no N+1); outside GraphQL it is simply empty.
 */
export interface PrismaQuery<Include, Select> {
  include?: Include;
  select?: Select;
}

/** What Pothos hands a Relay connection: the selection plus its window. */
export interface PrismaPageQuery<Include, WhereUnique> {
  include?: Include;
  cursor?: WhereUnique;
  take: number;
  skip: number;
}

/** True when the caller asked for a shape other than the plain row. */
export function shapesResult(query: PrismaQuery<unknown, unknown>): boolean {
  return query.include !== undefined || query.select !== undefined;
}
