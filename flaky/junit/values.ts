/**
 * Small value helpers shared by the JUnit modules.
 */

/**
 * `{ key: value }` when the value exists, `{}` otherwise: lets result objects omit absent fields
 * instead of carrying `undefined`, without a chain of conditionals.
 */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

/** A JUnit `time` attribute in seconds; anything but a plain non-negative decimal is ignored. */
export function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * A result object while it is being built. Hot paths assign optional fields one by one instead of
 * spreading `optional(…)` objects: spreads of computed keys allocate and give objects unstable shapes.
 */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
