/**
 * The Helm chart (deploy/helm/railyard, issue 27), offline: rendered by the pinned helm with the chart's
 * defaults (plus the values it requires) and with deploy/helm/examples/production.yaml, every object
 * validated against Kubernetes' JSON schemas of the oldest supported and the newest release (strict:
 * an unknown field fails), and the values that matter checked on the rendered objects:
 *  - no credential is a plain env value: each comes from a Secret (secretKeyRef) or a mounted file;
 *  - every process's env passes its own config schema, and the executor's holds nothing of the
 *    control plane (worker/executor-config.ts FORBIDDEN);
 *  - the executor's NetworkPolicy lets it reach the API's pods on the API port, DNS, and public
 *    addresses only: every range the sandbox keeps runs from (executor/sandbox-addresses.ts) excluded;
 *  - probes point at paths the processes serve, on the ports they listen on; a PodDisruptionBudget
 *    covers each Deployment; the grace period outlasts RAILYARD_SHUTDOWN_GRACE_SECONDS;
 *  - the executor has the privileges the sandbox needs and no more.
 * helm and kubernetes-validate come from scripts/ensure-chart-tools.sh; without them the suite fails
 * under CI and is skipped, with a warning, elsewhere (test/support/required-tool.ts).
 */
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { loadApiConfig } from '../../../api/config';
import { healthRoutes } from '../../../api/routes/health';
import { CLOSED_V4, CLOSED_V6 } from '../../../executor/sandbox-addresses';
import { loadExecutorConfig, FORBIDDEN } from '../../../worker/executor-config';
import { buildExecutorHealth } from '../../../worker/executor-health';
import { loadWorkerConfig } from '../../../worker/config';
import { requireTool } from '../../support/required-tool';
import {
  byKind,
  containers,
  envValues,
  HELM,
  INSTALL,
  KUBERNETES_VALIDATE,
  KUBERNETES_VERSIONS,
  kubeVersionOfChart,
  lint,
  one,
  parseObjects,
  probe,
  PRODUCTION_VALUES,
  renderText,
  REQUIRED_VALUES,
  validate,
  volumes,
  type Container,
  type K8sObject,
} from './helm-chart';

const haveHelm = requireTool({
  tool: 'helm',
  probe: probe(HELM, ['version']),
  install: INSTALL,
  neededBy: 'the Helm chart tests',
});
const haveValidator = requireTool({
  tool: 'kubernetes-validate',
  probe: probe(KUBERNETES_VALIDATE, ['--version']),
  install: INSTALL,
  neededBy: 'the Helm chart tests',
});
const suite = haveHelm && haveValidator ? describe : describe.skip;

/** What each case renders with. */
const CASES = {
  defaults: { set: REQUIRED_VALUES },
  production: { valuesFiles: [PRODUCTION_VALUES] },
  // Temporal Cloud with an API key, fixed replica counts, no GitHub.
  'temporal-cloud': {
    set: REQUIRED_VALUES,
    values: {
      temporal: { tls: { enabled: true }, apiKey: { existingSecret: 'railyard-temporal-cloud' } },
      api: { autoscaling: { enabled: false }, replicas: 3 },
      executor: { autoscaling: { enabled: false }, replicas: 4 },
    },
  },
} as const;
type CaseName = keyof typeof CASES;
const CASE_NAMES = Object.keys(CASES) as CaseName[];

const rendered = new Map<CaseName, { text: string; objects: K8sObject[] }>();
function render(name: CaseName) {
  if (!rendered.has(name)) {
    const text = renderText(CASES[name]);
    rendered.set(name, { text, objects: parseObjects(text) });
  }
  return rendered.get(name)!;
}

/** Env names that hold a credential (a path to one, `_FILE`, is not one). */
const CREDENTIAL = /DATABASE_URL|TOKEN|SECRET|PASSWORD|(^|_)API_KEY$|PRIVATE_KEY(?!_FILE)/;
const SECRET_STAND_IN = (ref: string) =>
  ref.endsWith('database-url')
    ? 'postgres://railyard:stand-in@db.example:5432/railyard'
    : `stand-in-${ref}`.padEnd(20, '-');
const EXECUTOR_TOKEN_STAND_IN = `rye_${'A'.repeat(43)}`;

