/**
 * PostgreSQL array literals for values that never need quoting — integers, UUIDs, hex digests and
 * fixed words — built with one join instead of node-pg's per-element escaping. Uploads send arrays of
 * tens of thousands of such values, where the generic path showed up in profiles; text that could
 * hold anything (names, messages) still goes through node-pg.
 */
const PLAIN = /^[A-Za-z0-9_.:-]*$/;

export function plainArray(values: readonly (string | number | boolean | null)[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    if (value === null || value === undefined) parts[i] = 'NULL';
    else if (typeof value === 'boolean') parts[i] = value ? 't' : 'f';
    // A safe integer prints as digits and a sign, plain by construction: no check needed (the
    // check per element showed in profiles of uploads).
    else if (typeof value === 'number' && Number.isSafeInteger(value)) parts[i] = String(value);
    else {
      const text = String(value);
      // Callers pass only plain values; anything else is a bug, not data to escape.
      if (text === '' || !PLAIN.test(text) || (text.length === 4 && text.toUpperCase() === 'NULL'))
        throw new Error(`not a plain array element: ${JSON.stringify(text)}`);
      parts[i] = text;
    }
  }
  return `{${parts.join(',')}}`;
}
