/**
 * One normalisation of errors for GraphQL (yoga) and REST: AppErrors
 * keep their code; known database errors get one; anything else is INTERNAL,
 * logged with the request id and never shown to the caller.
 */
import { GraphQLError } from 'graphql';
import { Prisma } from '../generated/prisma/client.js';
import { AppError, commonConflict, isErrorCode, type ErrorCode, type FieldError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { databaseBusy, databaseUnavailable, isDatabaseUnavailable } from '../db/unavailable.js';

function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

/** The SQLSTATE of the triggers that keep issued invoices and credit notes (migration 20261128171345_issued_documents_are_records). */
const recordRetained = 'TR409';

/** The SQLSTATE PostgreSQL answered, when Prisma passed the driver's error on (a raised exception has no Prisma code of its own). */
function sqlStateOf(error: Prisma.PrismaClientKnownRequestError): string | undefined {
  const cause = (error.meta?.driverAdapterError as { cause?: { originalCode?: unknown } } | undefined)?.cause;
  return typeof cause?.originalCode === 'string' ? cause.originalCode : undefined;
}

function fromDatabase(error: Prisma.PrismaClientKnownRequestError): AppError | undefined {
  if (sqlStateOf(error) === recordRetained) {
    return commonConflict('RECORD_RETAINED', 'An issued invoice or credit note is kept unchanged: the database refused this change (void the invoice instead)');
  }
  switch (error.code) {
    case 'P2025':
      return new AppError('NOT_FOUND', 'The record does not exist (it may have just been deleted)');
    case 'P2002': {
      const target = (error.meta?.target as string[] | string | undefined) ?? [];
      const fieldNames = Array.isArray(target) ? target : [target];
      return commonConflict('ALREADY_EXISTS', 'A record with these values already exists', {
        errors: fieldNames.map((path) => ({ path, message: 'is already taken' })),
      });
    }
    case 'P2003':
      return commonConflict('STILL_REFERENCED', 'The record is still referenced by other records');
    case 'P2028':
      // An interactive transaction past its timeout (or not started within maxWait): rolled back, on a busy database.
      return databaseBusy();
    default:
      return undefined;
  }
}

/**
 * An AppError that crossed a GraphQL boundary as extensions, as it was. A
 * 409 without its reason is not one of ours (every 409 is made with one):
 * undefined, so it is logged and answered as an internal error.
 */
function rebuilt(code: ErrorCode, detail: string, extensions: Record<string, unknown>): AppError | undefined {
  const errors = extensions.errors as FieldError[] | undefined;
  if (code !== 'CONFLICT' && code !== 'INVALID_STATE') return new AppError(code, detail, { errors });
  return typeof extensions.reason === 'string' ? new AppError(code, detail, { errors, reason: extensions.reason }) : undefined;
}

/** The AppError an error stands for, or undefined when it is an internal failure. */
function knownErrorOf(error: unknown): AppError | undefined {
  const original = originalOf(error);
  if (original instanceof AppError) return original;
  if (original instanceof Prisma.PrismaClientKnownRequestError) return fromDatabase(original);
  if (original instanceof GraphQLError) {
    const code = original.extensions.code;
    const http = original.extensions.http as { status?: number } | undefined;
    if (isErrorCode(code)) return rebuilt(code, original.message, original.extensions);
    // GraphQL's own errors: parse, validation and variable coercion failures.
    if (original.originalError === undefined || http?.status === 400) return new AppError('BAD_REQUEST', original.message);
  }
  return undefined;
}

const internalError = (): AppError => new AppError('INTERNAL', 'Something went wrong on our side; it has been logged');

/** Normalises, logs internal failures, and says what the caller may see. */
export function exposedErrorOf(error: unknown, log: Logger): AppError {
  const known = knownErrorOf(error);
  if (known) return known;
  if (isDatabaseUnavailable(originalOf(error))) {
    log.warn({ err: originalOf(error) }, 'the database cannot be reached');
    return databaseUnavailable();
  }
  log.error({ err: originalOf(error) }, 'internal error');
  return internalError();
}

/**
 * The GraphQL form: `extensions.code` (and `reason`, `errors`), the same code REST
 * puts in its problem details. No HTTP status: a GraphQL response with errors is still a 200, so that
 * partial results reach the client.
 */
export function toGraphQLError(error: unknown, log: Logger, requestId: string): GraphQLError {
  const exposed = exposedErrorOf(error, log);
  const source = error instanceof GraphQLError ? error : undefined;
  return new GraphQLError(exposed.message, {
    ...(source ? { nodes: source.nodes, source: source.source, positions: source.positions, path: source.path } : {}),
    originalError: exposed,
    extensions: {
      code: exposed.code,
      ...(exposed.reason === undefined ? {} : { reason: exposed.reason }),
      ...(exposed.errors ? { errors: exposed.errors } : {}),
      requestId,
    },
  });
}
