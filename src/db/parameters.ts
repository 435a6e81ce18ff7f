/** Parameters of a raw statement built in pieces (search, reports), for `sql` or for Prisma's tagged templates. */
import { Prisma } from '../generated/prisma/client.js';

/** Query parameters, numbered as they are added; a value added twice is one parameter. */
export class Parameters {
  readonly values: unknown[] = [];
  readonly #placeholders = new Map<unknown, string>();

  readonly add = (value: unknown): string => {
    let placeholder = this.#placeholders.get(value);
    if (placeholder === undefined) {
      this.values.push(value);
      placeholder = `$${this.values.length}`;
      this.#placeholders.set(value, placeholder);
    }
    return placeholder;
  };
}

/** Stands for a bound value in `fragment`'s text until it is cut there: PostgreSQL's text cannot hold a NUL. */
const boundValue = '\u0000';

/**
 * A piece of SQL that binds its own values (an access's `sqlScope`), as a
 * fragment for Prisma's tagged templates: `WHERE ${fragment((bind) => access.sqlScope('read', 'Entry', 'e', bind))}`.
 */
export function fragment(build: (bind: (value: unknown) => string) => string): Prisma.Sql {
  const values: unknown[] = [];
  const text = build((value) => {
    values.push(value);
    return boundValue;
  });
  return new Prisma.Sql(text.split(boundValue), values);
}
