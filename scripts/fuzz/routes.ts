/**
 * What every operation of the served OpenAPI document answered during a fuzz run, counted from the
 * API's own request log (one `request` line per response, with method, path and status), so the
 * counts do not depend on what the fuzzer says it sent.
 */
import fs from 'node:fs';

export interface RouteCount {
  route: string;
  total: number;
  ok: number;
  client: number;
  server: number;
}

interface RequestLine {
  msg?: string;
  method?: string;
  url?: string;
  status?: number;
}

/** `/v1/webhooks/subscriptions/{id}` → a pattern matching its concrete paths. */
function pathPattern(template: string): RegExp {
  const escaped = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export async function routeCounts(baseUrl: string, apiLog: string): Promise<RouteCount[]> {
  const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.keys(ops).map((method) => ({
      route: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      pattern: pathPattern(template),
      total: 0,
      ok: 0,
      client: 0,
      server: 0,
    })),
  );
  for (const line of fs.readFileSync(apiLog, 'utf8').split('\n')) {
    if (!line.includes('"msg":"request"')) continue;
    const r = JSON.parse(line) as RequestLine;
    const route = routes.find((x) => x.method === r.method && x.pattern.test(r.url ?? ''));
    if (!route || r.status === undefined) continue;
    route.total++;
    if (r.status >= 500) route.server++;
    else if (r.status >= 400) route.client++;
    else route.ok++;
  }
  return routes.map(({ route, total, ok, client, server }) => ({ route, total, ok, client, server }));
}
