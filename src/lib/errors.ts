/**
 * The one error vocabulary of the service. Services throw AppError; the
 * GraphQL layer puts `code` into `extensions`, the REST layer renders RFC 9457
 * problem+json with the same `code` (README, "Using the API"). Anything else
 * is an internal error and is never shown to the caller.
 */

export const errorStatus = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  TENANT_SUSPENDED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  INVALID_STATE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

const errorTitles: Record<ErrorCode, string> = {
  BAD_REQUEST: 'Bad request',
  VALIDATION_FAILED: 'Validation failed',
  UNAUTHENTICATED: 'Authentication required',
  FORBIDDEN: 'Forbidden',
  TENANT_SUSPENDED: 'Tenant suspended',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  REQUEST_TIMEOUT: 'Request timeout',
  CONFLICT: 'Conflict',
  INVALID_STATE: 'Invalid state',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused',
  RATE_LIMITED: 'Too many requests',
  INTERNAL: 'Internal server error',
  UNAVAILABLE: 'Service unavailable',
};

/** One invalid input field: `path` is dotted (`settings.timezone`, `tags.2`). */
export interface FieldError {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The codes of a 409: each comes with a `reason` that says which conflict (see `conflictReasons`). */
export type ConflictCode = 'CONFLICT' | 'INVALID_STATE';

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  /** With a 409: which conflict, machine-readable and stable (`TIMER_RUNNING`); clients branch on it, not on the prose. */
  readonly reason: string | undefined;

  /** A 409 names its reason: make it with a module's `conflictReasons(...).refuse`. */
  constructor(code: ConflictCode, detail: string, options: AppErrorOptions & { reason: string });
  constructor(code: Exclude<ErrorCode, ConflictCode>, detail: string, options?: AppErrorOptions);
  constructor(code: ErrorCode, detail: string, options: AppErrorOptions & { reason?: string } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = errorStatus[code];
    this.errors = options.errors;
    this.headers = options.headers;
    this.reason = options.reason;
  }
}

/** What a conflict reason means, and the code it is answered with. */
export interface ConflictReason {
  code: ConflictCode;
  description: string;
}

/**
 * Conflicts any write may meet, whatever its module: the database's own
 * unique and foreign-key checks, when a concurrent write got there between
 * our check and our insert; its refusal to change or delete an issued
 * document (a cascade reaches them from other records); and a POST or PATCH whose Idempotency-Key is
 * still in use by the same request (src/request/idempotency.ts).
 */
export const commonConflicts = {
  ALREADY_EXISTS: { code: 'CONFLICT', description: 'A record with these values already exists (a concurrent write took them first)' },
  STILL_REFERENCED: { code: 'CONFLICT', description: 'The record is still referenced by other records' },
  RECORD_RETAINED: {
    code: 'INVALID_STATE',
    description: 'The database keeps an issued invoice or credit note unchanged until 8 years after the end of its issue year (GoBD, UStG § 14b)',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    code: 'CONFLICT',
    description: 'A request with the same Idempotency-Key is still running; retry after Retry-After seconds for its answer',
  },
} as const satisfies Record<string, ConflictReason>;

/** A module's conflict vocabulary: the OpenAPI documents it, and its routes' 409s use nothing else. */
export interface ConflictVocabulary<Reason extends string = string> {
  /** Whose conflicts these are (`Entry`): the OpenAPI names the reasons `EntryConflictReason` and the 409 `EntryConflict`. */
  subject: string;
  /** The module's reasons and the common ones, each with its code and meaning. */
  reasons: Readonly<Record<Reason | keyof typeof commonConflicts, ConflictReason>>;
  /** The 409 for `reason`, with the code the reason is declared with. */
  refuse(reason: Reason, detail: string, options?: AppErrorOptions): AppError;
}

/**
 * Declares a module's conflicts: `const entryConflicts = conflictReasons('Entry', { TIMER_RUNNING: {...} })`,
 * then `throw entryConflicts.refuse('TIMER_RUNNING', 'A timer is already running ...')`.
 */
export function conflictReasons<const Reason extends string>(subject: string, reasons: Record<Reason, ConflictReason>): ConflictVocabulary<Reason> {
  return {
    subject,
    reasons: { ...reasons, ...commonConflicts },
    refuse: (reason, detail, options = {}) => new AppError(reasons[reason].code, detail, { ...options, reason }),
  };
}

/** The conflicts of a module that declares none of its own: the common ones. */
export const commonConflictVocabulary: ConflictVocabulary<never> = conflictReasons('Common', {});

/** The 409 for one of the common reasons (the database's own checks). */
export const commonConflict = (reason: keyof typeof commonConflicts, detail: string, options: AppErrorOptions = {}): AppError =>
  new AppError(commonConflicts[reason].code, detail, { ...options, reason });

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && Object.hasOwn(errorStatus, value);

/** Shorthands for the errors services throw most. */
export const notFound = (resource: string, id?: string): AppError =>
  new AppError('NOT_FOUND', id === undefined ? `${resource} not found` : `${resource} ${id} not found`);

export const forbidden = (detail = 'You do not have permission to do this'): AppError => new AppError('FORBIDDEN', detail);

export const unauthenticated = (detail = 'A valid session or API key is required'): AppError =>
  new AppError('UNAUTHENTICATED', detail, { headers: { 'www-authenticate': 'Bearer' } });

export const validationFailed = (errors: FieldError[], detail?: string): AppError =>
  new AppError('VALIDATION_FAILED', detail ?? (errors.length === 1 && errors[0] ? `${errors[0].path}: ${errors[0].message}` : 'The input is not valid'), {
    errors,
  });

/** RFC 9457 problem details, with our `code`, field `errors` and `requestId`. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  /** With a 409: which conflict. */
  reason?: string;
  errors?: FieldError[];
  requestId?: string;
}

export function problemTypeOf(code: ErrorCode): string {
  return `urn:tally:problem:${code.toLowerCase().replaceAll('_', '-')}`;
}

export function toProblem(
  error: { code: ErrorCode; detail: string; reason?: string | undefined; errors?: FieldError[] | undefined },
  requestId: string | undefined,
): ProblemDetails {
  return {
    type: problemTypeOf(error.code),
    title: errorTitles[error.code],
    status: errorStatus[error.code],
    detail: error.detail,
    code: error.code,
    ...(error.reason === undefined ? {} : { reason: error.reason }),
    ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
    ...(requestId === undefined ? {} : { requestId }),
  };
}
