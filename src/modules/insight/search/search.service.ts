import { z } from 'zod';
import type { Subject } from '../../../auth/permissions.js';
import type { TenantAccess } from '../../../auth/tenant-access.js';
import type { ServiceDependencies } from '../../module.js';
import { Parameters } from '../../../db/parameters.js';
import { args, fields } from '../../../lib/dto.js';
import { defineEnum } from '../../../lib/vocabulary.js';
import { timezoneOf } from '../../platform/tenant/tenant.settings.js';

export const searchTypes = ['entries', 'invoices', 'projects', 'clients', 'clientInvoices'] as const;
export type SearchType = (typeof searchTypes)[number];
export const searchType = defineEnum('SearchType', searchTypes, 'What a search result is');

export const SearchArgs = args({
  tenantId: fields.id('Tenant id'),
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(1000)
    .describe('Words to find; "quoted phrases", or, and -excluded words work as on web search engines; the last word also matches as a prefix'),
  types: z
    .array(searchType.schema())
    .min(1)
    .default([...searchTypes])
    .describe('What to search: entries, invoices, projects, clients, clientInvoices (comma-separated); default all'),
  limit: z.number().int().min(1).max(50).default(20).describe('Results, 1 to 50'),
});

export interface SearchResult {
  type: SearchType;
  id: string;
  title: string;
  /** The matching passage, HTML-escaped, with each match in <mark></mark>. */
  snippet: string;
  rank: number;
}

/** How many of the newest matches of each type are ranked: a word in half of all rows need not rank them all. */
const candidatesPerType = 2000;

/** Markers ts_headline wraps matches in: control characters, which no stored text keeps. */
const open = '\u0001';
const close = '\u0002';

const escapeHtml = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');

/** The headline as HTML: everything escaped, the matches marked. */
export function snippetHtml(headline: string): string {
  return escapeHtml(headline).replaceAll(open, '<mark>').replaceAll(close, '</mark>');
}

/**
 * The query: PostgreSQL's web-search syntax, or the same words with the last
 * one taken as a prefix (so that "meet" finds "meeting" while typing).
 */
