import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fields } from '../lib/dto.js';
import { assertSameChoice, byPrecedence, compileRoutes, createRouteMatcher, type CompiledRoute } from './compile.js';
import { nativeRoute, tagged } from './route.js';

const tag = { name: 'Things', description: 'Rows made for this test' };
const row = (method: 'GET' | 'POST', path: string, parameters: Record<string, z.ZodType>) =>
  nativeRoute({
    controller: 'thing',
    action: `${method.toLowerCase()}${path.replace(/[^A-Za-z]/g, '')}`,
    method,
    path,
    summary: path,
    description: path,
    access: 'authenticated',
    parameters: z.strictObject(parameters),
    responses: { '200': { description: 'ok' } },
    handler: async () => ({ status: 200, headers: {} }),
  });

const routes = compileRoutes(
  buildSchema('type Query { unused: String }'),
  tagged(tag, [
    row('GET', '/users/{userId}', { userId: fields.id() }),
    row('GET', '/users/me', {}),
    row('GET', '/users/{userId}/notes/{noteId}', { userId: fields.id(), noteId: fields.id() }),
    row('GET', '/users/me/notes/{noteId}', { noteId: fields.id() }),
    row('POST', '/users/{userId}', { userId: fields.id() }),
  ]),
);
const at = (method: string, path: string): CompiledRoute => {
  const found = routes.find((route) => route.method === method && route.path === path);
  if (!found) throw new Error(`no row ${method} ${path}`);
  return found;
};

describe('the route table', () => {
  const match = createRouteMatcher(routes);

  it('chooses the most specific template of the method, whatever the order of the rows', () => {
    expect(match('GET', ['users', 'me'])?.route.path).toBe('/users/me');
    expect(match('GET', ['users', 'u1'])).toEqual({ route: at('GET', '/users/{userId}'), pathValues: { userId: 'u1' } });
    expect(match('GET', ['users', 'me', 'notes', 'n1'])).toEqual({ route: at('GET', '/users/me/notes/{noteId}'), pathValues: { noteId: 'n1' } });
    expect(match('GET', ['users', 'u1', 'notes', 'n1'])?.pathValues).toEqual({ userId: 'u1', noteId: 'n1' });
    expect(match('POST', ['users', 'me'])?.route.path).toBe('/users/{userId}');
    expect(match('DELETE', ['users', 'me'])).toBeUndefined();
    expect(match('GET', ['users'])).toBeUndefined();
  });

  it('refuses a router that would try a row before one the table prefers for the same paths', () => {
    const preferred = byPrecedence(routes);
    expect(() => assertSameChoice(preferred, preferred)).not.toThrow();
    // Rows that never match the same path may come in any order: another method, another length.
    expect(() => assertSameChoice([at('POST', '/users/{userId}'), at('GET', '/users/me')], preferred)).not.toThrow();
    expect(() => assertSameChoice([at('GET', '/users/{userId}'), at('GET', '/users/me')], preferred)).toThrow(
      'the router tries GET /users/{userId} before GET /users/me, which the route table prefers',
    );
    expect(() => assertSameChoice([at('GET', '/users/{userId}/notes/{noteId}'), at('GET', '/users/me/notes/{noteId}')], preferred)).toThrow();
  });
});
