/**
 * The Helm chart (deploy/helm/railyard) as data for its tests: rendered by the pinned helm that
 * scripts/ensure-chart-tools.sh installs into .tools/deploy-venv, validated by the pinned kubernetes-validate in
 * .tools/deploy-venv against Kubernetes' own JSON schemas (shipped in that package: no network), and
 * read back as objects. helm runs with its config, cache and data folders in a temporary one, so nothing
 * of the user's helm (repositories, plugins) takes part.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import type { ToolProbe } from '../../support/required-tool';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const CHART = path.join(ROOT, 'deploy', 'helm', 'railyard');
export const PRODUCTION_VALUES = path.join(ROOT, 'deploy', 'helm', 'examples', 'production.yaml');
export const HELM = path.join(ROOT, '.tools', 'deploy-venv', 'bin', 'helm');
export const KUBERNETES_VALIDATE = path.join(ROOT, '.tools', 'deploy-venv', 'bin', 'kubernetes-validate');
export const INSTALL = 'bash scripts/ensure-chart-tools.sh (npm test runs it)';

/** The oldest Kubernetes the chart supports (Chart.yaml's kubeVersion) and the newest with schemas. */
export const KUBERNETES_VERSIONS = ['1.30.0', '1.37.0'];

/** The values every render needs: the chart has no default for them (image, Temporal, the Secrets). */
export const REQUIRED_VALUES = {
  'image.repository': 'registry.example.com/railyard',
  'temporal.address': 'temporal-frontend.temporal:7233',
  'secrets.existingSecret': 'railyard',
  'executor.credential.existingSecret': 'railyard-executor',
};

export function probe(executable: string, args: string[]): ToolProbe {
  if (!fs.existsSync(executable)) return { kind: 'unavailable', reason: `${executable} does not exist` };
  const r = spawnSync(executable, args, { encoding: 'utf8' });
  return r.status === 0
    ? { kind: 'available' }
    : { kind: 'unavailable', reason: `${executable} ${args.join(' ')} failed: ${r.stderr || r.error}` };
}

const helmHome = fs.mkdtempSync(path.join(os.tmpdir(), 'railyard-helm-'));
const helmEnv = {
  ...process.env,
  HELM_CONFIG_HOME: path.join(helmHome, 'config'),
  HELM_CACHE_HOME: path.join(helmHome, 'cache'),
  HELM_DATA_HOME: path.join(helmHome, 'data'),
};

let valuesFiles = 0;

export interface RenderOptions {
  valuesFiles?: readonly string[];
  /** Values as data (booleans stay booleans), written to a values file. */
  values?: Record<string, unknown>;
  set?: Record<string, string>;
  kubeVersion?: string;
}

/** `helm template`'s output, or throws with helm's message (a `required` value missing, say). */
export function renderText(opts: RenderOptions = {}): string {
  return runHelm(['template', 'ry', CHART, '--namespace', 'railyard'], opts);
}

/** `helm lint --strict` (warnings fail too): its output, or throws with it. */
export function lint(opts: RenderOptions = {}): string {
  return runHelm(['lint', '--strict', CHART], opts);
}

function runHelm(command: string[], opts: RenderOptions): string {
  const args = [...command];
  args.push('--kube-version', opts.kubeVersion ?? KUBERNETES_VERSIONS[0]!);
  for (const f of opts.valuesFiles ?? []) args.push('--values', f);
  if (opts.values) {
    const file = path.join(helmHome, `values-${process.pid}-${++valuesFiles}.yaml`);
    fs.writeFileSync(file, stringify(opts.values));
    args.push('--values', file);
  }
  for (const [k, v] of Object.entries(opts.set ?? {})) args.push('--set-string', `${k}=${v}`);
  const r = spawnSync(HELM, args, { encoding: 'utf8', env: helmEnv, maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`helm ${command[0]} failed: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A rendered object, loosely typed: tests read paths they know. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any };

export function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

export interface Validation {
  status: number | null;
  passed: string[];
  output: string;
}

/**
 * kubernetes-validate --strict (unknown fields are errors) on `text` for `version`: its exit status,
 * the objects it reports as passed (`kind/name`), and its whole output for messages.
 */
export function validate(text: string, version: string): Validation {
  const file = path.join(helmHome, `render-${process.pid}-${Date.now()}.yaml`);
  fs.writeFileSync(file, text);
  const r = spawnSync(KUBERNETES_VALIDATE, ['--strict', '-k', version, file], { encoding: 'utf8' });
  const output = `${r.stdout}${r.stderr}`;
  const passed = [...output.matchAll(/passed for resource (\S+) against/g)].map((m) => m[1]!);
  return { status: r.status, passed, output };
}

export const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);

export function one(objects: K8sObject[], kind: string, nameSuffix: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(nameSuffix));
  if (found.length !== 1) throw new Error(`expected one ${kind} *${nameSuffix}, found ${found.length}`);
  return found[0]!;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

export interface Volume {
  name: string;
  secret?: { secretName: string };
  hostPath?: { path: string; type?: string };
}

export interface VolumeMount {
  name: string;
  mountPath: string;
}

export interface Container {
  name: string;
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: VolumeMount[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [field: string]: any;
}

/** A Deployment's pod volumes. */
export const volumes = (deployment: K8sObject): Volume[] =>
  (deployment.spec.template.spec.volumes ?? []) as Volume[];

/** Every container of a Deployment's pod, init containers included. */
export function containers(deployment: K8sObject): Container[] {
  const pod = deployment.spec.template.spec;
  return [...(pod.initContainers ?? []), ...pod.containers] as Container[];
}

/** A container's env as plain values, a Secret reference standing in for its value. */
export function envValues(container: Container, secretStandIn: (ref: string) => string) {
  return Object.fromEntries(
    (container.env ?? []).map((e) => [
      e.name,
      e.value ?? secretStandIn(`${e.valueFrom?.secretKeyRef?.name}/${e.valueFrom?.secretKeyRef?.key}`),
    ]),
  );
}

export const kubeVersionOfChart = (): string =>
  /^kubeVersion:\s*'?([^'\n]+)'?$/m.exec(fs.readFileSync(path.join(CHART, 'Chart.yaml'), 'utf8'))?.[1] ?? '';

export const helmVersion = (): string =>
  execFileSync(HELM, ['version', '--template', '{{.Version}}'], { encoding: 'utf8', env: helmEnv });