export function prefixParts(q: string): { rest: string; last: string } | undefined {
  const match = /^(.*?)([\p{L}\p{N}]+)$/u.exec(q.trim());
  if (!match) return undefined;
  const rest = match[1] as string;
  // A word inside an unclosed quote or right after a minus is not a prefix to widen.
  if ((rest.match(/"/g)?.length ?? 0) % 2 === 1 || /-$/.test(rest)) return undefined;
  return { rest, last: (match[2] as string).toLowerCase() };
}

interface Document {
  type: SearchType;
  /** FROM and WHERE of the rows the caller may read (adds its parameters when called). */
  from(): string;
  /** The title shown (adds its parameters when called, as `from`). */
  title(): string;
  text: string;
  newest: string;
}

/** The subject whose read permission decides which rows of a type a caller finds. */
const subjectOf = {
  entries: 'Entry',
  invoices: 'Invoice',
  projects: 'Project',
  clients: 'Client',
  clientInvoices: 'ClientInvoice',
} as const satisfies Record<SearchType, Subject>;

/** What each type searches, over `t`, limited to the rows the caller may read (TenantAccess decides, as everywhere). */
function documentsFor(access: TenantAccess, parameters: Parameters): Record<SearchType, Document> {
  // Every parameter must appear in the statement, so each type binds its own only when it is wanted (`from` is called).
  const readable = (type: SearchType): string => access.sqlScope('read', subjectOf[type], 't', parameters.add);
  return {
    entries: {
      type: 'entries',
      from: () => `entries t WHERE ${readable('entries')}`,
      // The day the entry started, as the tenant counts days.
      title: () => {
        const zone = parameters.add(timezoneOf(access.tenant));
        return `left(coalesce(nullif(t.description, ''), 'Entry of ' || to_char(t."startedAt" AT TIME ZONE ${zone}::text, 'YYYY-MM-DD')), 120)`;
      },
      text: `coalesce(t.description, '') || ' ' || tally_words(t.tags)`,
      newest: 't."startedAt" DESC, t.id DESC',
    },
    invoices: {
      type: 'invoices',
      from: () => `invoices t WHERE ${readable('invoices')}`,
      title: () => `left(coalesce(t.number, t."vendorName", 'Invoice'), 120)`,
      text: `concat_ws(' ', t.number, t."vendorName", t."ocrText")`,
      newest: 't."createdAt" DESC, t.id DESC',
    },
    projects: {
      type: 'projects',
      from: () => `projects t WHERE ${readable('projects')}`,
      title: () => `left(t.name || coalesce(' (' || t.code || ')', ''), 120)`,
      text: `concat_ws(' ', t.name, t.code, t.description)`,
      newest: 't."createdAt" DESC, t.id DESC',
    },
    clients: {
      type: 'clients',
      from: () => `clients t WHERE ${readable('clients')}`,
      title: () => 'left(t.name, 120)',
      // Names only: what else a client holds is not for every reader.
      text: 't.name',
      newest: 't."createdAt" DESC, t.id DESC',
    },
    // What a tenant bills: by number and by the client it was made out to.
    clientInvoices: {
      type: 'clientInvoices',
      from: () => `client_invoices t WHERE ${readable('clientInvoices')}`,
      title: () => `left(coalesce(t.number, 'Draft') || ' ' || t."clientName", 120)`,
      text: `concat_ws(' ', t.number, t."clientName")`,
      newest: 't."createdAt" DESC, t.id DESC',
    },
  };
}

/**
 * Full-text search over entries, invoices, projects, client names and client invoices (number, client), limited to what the
 * caller may read: members find their own entries and invoices. Ranked by
 * relevance (ts_rank_cd) among the newest matches of each type.
 */
export function createSearchService({ reads }: Pick<ServiceDependencies, 'reads'>) {
  return {
    /** Ranked matches of `q` in the tenant, with an HTML snippet each. */
    async search(access: TenantAccess, { q, types, limit }: z.output<typeof SearchArgs>): Promise<SearchResult[]> {
      access.assert('read', 'Search');
      const wanted = types.filter((type) => access.can('read', subjectOf[type]));
      if (wanted.length === 0) return [];
      const parameters = new Parameters();
      const documents = documentsFor(access, parameters);
      const prefix = prefixParts(q);
      const words = `websearch_to_tsquery('simple', ${parameters.add(q)})`;
      const tsquery = prefix
        ? `(${words} || (websearch_to_tsquery('simple', ${parameters.add(prefix.rest)}) && to_tsquery('simple', ${parameters.add(prefix.last)} || ':*')))`
        : words;
      const limitParameter = parameters.add(limit);
      const ranked = wanted.map((type) => {
        const document = documents[type];
        // The query is written out here, not read from the CTE: with its value in sight the planner knows how
        // common the words are, and for a common one walks the newest rows by index until it has enough instead of
        // sorting every match (figures: docs/performance.md).
        return `(SELECT '${document.type}'::text AS type, t.id, ${document.title()} AS title, ${document.text} AS text,
                        ts_rank_cd(t."searchVector", ${tsquery}) AS rank
                   FROM ${document.from()} AND t."searchVector" @@ ${tsquery}
                  ORDER BY ${document.newest} LIMIT ${candidatesPerType})`;
      });
      const statement = `
        WITH query AS (SELECT ${tsquery} AS q),
             found AS (SELECT * FROM (${ranked.join(' UNION ALL ')}) candidates ORDER BY rank DESC, id DESC LIMIT ${limitParameter})
        SELECT found.type, found.id, found.title, found.rank,
               ts_headline('simple', translate(found.text, E'\\x01\\x02', ''), query.q,
                           'StartSel=' || E'\\x01' || ', StopSel=' || E'\\x02' || ', MaxWords=30, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "') AS snippet
          FROM found, query
         ORDER BY found.rank DESC, found.id DESC`;
      // A search tolerates a little lag: a replica answers it (src/db/replicas.ts).
      const rows = await reads.run(access, ({ sql }) =>
        sql.query<{ type: SearchType; id: string; title: string; rank: number; snippet: string }>(statement, parameters.values),
      );
      return rows.map((row) => ({ ...row, snippet: snippetHtml(row.snippet), rank: Number(row.rank) }));
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
