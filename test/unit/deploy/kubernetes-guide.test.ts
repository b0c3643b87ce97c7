/**
 * docs/deployment.md's Kubernetes guide against the chart it documents, without rendering it (the
 * rendered chart is test/integration/deploy/helm-chart.test.ts): every value the guide names exists in
 * the chart's values.yaml, every value the chart requires is named in the guide, and the executor's
 * privileges the guide explains are the ones values.yaml sets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { readText, ROOT } from './deploy-files';

const CHART = 'deploy/helm/railyard';
const guide = readText('docs/deployment.md');
const kubernetes = guide.slice(guide.indexOf('## Kubernetes (Helm chart)'));
const values = parse(readText(`${CHART}/values.yaml`)) as Record<string, unknown>;

/** The value at a dotted path, or undefined when the path does not exist. */
function at(path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (node, key) =>
        node !== null && typeof node === 'object' && key in node
          ? (node as Record<string, unknown>)[key]
          : undefined,
      values,
    );
}

test('the guide has a Kubernetes part, and the README points to it', () => {
  expect(kubernetes.length).toBeGreaterThan(1000);
  expect(readText('README.md')).toMatch(/deploy\/helm\/railyard[\s\S]{0,600}docs\/deployment\.md/);
});

test('every value the guide names exists in values.yaml', () => {
  // `a.b`, `a.b.*`, and `a.b`, `.c` (a sibling of the previous one) in the tables and text.
  const named = [...kubernetes.matchAll(/`([a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)+)(?:\.\*)?`/g)].map(
    (m) => m[1]!,
  );
  const values = named.filter(
    (n) => !/\.(md|ts|yaml|sql|js|pem|crt|key)$/.test(n) && !n.includes('kubernetes.io'),
  );
  expect(values.length).toBeGreaterThan(10);
  const missing = values.filter((v) => at(v) === undefined);
  expect(missing).toEqual([]);
});

test('every value the chart requires is named in the guide', () => {
  const templates = fs
    .readdirSync(path.join(ROOT, CHART, 'templates'))
    .map((f) => readText(`${CHART}/templates/${f}`))
    .join('\n');
  const required = [...templates.matchAll(/required "([\w.]+) is required/g)].map((m) => m[1]!);
  expect(required).toEqual(expect.arrayContaining(['image.repository', 'temporal.address']));
  // Named itself, or covered by a `prefix.*` the guide explains (those required only with a feature on).
  const named = (r: string) =>
    kubernetes.includes(`\`${r}\``) ||
    r
      .split('.')
      .slice(1)
      .some((_, i, rest) =>
        kubernetes.includes(
          `\`${r
            .split('.')
            .slice(0, rest.length - i)
            .join('.')}.*\``,
        ),
      );
  for (const r of new Set(required)) expect({ r, inGuide: named(r) }).toEqual({ r, inGuide: true });
});

test("the executor's privileges the guide explains are the chart's defaults", () => {
  const sandbox = at('executor.sandbox') as Record<string, unknown>;
  expect(sandbox).toEqual({
    hostUsers: false,
    procMount: 'Unmasked',
    seccompProfile: { type: 'Unconfined' },
    appArmorProfile: { type: 'Unconfined' },
    tunDevice: true,
  });
  for (const setting of [
    'seccompProfile: Unconfined',
    'appArmorProfile: Unconfined',
    'procMount: Unmasked',
    'hostUsers: false',
  ])
    expect(kubernetes).toContain(`\`${setting}\``);
  expect(kubernetes).toContain('/dev/net/tun');
});

test("the chart's appVersion and default image tag are the package's version", () => {
  const version = (JSON.parse(readText('package.json')) as { version: string }).version;
  const chart = parse(readText(`${CHART}/Chart.yaml`)) as { appVersion: string };
  expect(chart.appVersion).toBe(version);
  expect(at('image.tag')).toBe(version);
});
