/**
 * What the compose deployment exposes on the host. Temporal's gRPC port has no authentication, so it is
 * never published; the Temporal UI has no login, so it is opt-in and loopback-only; the API is
 * loopback-only too, and the only ports open to other hosts are the TLS proxy's (profile `tls`).
 */
import { isLoopback, loadCompose, parsePort, readText } from './deploy-files';

const { services } = loadCompose();
const published = Object.entries(services).flatMap(([name, s]) =>
  (s.ports ?? []).map((p) => ({ service: name, ...parsePort(p) })),
);

test('the port reader understands the short and long compose syntaxes', () => {
  expect(parsePort('7233:7233')).toEqual({ hostIp: undefined, published: '7233', target: '7233' });
  expect(parsePort('7233')).toEqual({ hostIp: undefined, published: undefined, target: '7233' });
  expect(parsePort('127.0.0.1:8233:8080')).toMatchObject({ hostIp: '127.0.0.1', target: '8080' });
  expect(parsePort('[::1]:8233:8080')).toMatchObject({ hostIp: '::1', published: '8233' });
  expect(parsePort('443:443/udp')).toMatchObject({ target: '443' });
  expect(parsePort({ target: 7233, published: 7233 })).toMatchObject({ hostIp: undefined, target: '7233' });
  expect(isLoopback('0.0.0.0')).toBe(false);
  expect(isLoopback(undefined)).toBe(false);
});

test('no service publishes Temporal gRPC (7233), on any address', () => {
  for (const p of published) {
    expect(`${p.service} ${p.target}`).not.toBe(`${p.service} 7233`);
    expect(`${p.service} ${p.published}`).not.toBe(`${p.service} 7233`);
  }
  expect(services.temporal?.ports ?? []).toEqual([]);
});

test('the Temporal UI is opt-in and, when started, bound to loopback only', () => {
  const ui = services['temporal-ui'];
  expect(ui?.profiles ?? []).not.toEqual([]);
  for (const p of (ui?.ports ?? []).map(parsePort)) expect(isLoopback(p.hostIp)).toBe(true);
});

test('only the TLS proxy publishes on non-loopback addresses', () => {
  const open = published.filter((p) => !isLoopback(p.hostIp));
  expect([...new Set(open.map((p) => p.service))]).toEqual(['caddy']);
  expect(services.caddy?.profiles).toEqual(['tls']);
  expect(open.map((p) => p.target).sort()).toEqual(['443', '443', '80']);
});

test('the API is published on loopback for the proxy and local use, one port per replica from 8080', () => {
  expect((services.api?.ports ?? []).map(parsePort)).toEqual([
    { hostIp: '127.0.0.1', published: '8080-8083', target: '8080' },
  ]);
});

test('the TLS proxy serves the public URL the API announces and forwards to the api service', () => {
  const caddy = services.caddy;
  expect(caddy?.environment?.RAILYARD_PUBLIC_URL).toBe(services.api?.environment?.RAILYARD_PUBLIC_URL);
  expect(caddy?.volumes).toContain('./deploy/caddy/Caddyfile:/etc/caddy/Caddyfile:ro');
  const caddyfile = readText('deploy/caddy/Caddyfile');
  expect(caddyfile).toMatch(/^\{\$RAILYARD_PUBLIC_URL\} \{$/m);
  expect(caddyfile).toMatch(/^\s*reverse_proxy api:8080$/m);
  // The API's process metrics need no key: never through the public proxy.
  expect(caddyfile).toMatch(/^\s*respond \/metrics 404$/m);
});
