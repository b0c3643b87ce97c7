/**
 * How a failed Temporal call is read: its gRPC status codes, found on the error or its causes.
 *
 * - RESOURCE_EXHAUSTED is an answer from a live server (a workflow's update or query limit), to be
 *   retried within a budget, never an outage.
 * - DEADLINE_EXCEEDED, UNAVAILABLE and CANCELLED, a ServiceError, or a message about a deadline or a
 *   connection mean Temporal (or the worker a query or update needs) did not answer.
 */
export const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE_CODES = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */, 1 /* CANCELLED */]);

function codes(err: unknown): number[] {
  const found: number[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') found.push(code);
  }
  return found;
}

export function isUnavailable(err: unknown): boolean {
  if (codes(err).some((c) => UNAVAILABLE_CODES.has(c))) return true;
  for (let e: unknown = err; e instanceof Error; e = e.cause)
    if (e.name === 'ServiceError' || /deadline|UNAVAILABLE|connect/i.test(e.message)) return true;
  return false;
}

export const isExhausted = (err: unknown): boolean => codes(err).includes(RESOURCE_EXHAUSTED);
