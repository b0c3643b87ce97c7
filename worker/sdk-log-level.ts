/**
 * railyard's log levels as the Temporal SDK's: both composition roots (the worker, the executor) install
 * the SDK's runtime logger at the level their RAILYARD_LOG_LEVEL names. `fatal` and `silent` have no
 * SDK level of their own; errors are the least the SDK may print.
 */
import type { z } from 'zod';
import type { logLevel } from '../platform/env';

export const SDK_LOG_LEVEL = {
  fatal: 'ERROR',
  error: 'ERROR',
  warn: 'WARN',
  info: 'INFO',
  debug: 'DEBUG',
  trace: 'TRACE',
  silent: 'ERROR',
} as const satisfies Record<z.infer<typeof logLevel>, string>;
