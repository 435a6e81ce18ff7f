/**
 * What the OpenAPI document (openapi.ts) says of failures: the RFC 9457 problem schema, the problem answers every
 * route may give and which of them each route gives, and each module's 409 with its conflict reasons.
 */
import { errorStatus, problemTypeOf, type ConflictVocabulary, type ErrorCode } from '../lib/errors.js';
import type { JsonSchema } from '../lib/dto.js';
import type { CompiledRoute } from './compile.js';
import { ref } from './openapi-schemas.js';

export const problemResponses = {
  BadRequest: ['The request is malformed or a field is invalid (VALIDATION_FAILED names each field)', ['BAD_REQUEST', 'VALIDATION_FAILED']],
  Unauthorized: ['No valid session and no valid API key', ['UNAUTHENTICATED']],
  Forbidden: ['Authenticated, but not allowed; or the tenant is suspended', ['FORBIDDEN', 'TENANT_SUSPENDED']],
  NotFound: ['No such resource in this tenant (another tenant\u2019s resources are reported as missing)', ['NOT_FOUND']],
  Conflict: ['The change conflicts with the current state', ['CONFLICT', 'INVALID_STATE']],
  PayloadTooLarge: ['The body is larger than its limit (1 MiB of JSON, 20 MiB of upload)', ['PAYLOAD_TOO_LARGE']],
  UnsupportedMediaType: ['The body is not of a type this operation takes', ['UNSUPPORTED_MEDIA_TYPE']],
  IdempotencyKeyReused: [
    'The Idempotency-Key was used before, within 24 hours, for another request (another method, path, query or body); use a new key',
    ['IDEMPOTENCY_KEY_REUSED'],
  ],
  TooManyRequests: [
    'Over the request budget (600 a minute per key or session, 30 a minute per address on sign-in); wait Retry-After seconds',
    ['RATE_LIMITED'],
  ],
  InternalError: ['Something failed on our side; quote the requestId (no internals are shown)', ['INTERNAL']],
  Unavailable: ['The database cannot be reached right now; retry shortly', ['UNAVAILABLE']],
} as const satisfies Record<string, readonly [string, readonly ErrorCode[]]>;

export type ProblemResponse = keyof typeof problemResponses;

export function problemSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'RFC 9457 problem details',
    required: ['type', 'title', 'status', 'detail', 'code'],
    properties: {
      type: { type: 'string', description: 'A URI naming the kind of problem', examples: [problemTypeOf('VALIDATION_FAILED')] },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string', description: 'What went wrong, for a human' },
      code: { type: 'string', enum: Object.keys(errorStatus) },
      reason: {
        type: 'string',
        description: "With a 409 (CONFLICT or INVALID_STATE): which conflict, stable and machine-readable; each operation's 409 lists its reasons",
        examples: ['TIMER_RUNNING'],
      },
      errors: {
        type: 'array',
        description: 'One entry per invalid field',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: { path: { type: 'string', examples: ['content'] }, message: { type: 'string' } },
        },
      },
      requestId: { type: 'string', description: 'Also in the x-request-id response header; quote it when reporting a problem' },
    },
  };
}

/** What any route may answer: the request budget, and our own failures. */
const alwaysPossible: readonly ProblemResponse[] = ['TooManyRequests', 'InternalError', 'Unavailable'];

/** Whether a route takes `Idempotency-Key`: every POST and PATCH of a caller (a public route may have none). */
export const takesIdempotencyKey = (route: CompiledRoute): boolean => (route.method === 'POST' || route.method === 'PATCH') && route.access.kind !== 'public';

/** The problems a route may answer; public routes document their own, and these. */
export function errorResponsesOf(route: CompiledRoute): readonly ProblemResponse[] {
  if (route.access.kind === 'public') {
    // Every row validates its path and query parameters, and a path with a NUL is found nowhere: a public row too,
    // unless it words those answers itself.
    const own = route.kind === 'native' ? route.responses : {};
    const hasParameter = route.segments.some((segment) => 'param' in segment);
    return [...(own['400'] ? [] : ['BadRequest' as const]), ...(hasParameter && !own['404'] ? ['NotFound' as const] : []), ...alwaysPossible];
  }
  const responses: ProblemResponse[] = ['BadRequest', 'Unauthorized'];
  if (route.access.kind === 'tenant' || route.access.kind === 'superadmin' || route.path.includes('{tenantId}')) responses.push('Forbidden');
  if (route.segments.some((segment) => 'param' in segment)) responses.push('NotFound');
  if (route.method !== 'GET' || (route.kind === 'native' && route.readConflicts)) responses.push('Conflict');
  if (route.body) responses.push('PayloadTooLarge', 'UnsupportedMediaType');
  if (takesIdempotencyKey(route)) responses.push('IdempotencyKeyReused');
  return [...responses, ...alwaysPossible];
}

export function errorResponses(route: CompiledRoute): Record<string, unknown> {
  return Object.fromEntries(
    errorResponsesOf(route).map((name) => [
      String(errorStatus[problemResponses[name][1][0]]),
      { $ref: `#/components/responses/${name === 'Conflict' ? conflictResponseName(route.conflicts) : name}` },
    ]),
  );
}

export const conflictResponseName = (conflicts: ConflictVocabulary): string => `${conflicts.subject}Conflict`;
export const conflictReasonName = (conflicts: ConflictVocabulary): string => `${conflicts.subject}ConflictReason`;

/** A module's conflict reasons as a schema: the enum, and what each means (also as x-enum-descriptions for generators). */
export function conflictReasonSchema(conflicts: ConflictVocabulary): JsonSchema {
  const reasons = Object.entries(conflicts.reasons);
  return {
    type: 'string',
    enum: reasons.map(([reason]) => reason),
    description: ['Which conflict:', ...reasons.map(([reason, { code, description }]) => `- \`${reason}\` (${code}): ${description}`)].join('\n'),
    'x-enum-descriptions': reasons.map(([, { description }]) => description),
  };
}

/** The 409 of a module's writes: a problem whose `reason` is one of the module's. */
export function conflictResponse(conflicts: ConflictVocabulary): Record<string, unknown> {
  return {
    description: `${problemResponses.Conflict[0]}; \`reason\` says which (${conflictReasonName(conflicts)})`,
    content: {
      'application/problem+json': {
        schema: { allOf: [ref('Problem'), { type: 'object', required: ['reason'], properties: { reason: ref(conflictReasonName(conflicts)) } }] },
      },
    },
  };
}

/** The shared problem answers as components, each but 409 (the modules' own, with their reasons: conflictResponse). */
export function problemResponseComponents(): Record<string, unknown> {
  return Object.fromEntries(
    // 409s are the modules' own (below), each with its reasons.
    Object.entries(problemResponses)
      .filter(([name]) => name !== 'Conflict')
      .map(([name, [description]]) => [
        name,
        {
          description,
          ...(name === 'TooManyRequests'
            ? { headers: { 'Retry-After': { description: 'Seconds until the budget allows a request again', schema: { type: 'integer' } } } }
            : {}),
          content: { 'application/problem+json': { schema: ref('Problem') } },
        },
      ]),
  );
}
