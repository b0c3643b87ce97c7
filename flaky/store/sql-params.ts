/**
 * Numbered placeholders for a statement assembled from pieces (keyset pages, test-case details):
 * `add(value)` appends a value and answers its `$n`, so a piece never needs to know how many
 * parameters came before it.
 *
 * Invariant: the same pieces added in the same order give the same text. Hot reads are named
 * prepared statements (one plan per connection), and a name must always stand for the same text.
 */
export interface SqlParams {
  /** The values, in placeholder order; pass them as the statement's `values`. */
  readonly values: readonly unknown[];
  /** Appends a value; answers `$n`, or `$n::cast` when a cast is given (text params in `||`). */
  add(value: unknown, cast?: string): string;
}

export function sqlParams(): SqlParams {
  const values: unknown[] = [];
  return {
    values,
    add(value, cast) {
      values.push(value);
      return cast === undefined ? `$${values.length}` : `$${values.length}::${cast}`;
    },
  };
}
