/**
 * What every operation of the served OpenAPI document answered during a fuzz run, counted from the
 * API's own request log (one `request` line per response, with method, path, status, the time it was
 * logged and how long it took), so the counts do not depend on what the fuzzer says it sent. Requests
 * that started before `since` (the seeding) are not counted.
 *
 * A 5xx that the operation declares by its own code (GET /readyz's 503: not ready, naming the check
 * that failed) is a designed answer, counted apart (`declared`); `server` counts every other 5xx.
 */
import fs from 'node:fs';

export interface RouteCount {
  route: string;
  total: number;
  ok: number;
  client: number;
  server: number;
  declared: number;
}

interface RequestLine {
  msg?: string;
  method?: string;
  url?: string;
  status?: number;
  time?: number;
  ms?: number;
}

/** `/v1/webhooks/subscriptions/{id}` → a pattern matching its concrete paths. */
function pathPattern(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export async function routeCounts(baseUrl: string, apiLog: string, since = 0): Promise<RouteCount[]> {
  const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  const routes = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      route: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      pattern: pathPattern(template),
      declaredCodes: Object.keys(op.responses ?? {})
        .filter((code) => /^5\d\d$/.test(code))
        .map(Number),
      total: 0,
      ok: 0,
      client: 0,
      server: 0,
      declared: 0,
    })),
  );
  for (const line of fs.readFileSync(apiLog, 'utf8').split('\n')) {
    if (!line.includes('"msg":"request"')) continue;
    const r = JSON.parse(line) as RequestLine;
    if ((r.time ?? 0) - (r.ms ?? 0) < since) continue;
    const route = routes.find((x) => x.method === r.method && x.pattern.test(r.url ?? ''));
    if (!route || r.status === undefined) continue;
    route.total++;
    if (route.declaredCodes.includes(r.status)) route.declared++;
    else if (r.status >= 500) route.server++;
    else if (r.status >= 400) route.client++;
    else route.ok++;
  }
  return routes.map(({ route, total, ok, client, server, declared }) => ({
    route,
    total,
    ok,
    client,
    server,
    declared,
  }));
}
