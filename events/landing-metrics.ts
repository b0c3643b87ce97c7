/**
 * The landing check's metric (docs/operations.md, alert LandingChanged), registered on the API
 * process's registry (api/plugins/process-metrics.ts):
 *
 * - `railyard_landings_changed` (gauge): landings of the last day that the landing check
 *   (activities/landing-check.ts) found changed outside the queue, read from PostgreSQL at each scrape;
 *   every replica reports the same value. Any value above 0 deserves a person.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Pool } from '../stores/db';
import { changedLandings } from './store/landings';

export function registerLandingMetrics(
  registry: Registry,
  pool: Pool,
  now: () => Date = () => new Date(),
): void {
  new Gauge({
    name: 'railyard_landings_changed',
    help: 'Landings of the last 24 h whose target branch no longer holds what the queue landed (the landing check)',
    registers: [registry],
    async collect() {
      try {
        this.set(await changedLandings(pool, now()));
      } catch {
        // PostgreSQL unreachable: no fresh value; the API's own probes say so.
      }
    },
  });
}
