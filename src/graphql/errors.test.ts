import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Prisma } from '../generated/prisma/client.js';
import { conflictReasons } from '../lib/errors.js';
import { createLogger } from '../lib/logger.js';
import { exposedErrorOf, toGraphQLError } from './errors.js';

const log = createLogger('silent');
const things = conflictReasons('Thing', {
  NAME_TAKEN: { code: 'CONFLICT', description: 'Another thing has this name' },
  THING_CLOSED: { code: 'INVALID_STATE', description: 'The thing is closed' },
});

describe('conflict reasons', () => {
  it('give each 409 the code its reason is declared with, and the common reasons beside the module’s own', () => {
    expect(things.refuse('NAME_TAKEN', 'taken')).toMatchObject({ status: 409, code: 'CONFLICT', reason: 'NAME_TAKEN' });
    expect(things.refuse('THING_CLOSED', 'closed')).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'THING_CLOSED' });
    // Any POST or PATCH may meet its Idempotency-Key still in use, whatever the module.
    expect(Object.keys(things.reasons)).toEqual([
      'NAME_TAKEN',
      'THING_CLOSED',
      'ALREADY_EXISTS',
      'STILL_REFERENCED',
      'RECORD_RETAINED',
      'IDEMPOTENCY_KEY_IN_USE',
    ]);
  });

  it('reach GraphQL clients in extensions, next to the code', () => {
    const error = toGraphQLError(new GraphQLError('wrapped', { originalError: things.refuse('NAME_TAKEN', 'taken') }), log, 'request-1');
    expect(error.extensions).toEqual({ code: 'CONFLICT', reason: 'NAME_TAKEN', requestId: 'request-1' });
  });

  it('survive a GraphQL boundary that kept only the extensions; a 409 without one is not ours and is internal', () => {
    const kept = new GraphQLError('closed', { extensions: { code: 'INVALID_STATE', reason: 'THING_CLOSED' } });
    expect(exposedErrorOf(kept, log)).toMatchObject({ code: 'INVALID_STATE', reason: 'THING_CLOSED' });
    const bare = new GraphQLError('conflict', { extensions: { code: 'CONFLICT' } });
    expect(exposedErrorOf(bare, log)).toMatchObject({ code: 'INTERNAL', reason: undefined });
  });

  it('name the database’s own refusals of a concurrent write', () => {
    const unique = new Prisma.PrismaClientKnownRequestError('unique', { code: 'P2002', clientVersion: 'test', meta: { target: ['slug'] } });
    expect(exposedErrorOf(unique, log)).toMatchObject({ code: 'CONFLICT', reason: 'ALREADY_EXISTS', errors: [{ path: 'slug', message: 'is already taken' }] });
    const referenced = new Prisma.PrismaClientKnownRequestError('foreign key', { code: 'P2003', clientVersion: 'test' });
    expect(exposedErrorOf(referenced, log)).toMatchObject({ code: 'CONFLICT', reason: 'STILL_REFERENCED' });
    // A trigger keeping an issued invoice raises SQLSTATE TR409, which Prisma passes on as the driver's error.
    const retained = new Prisma.PrismaClientKnownRequestError('Database error. Code: `TR409`', {
      code: 'P2039',
      clientVersion: 'test',
      meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'postgres', originalCode: 'TR409', code: 'TR409' } } },
    });
    expect(exposedErrorOf(retained, log)).toMatchObject({ status: 409, code: 'INVALID_STATE', reason: 'RECORD_RETAINED' });
  });
});