const mainContainer = (d: K8sObject): Container => d.spec.template.spec.containers[0] as Container;
const envOf = (c: Container, name: string) => c.env?.find((e) => e.name === name);
const portOf = (c: Container, name: string | number) =>
  typeof name === 'number' ? name : c.ports?.find((p) => p.name === name)?.containerPort;

suite('the Helm chart', () => {
  test("Chart.yaml's kubeVersion starts at the oldest release the objects are validated against", () => {
    expect(kubeVersionOfChart()).toBe(`>=${KUBERNETES_VERSIONS[0]}-0`);
  });

  describe.each(CASE_NAMES)('rendered with the %s values', (name) => {
    test.each(KUBERNETES_VERSIONS)("every object passes Kubernetes %s's schemas (strict)", (version) => {
      const { objects } = render(name);
      const text = renderText({ ...CASES[name], kubeVersion: version });
      const result = validate(text, version);
      expect({ status: result.status, output: result.status === 0 ? '' : result.output }).toEqual({
        status: 0,
        output: '',
      });
      // One "passed" per object: none was left out as unknown.
      expect(result.passed.sort()).toEqual(
        objects.map((o) => `${o.kind.toLowerCase()}/${o.metadata.name}`).sort(),
      );
    });

    test('helm lint --strict passes', () => {
      expect(lint(CASES[name])).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    });

    test('the chart makes the objects it promises, and no Secret or ConfigMap of its own', () => {
      const { objects } = render(name);
      const kinds = new Set(objects.map((o) => o.kind));
      for (const k of ['Deployment', 'Service', 'PodDisruptionBudget', 'NetworkPolicy'])
        expect(kinds).toContain(k);
      expect(
        byKind(objects, 'Deployment')
          .map((d) => d.metadata.name)
          .sort(),
      ).toEqual(['ry-railyard-api', 'ry-railyard-executor', 'ry-railyard-worker']);
      expect(kinds).not.toContain('Secret');
      expect(kinds).not.toContain('ConfigMap');
    });

    test('no credential is a plain env value: each comes from a Secret or a mounted file', () => {
      const { objects, text } = render(name);
      const plain = byKind(objects, 'Deployment').flatMap((d) =>
        containers(d).flatMap((c) =>
          (c.env ?? [])
            .filter((e) => CREDENTIAL.test(e.name) && (e.value !== undefined || !e.valueFrom?.secretKeyRef))
            .map((e) => `${d.metadata.name}/${c.name}: ${e.name}`),
        ),
      );
      expect(plain).toEqual([]);
      expect(text).not.toMatch(/postgres(ql)?:\/\//);
      // Files named by the env (the GitHub App's key, Temporal's TLS files) come from a Secret volume
      // mounted where the env points, and so does the CA a database URL names (sslrootcert).
      const files: string[] = [];
      for (const d of byKind(objects, 'Deployment')) {
        for (const c of containers(d)) {
          for (const e of c.env ?? []) {
            if (!/_(FILE|PATH)$/.test(e.name) || e.value === undefined) continue;
            files.push(e.value);
            const mount = (c.volumeMounts ?? []).find((m) => e.value!.startsWith(`${m.mountPath}/`));
            const volume = volumes(d).find((v) => v.name === mount?.name);
            const where = `${d.metadata.name}/${c.name} ${e.name}`;
            expect({ where, secret: typeof volume?.secret?.secretName }).toEqual({ where, secret: 'string' });
          }
        }
      }
      if (name === 'temporal-cloud') {
        const api = mainContainer(one(objects, 'Deployment', '-api'));
        expect(envOf(api, 'TEMPORAL_API_KEY')?.valueFrom?.secretKeyRef?.name).toBe('railyard-temporal-cloud');
        expect(envOf(api, 'TEMPORAL_TLS')?.value).toBe('true');
      }
      if (name === 'production') {
        expect(files).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/github\/private-key\.pem$/),
            expect.stringMatching(/temporal\/tls\.key$/),
          ]),
        );
        // The migration container connects too: the CA its URL names is mounted there as well.
        const migrate = containers(one(objects, 'Deployment', '-api')).find((c) => c.name === 'migrate')!;
        expect(migrate.volumeMounts?.map((m) => m.mountPath)).toContain('/var/run/secrets/railyard/postgres');
      }
    });

    test("every process's env passes its config schema; the executor holds nothing of the control plane", () => {
      const { objects } = render(name);
      const api = mainContainer(one(objects, 'Deployment', '-api'));
      const worker = mainContainer(one(objects, 'Deployment', '-worker'));
      const executor = mainContainer(one(objects, 'Deployment', '-executor'));
      expect(loadApiConfig(envValues(api, SECRET_STAND_IN))).toMatchObject({ RAILYARD_API_HOST: '0.0.0.0' });
      expect(loadWorkerConfig(envValues(worker, SECRET_STAND_IN))).toMatchObject({
        RAILYARD_WORKER_METRICS_HOST: '0.0.0.0',
      });
      const executorEnv = envValues(executor, () => EXECUTOR_TOKEN_STAND_IN);
      for (const forbidden of FORBIDDEN) expect(Object.keys(executorEnv)).not.toContain(forbidden);
      const config = loadExecutorConfig(executorEnv);
      expect(config.RAILYARD_EXECUTOR_HEALTH_HOST).toBe('0.0.0.0');
      // It reaches the API through the chart's Service, on the port the API listens on.
      const service = one(objects, 'Service', '-api');
      const url = new URL(config.RAILYARD_EXECUTOR_API_URL);
      expect(url.hostname).toBe(service.metadata.name);
      expect(Number(url.port)).toBe(service.spec.ports[0].port);
      expect(portOf(api, service.spec.ports[0].targetPort)).toBe(
        Number(envOf(api, 'RAILYARD_API_PORT')?.value),
      );
    });

    test("the executor's NetworkPolicy: the API, DNS and public addresses only, nothing may connect to it", () => {
      const { objects } = render(name);
      const executor = one(objects, 'Deployment', '-executor');
      const api = one(objects, 'Deployment', '-api');
      const policy = one(objects, 'NetworkPolicy', '-executor');
      const podLabels = (d: K8sObject) => d.spec.template.metadata.labels as Record<string, string>;
      const selects = (selector: Record<string, string>, d: K8sObject) =>
        Object.entries(selector).every(([k, v]) => podLabels(d)[k] === v);
      expect(selects(policy.spec.podSelector.matchLabels, executor)).toBe(true);
      expect(selects(policy.spec.podSelector.matchLabels, api)).toBe(false);
      expect([...(policy.spec.policyTypes as string[])].sort()).toEqual(['Egress', 'Ingress']);
      expect(policy.spec.ingress).toEqual([]);

      type Peer = {
        podSelector?: { matchLabels: Record<string, string> };
        namespaceSelector?: unknown;
        ipBlock?: { cidr: string; except?: string[] };
      };
      type Rule = { to?: Peer[]; ports?: { protocol: string; port: number }[] };
      const rules = policy.spec.egress as Rule[];
      // A rule without `to` would allow every destination.
      for (const r of rules) expect(r.to?.length ?? 0).toBeGreaterThan(0);

      const apiPort = portOf(mainContainer(api), 'http');
      const toApi = rules.find((r) =>
        r.to!.some((p) => p.podSelector && !p.namespaceSelector && selects(p.podSelector.matchLabels, api)),
      );
      expect(toApi?.ports).toEqual([{ protocol: 'TCP', port: apiPort }]);
      // The API rule reaches no other component.
      const apiPeer = toApi!.to!.find((p) => p.podSelector)!;
      for (const other of ['-worker', '-executor'])
        expect(selects(apiPeer.podSelector!.matchLabels, one(objects, 'Deployment', other))).toBe(false);

      const dns = rules.find((r) => r.ports?.some((p) => p.port === 53));
      expect(dns?.to?.every((p) => p.namespaceSelector && p.podSelector)).toBe(true);
      expect(dns?.ports?.map((p) => p.port)).toEqual([53, 53]);

      const blocks = rules.flatMap((r) => r.to!.flatMap((p) => (p.ipBlock ? [p.ipBlock] : [])));
      const v4 = blocks.filter((b) => !b.cidr.includes(':'));
      const v6 = blocks.filter((b) => b.cidr.includes(':'));
      // Every address block excludes every range a sandboxed run may never reach.
      for (const b of v4) expect(b.except ?? []).toEqual(expect.arrayContaining([...CLOSED_V4]));
      for (const b of v6) expect(b.except ?? []).toEqual(expect.arrayContaining([...CLOSED_V6]));
      expect(v4.map((b) => b.cidr)).toEqual(['0.0.0.0/0']);
      expect(v6.map((b) => b.cidr)).toEqual(['::/0']);
    });

    test('probes point at paths the processes serve, on the ports they listen on', async () => {
      const { objects } = render(name);
      const api = mainContainer(one(objects, 'Deployment', '-api'));
      const worker = mainContainer(one(objects, 'Deployment', '-worker'));
      const executor = mainContainer(one(objects, 'Deployment', '-executor'));
      const probes = (c: Container) =>
        Object.fromEntries(
          ['startupProbe', 'readinessProbe', 'livenessProbe'].map((p) => [
            p,
            { path: c[p]?.httpGet?.path, port: portOf(c, c[p]?.httpGet?.port) },
          ]),
        );
      const apiPort = Number(envOf(api, 'RAILYARD_API_PORT')?.value);
      expect(probes(api)).toEqual({
        startupProbe: { path: '/healthz', port: apiPort },
        readinessProbe: { path: '/readyz', port: apiPort },
        // Liveness does not depend on PostgreSQL or Temporal: an outage must not restart every replica.
        livenessProbe: { path: '/healthz', port: apiPort },
      });
      const executorPort = Number(envOf(executor, 'RAILYARD_EXECUTOR_HEALTH_PORT')?.value);
      expect(probes(executor)).toEqual({
        startupProbe: { path: '/livez', port: executorPort },
        readinessProbe: { path: '/readyz', port: executorPort },
        livenessProbe: { path: '/livez', port: executorPort },
      });
      // The worker serves no HTTP of its own: Temporal's Prometheus exporter, on its metrics port
      // (test/integration/worker/worker-process.test.ts scrapes /metrics from the real worker).
      const metricsPort = Number(envOf(worker, 'RAILYARD_WORKER_METRICS_PORT')?.value);
      for (const p of Object.values(probes(worker)))
        expect(p).toEqual({ path: '/metrics', port: metricsPort });

      // The API's and the executor's routes answer those paths (200 or 503, never 404).
      const apiApp = Fastify();
      apiApp.setValidatorCompiler(validatorCompiler);
      apiApp.setSerializerCompiler(serializerCompiler);
      const down = () => Promise.reject(new Error('down'));
      apiApp.register(
        healthRoutes({ postgres: down, temporal: down }, { timeoutMs: 100, workerCacheMs: 0, now: Date.now }),
      );
      const executorApp = buildExecutorHealth({
        api: 'http://api',
        name: 'e',
        slots: 1,
        sandbox: 'UNSANDBOXED',
        network: 'shared',
        running: () => true,
      });
      try {
        for (const [app, path] of [
          [apiApp, '/healthz'],
          [apiApp, '/readyz'],
          [executorApp, '/livez'],
          [executorApp, '/readyz'],
        ] as const) {
          const res = await app.inject({ method: 'GET', url: path });
          expect({ path, status: [200, 503].includes(res.statusCode) }).toEqual({ path, status: true });
        }
      } finally {
        await Promise.all([apiApp.close(), executorApp.close()]);
      }
    });

    test('a PodDisruptionBudget covers each Deployment; the API and executors scale with an HPA', () => {
      const { objects } = render(name);
      for (const d of byKind(objects, 'Deployment')) {
        const labels = d.spec.template.metadata.labels as Record<string, string>;
        const pdbs = byKind(objects, 'PodDisruptionBudget').filter((p) =>
          Object.entries(p.spec.selector.matchLabels as Record<string, string>).every(
            ([k, v]) => labels[k] === v,
          ),
        );
        expect({ deployment: d.metadata.name, pdbs: pdbs.length }).toEqual({
          deployment: d.metadata.name,
          pdbs: 1,
        });
        // maxUnavailable, not minAvailable: a one-replica worker must not block every node drain.
        expect(pdbs[0]!.spec.maxUnavailable).toBeGreaterThanOrEqual(1);
      }
      const hpaTargets = byKind(objects, 'HorizontalPodAutoscaler')
        .map((h) => String(h.spec.scaleTargetRef.name))
        .sort();
      if (name === 'defaults') expect(hpaTargets).toEqual(['ry-railyard-api', 'ry-railyard-executor']);
      if (name === 'temporal-cloud') {
        expect(hpaTargets).toEqual([]);
        expect(one(objects, 'Deployment', '-executor').spec?.replicas).toBe(4);
      }
      // Where an HPA scales a Deployment, the Deployment leaves its replica count alone.
      for (const target of hpaTargets)
        expect(
          one(objects, 'Deployment', target.replace('ry-railyard', '')).spec?.replicas as unknown,
        ).toBeUndefined();
    });

    test("the grace period outlasts the processes' own; every container requests resources", () => {
      const { objects } = render(name);
      for (const suffix of ['-worker', '-executor']) {
        const d = one(objects, 'Deployment', suffix);
        const grace = Number(envOf(mainContainer(d), 'RAILYARD_SHUTDOWN_GRACE_SECONDS')?.value);
        expect(grace).toBeGreaterThan(0);
        expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(grace);
      }
      const api = one(objects, 'Deployment', '-api');
      const preStop = Number(mainContainer(api).lifecycle.preStop.exec.command[1]);
      // The pod leaves the Service during preStop, then an executor's 20 s claim long poll may be in flight.
      expect(api.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStop + 20);
      for (const d of byKind(objects, 'Deployment'))
        for (const c of containers(d)) {
          expect(c.resources?.requests?.cpu).toBeDefined();
          expect(c.resources?.requests?.memory).toBeDefined();
        }
    });

    test("the executor's memory limit holds every slot's run at its sandbox memory", () => {
      const { objects } = render(name);
      const c = mainContainer(one(objects, 'Deployment', '-executor'));
      const slots = Number(envOf(c, 'RAILYARD_EXECUTOR_SLOTS')?.value);
      const perRunMb = Number(envOf(c, 'RAILYARD_SANDBOX_MEMORY_MB')?.value);
      const UNIT_MB: Record<string, number> = { Mi: 1, Gi: 1024 };
      const m = /^(\d+)(Mi|Gi)$/.exec(String(c.resources?.limits?.memory));
      expect(m).not.toBeNull();
      // Otherwise the kernel kills the whole pod, every run in it, before a run meets its own limit.
      expect(Number(m![1]) * UNIT_MB[m![2]!]!).toBeGreaterThanOrEqual(slots * perRunMb);
    });

    test('no pod gets a Kubernetes API token; every process runs as a non-root user without added capabilities', () => {
      const { objects } = render(name);
      for (const d of byKind(objects, 'Deployment')) {
        const pod = d.spec.template.spec;
        expect({ d: d.metadata.name, token: pod.automountServiceAccountToken }).toEqual({
          d: d.metadata.name,
          token: false,
        });
        expect(pod.hostNetwork ?? false).toBe(false);
        expect(pod.securityContext.runAsNonRoot).toBe(true);
        for (const c of containers(d)) {
          expect(c.securityContext.privileged ?? false).toBe(false);
          expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
          expect(c.securityContext.capabilities).toEqual({ drop: ['ALL'] });
        }
      }
    });

    test('the executor has what bubblewrap and pasta need: its own user namespace, an unmasked /proc, the tun device', () => {
      const { objects } = render(name);
      const d = one(objects, 'Deployment', '-executor');
      const pod = d.spec.template.spec;
      const c = mainContainer(d);
      // Kubernetes allows an unmasked /proc only in a pod with a user namespace of its own.
      expect(pod.hostUsers).toBe(false);
      expect(c.securityContext.procMount).toBe('Unmasked');
      expect(c.securityContext.seccompProfile.type).toMatch(/^(Unconfined|Localhost)$/);
      const tun = volumes(d).find((v) => v.hostPath?.path === '/dev/net/tun');
      expect(tun?.hostPath?.type).toBe('CharDevice');
      expect(c.volumeMounts).toEqual(
        expect.arrayContaining([{ name: tun?.name, mountPath: '/dev/net/tun' }]),
      );
      // No other path of the node.
      expect(volumes(d).filter((v) => v.hostPath)).toHaveLength(1);
    });
  });

  test('a render without an image, Temporal or the Secrets fails, naming the value', () => {
    for (const missing of Object.keys(REQUIRED_VALUES)) {
      const set = Object.fromEntries(Object.entries(REQUIRED_VALUES).filter(([k]) => k !== missing));
      expect(() => renderText({ set })).toThrow(new RegExp(`${missing.replace(/\./g, '\\.')} is required`));
    }
  });

  test("the GitHub App needs its Secret; the executor's NetworkPolicy is on by default", () => {
    expect(() =>
      renderText({ set: { ...REQUIRED_VALUES, 'github.enabled': 'true', 'github.appId': '1' } }),
    ).toThrow(/github\.existingSecret is required/);
    const without = parseObjects(renderText({ set: REQUIRED_VALUES }));
    expect(byKind(without, 'NetworkPolicy')).toHaveLength(1);
  });
});
