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

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = errorStatus[code];
    this.errors = options.errors;
    this.headers = options.headers;
  }
}

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

export const conflict = (detail: string, errors?: FieldError[]): AppError => new AppError('CONFLICT', detail, errors === undefined ? {} : { errors });

/** RFC 9457 problem details, with our `code`, field `errors` and `requestId`. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  requestId?: string;
}

export function problemTypeOf(code: ErrorCode): string {
  return `urn:tally:problem:${code.toLowerCase().replaceAll('_', '-')}`;
}

export function toProblem(error: { code: ErrorCode; detail: string; errors?: FieldError[] | undefined }, requestId: string | undefined): ProblemDetails {
  return {
    type: problemTypeOf(error.code),
    title: errorTitles[error.code],
    status: errorStatus[error.code],
    detail: error.detail,
    code: error.code,
    ...(error.errors && error.errors.length > 0 ? { errors: error.errors } : {}),
    ...(requestId === undefined ? {} : { requestId }),
  };
}
