/**
 * RAILYARD_SANDBOX_NETWORK_ALLOW as the executor reads it (issue 24): the operator's allow-list of a
 * sandbox's network, comma-separated IP addresses, CIDR ranges or host names, at most 64. Only the
 * text is checked here; sandbox-settings.ts resolves host names and turns entries into the ranges a
 * run's rules open (executor/sandbox-addresses.ts). Below both executor-config.ts, which parses it,
 * and sandbox-settings.ts, which takes the parsed config.
 */
import { z } from 'zod';
import { parseRange } from '../executor/sandbox-addresses';

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** RAILYARD_SANDBOX_NETWORK_ALLOW: comma-separated addresses, CIDR ranges or host names, at most 64. */
export const networkAllowSetting = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(
        z.string().refine((entry) => parseRange(entry) !== null || HOST_NAME.test(entry), {
          error: 'each entry must be an IP address, a CIDR range (10.1.2.0/24) or a host name',
        }),
      )
      .max(64),
  );
