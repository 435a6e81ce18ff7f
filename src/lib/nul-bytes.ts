/**
 * PostgreSQL text cannot hold U+0000 (`22021 invalid byte sequence`), so a
 * NUL character is refused where input enters, before any service sees it:
 * 400 naming the field in bodies, queries and GraphQL; 404 in a path.
 */

/** The path (`items.2.name`) of the first string or key in `value` holding a NUL, or undefined. */
export function nulBytePath(value: unknown, path: readonly (string | number)[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '(body)' : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulBytePath(item, [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '\\u0000')].join('.');
      const found = nulBytePath(item, [...path, key]);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

export const nulByteMessage = 'must not contain NUL characters (U+0000)';
