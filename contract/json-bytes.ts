/**
 * The size of a string as it is stored: the UTF-8 bytes of its JSON text, quotes included. Temporal
 * carries workflow state as JSON in UTF-8, so a budget on carried state must count these bytes, not
 * the string's length (UTF-16 units): a control character is 1 unit but 6 bytes (`\u0001`), a
 * character outside the BMP 2 units and 4 bytes, `"` and `\` 2 bytes, and a lone surrogate is
 * written as a 6-byte escape. Pure and deterministic (the workflow sandbox uses it), allocation-free.
 *
 * Invariant: jsonBytes(s) === Buffer.byteLength(JSON.stringify(s)) for every string s.
 */
export function jsonBytes(value: string): number {
  let bytes = 2;
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c < 0x20) bytes += c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < value.length ? value.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) bytes += 6;
    else bytes += 3;
  }
  return bytes;
}

/** A control character (C0, DEL or C1) or a lone surrogate: never part of a name a tenant sets. */
export const CONTROL_OR_LONE_SURROGATE =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
