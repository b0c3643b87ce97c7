/**
 * Exhaustiveness guard for switches over discriminated unions.
 *
 * Rule: every `switch` over an engine union ends in `default: return assertNever(x)`, so adding a
 * variant is a compile error everywhere it is not handled, and an impossible value at run time (a
 * corrupt event from an older workflow version, say) fails loudly instead of being silently dropped.
 */
export function assertNever(value: never): never {
  throw new Error(`Unhandled variant: ${JSON.stringify(value)}`);
}
