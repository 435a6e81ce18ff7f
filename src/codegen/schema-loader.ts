import { schema } from '../schema.js';

/** GraphQL Code Generator schema loader: the executable schema the server runs. */
export default function loadSchema() {
  return schema;
}
