/** Parameters of a raw statement built in pieces (search, reports). */

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
