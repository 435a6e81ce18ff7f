/**
 * Every answer the integration tests get through `apiClient` is checked
 * against the OpenAPI document (schema/openapi.json, which a test keeps equal
 * to /docs-json): the operation must exist, the status must be documented,
 * and a JSON or problem body must match its schema (ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses it). A drift between the answers and the
 * document fails the test that saw it.
 *
 * Money too (CONTRACT.md section 11): every string the document marks as
 * money (`x-money`, src/rest/openapi.ts) has exactly its currency's minor
 * units (a price at least them), the currency being the `currency` of its
 * object or of the nearest object holding it (2 decimals when that is null);
 * every `x-decimals` string has exactly that many.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { decimalsOf, minorUnitsOf } from '../../src/lib/money.js';

interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: object }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; responses: Record<string, { content?: Record<string, { schema: object }> }> };
}

const document = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../schema/openapi.json'), 'utf8')) as Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

/** The money strings of the answer being checked, where they are (a JSON pointer into it). */
let moneySeen: { pointer: string; text: string; exact: boolean }[] = [];
ajv.addKeyword({
  keyword: 'x-money',
  type: 'string',
  schemaType: 'string',
  validate: (mode: string, text: string, _schema?: unknown, data?: { instancePath: string }) => {
    moneySeen.push({ pointer: data?.instancePath ?? '', text, exact: mode === 'exact' });
    return true;
  },
});
ajv.addKeyword({
  keyword: 'x-decimals',
  type: 'string',
  schemaType: 'number',
  error: { message: (context) => `must have exactly ${String(context.schema)} decimals` },
  validate: (digits: number, text: string) => decimalsOf(text) === digits,
});
ajv.addSchema({ $id: 'tally', components: document.components });

/** The currency of the value at `pointer` in `body`: the nearest `currency` key of the objects that hold it. */
function currencyAt(body: unknown, pointer: string): { found: boolean; currency: string | null } {
  const path = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const holders: unknown[] = [body];
  let node = body;
  for (const part of path.slice(0, -1)) {
    node = (node as Record<string, unknown>)[part];
    holders.push(node);
  }
  for (const holder of holders.reverse()) {
    if (holder !== null && typeof holder === 'object' && !Array.isArray(holder) && 'currency' in holder) {
      return { found: true, currency: (holder as { currency: string | null }).currency };
    }
  }
  return { found: false, currency: null };
}

/** Why a money string of `body` (as the last validation saw them) does not have its currency's decimals, or undefined. */
function moneyProblem(body: unknown): string | undefined {
  for (const { pointer, text, exact } of moneySeen) {
    const { found, currency } = currencyAt(body, pointer);
    if (!found) return `money at ${pointer || '(body)'} ("${text}") has no currency in any object that holds it`;
    const digits = minorUnitsOf(currency);
    const decimals = decimalsOf(text);
    if (exact ? decimals !== digits : decimals < digits) {
      return `money at ${pointer} is "${text}": ${currency ?? 'without a currency'} has ${digits} decimals`;
    }
  }
  return undefined;
}

/** Path templates as patterns, literal segments first so that `/invoices/upload` beats `/invoices/{invoiceId}`. */
const templates = Object.keys(document.paths)
  .map((template) => ({
    template,
    // Templates hold only letters, '/', '-' and `{param}`: each parameter matches one segment.
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    literals: template.split('/').filter((part) => part && !part.startsWith('{')).length,
  }))
  .sort((a, b) => b.literals - a.literals);

const validators = new Map<string, ValidateFunction>();

function validatorFor(key: string, schema: object): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    // References point into the document registered as `tally`.
    const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"tally#/components/')) as object;
    validate = ajv.compile(rewritten);
    validators.set(key, validate);
  }
  return validate;
}

/** Why this answer does not match the document, or undefined when it does. */
export function contractProblem(method: string, url: URL, status: number, contentType: string | null, body: unknown): string | undefined {
  if (url.pathname === '/graphql' || url.pathname.startsWith('/docs') || url.pathname === '/health' || url.pathname === '/metrics') return undefined;
  const found = templates.find(({ pattern }) => pattern.test(url.pathname));
  const operation = found ? document.paths[found.template]?.[method.toLowerCase()] : undefined;
  if (!found || !operation) {
    // Paths and methods the document does not have: 404 and 405 are what it promises for them.
    // 401 too: without credentials, an unknown path answers as a known one would (routes cannot be probed).
    return status === 401 || status === 404 || status === 405 ? undefined : `${method} ${url.pathname} is not in the document, yet answered ${status}`;
  }
  const label = `${method} ${found.template} ${status}`;
  let response = operation.responses[String(status)];
  if (!response) return `${label}: the status is not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
  if (response.$ref) response = document.components.responses[response.$ref.split('/').at(-1) as string] ?? {};
  const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
  if (!response.content || status === 204 || status === 304) return undefined;
  const media = response.content[mediaType];
  if (!media) return `${label}: answered ${mediaType || 'no content type'}, documented ${Object.keys(response.content).join(', ')}`;
  if (!mediaType.includes('json')) return undefined;
  const validate = validatorFor(`${label} ${mediaType}`, media.schema);
  moneySeen = [];
  if (!validate(body)) return `${label}: the body does not match the document: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  const money = moneyProblem(body);
  return money ? `${label}: ${money}` : undefined;
}
