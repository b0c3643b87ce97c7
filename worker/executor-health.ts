/**
 * The executor's health endpoint (issue 17): GET /livez (the process answers) and GET /readyz (it takes
 * jobs from the API, issue 24), each saying how test commands are isolated — `bubblewrap
 * <version>` or `UNSANDBOXED`, whether their network is their own (or network-on runs are refused,
 * and why: no pasta or ip, issue 24), and whether their memory, processes
 * and CPU are limited per run (cgroup v2) or per process only, and why (issue 24) — so an operator and
 * a load balancer see an unsandboxed or unlimited executor without reading logs.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { describeLimits, probeRunCgroups, type RunLimits } from '../executor/run-cgroup';
import { networkKind, type SandboxSettings } from '../executor/sandbox';

export interface ExecutorHealth {
  /** The API's origin it takes jobs from, and the name its credential was issued to. */
  api: string;
  name: string;
  slots: number;
  /** `bubblewrap 0.8.0`, or `UNSANDBOXED` (RAILYARD_EXECUTOR_UNSANDBOXED=1). */
  sandbox: string;
  /**
   * Network-on runs: `isolated` (pasta: public addresses only), `refused` (they cannot be isolated
   * here), `shared` (this machine's network: allowed by the operator, or unsandboxed); `off`: none.
   */
  network: 'isolated' | 'refused' | 'shared' | 'off';
  /** Why network-on runs are not isolated (`refused`, `shared`): the missing tool. */
  networkReason?: string;
  /**
   * How a run's memory, processes and CPU are limited (executor/run-cgroup.ts): per run with a delegated
   * cgroup v2 one, else per process only, and why. Absent: probed here (read only).
   */
  limits?: RunLimits;
  running: () => boolean;
}

/**
 * How network-on runs go under `sandbox` (null: unsandboxed, which share this machine's network), and
 * why they are not isolated when they are not (the probe's reason, naming the missing tool).
 */
export function networkHealth(
  sandbox: SandboxSettings | null,
): Pick<ExecutorHealth, 'network' | 'networkReason'> {
  if (!sandbox) return { network: 'shared' };
  const kind = networkKind(sandbox);
  const reason = sandbox.unisolatedNetwork ? { networkReason: sandbox.unisolatedNetwork.reason } : {};
  switch (kind) {
    case 'none':
      return { network: 'off' };
    case 'isolated':
      return { network: 'isolated' };
    case 'refused':
      return { network: 'refused', ...reason };
    case 'host':
      return { network: 'shared', ...reason };
    default: {
      const never: never = kind;
      throw new Error(`unknown network kind ${String(never)}`);
    }
  }
}

export function buildExecutorHealth(health: ExecutorHealth): FastifyInstance {
  const app = Fastify({ logger: false });
  const limits = health.limits ?? probeRunCgroups();
  const body = () => ({
    status: health.running() ? 'ready' : 'starting',
    api: health.api,
    name: health.name,
    slots: health.slots,
    sandbox: health.sandbox,
    network: health.network,
    ...(health.networkReason ? { networkReason: health.networkReason } : {}),
    limits: health.sandbox === 'UNSANDBOXED' ? 'none (UNSANDBOXED)' : describeLimits(limits),
  });
  app.get('/livez', () => ({ status: 'live' }));
  app.get('/readyz', async (_request, reply) => reply.code(health.running() ? 200 : 503).send(body()));
  return app;
}
