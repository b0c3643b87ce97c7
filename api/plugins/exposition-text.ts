/**
 * prom-client spells not-a-number `Nan`; the Prometheus text format spells it `NaN`. Prometheus itself
 * accepts either, stricter parsers (and some scrapers) do not, so every exposition goes through this.
 */
import type { Registry } from 'prom-client';

export async function expositionText(registry: Registry): Promise<string> {
  return (await registry.metrics()).replace(/ Nan$/gm, ' NaN');
}
