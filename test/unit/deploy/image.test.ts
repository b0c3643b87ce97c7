/**
 * The runtime image against what the compose file and the compiled code expect of it. It runs as
 * `node`, so every named volume mounted into a service built from the Dockerfile must be a folder the
 * image creates and gives to `node` (a new named volume copies that ownership; a folder the image lacks
 * is created root-owned). Paths the code resolves relative to its own module must exist in dist/.
 */
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../../stores/migrate';
import { finalStage, loadCompose, parseVolume, readText, ROOT, type Instruction } from './deploy-files';

const stage = finalStage();
const userIndex = stage.findIndex((i) => i.keyword === 'USER');
const workdir = stage.filter((i) => i.keyword === 'WORKDIR').pop()?.args ?? '/';

/** Paths a RUN creates (`mkdir`) and gives to node (`chown [-R] node[:node]`), before `USER node`. */
function preparedFolders(instructions: Instruction[]) {
  const made: string[] = [];
  const owned: { path: string; recursive: boolean }[] = [];
  for (const { args } of instructions) {
    for (const cmd of args.split(/&&|;/).map((c) => c.trim().split(/\s+/))) {
      const [bin, ...rest] = cmd;
      const flags = rest.filter((a) => a.startsWith('-'));
      const operands = rest.filter((a) => !a.startsWith('-'));
      if (bin === 'mkdir') made.push(...operands);
      if (bin === 'chown' && /^(node|1000)(:(node|1000))?$/.test(operands[0] ?? '')) {
        const recursive = flags.some((f) => f === '-R' || f === '--recursive');
        owned.push(...operands.slice(1).map((p) => ({ path: p, recursive })));
      }
    }
  }
  return { made, owned };
}

const within = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

test('the runtime image has every tool an executor needs to isolate a run: bubblewrap, passt and iproute2', () => {
  // Without iproute2 (bookworm-slim has no ip) pasta runs could not get their address rules, so
  // network-on runs shared the container's network, the API's included (issue 24); now they are refused.
  const installed = stage
    .filter((i) => i.keyword === 'RUN')
    .flatMap((i) => i.args.split(/&&|;/))
    .map((c) => c.trim().split(/\s+/))
    .filter(([bin, verb]) => bin === 'apt-get' && verb === 'install')
    .flatMap((c) => c.slice(2).filter((a) => !a.startsWith('-')));
  expect(installed).toEqual(expect.arrayContaining(['bubblewrap', 'passt', 'iproute2']));
});

test('the runtime image runs as node', () => {
  expect(userIndex).toBeGreaterThan(0);
  expect(stage.filter((i) => i.keyword === 'USER').map((i) => i.args)).toEqual(['node']);
});

test('every named volume of a built service is created in the image and owned by node', () => {
  const compose = loadCompose();
  const named = Object.keys(compose.volumes ?? {});
  const runs = stage.slice(0, userIndex).filter((i) => i.keyword === 'RUN');
  const { made, owned } = preparedFolders(runs);
  const mounts = Object.values(compose.services)
    .filter((s) => s.build !== undefined)
    .flatMap((s) => (s.volumes ?? []).map((v) => parseVolume(v, named)))
    .filter((v) => v.named);
  expect(mounts.length).toBeGreaterThan(0);
  for (const { target } of mounts) {
    expect({ target, created: made.some((m) => within(m, target)) }).toEqual({ target, created: true });
    const chowned = owned.some((o) => o.path === target || (o.recursive && within(target, o.path)));
    expect({ target, chowned }).toEqual({ target, chowned: true });
  }
});

test('migrations are copied to where the compiled migration runner looks for them', () => {
  // dist/ mirrors the source tree, so a path resolved from __dirname lands at the same place in dist/.
  const outDir = /--outDir\s+(\S+)/.exec(readText('Dockerfile'))?.[1] ?? 'dist';
  const expected = path.posix.join(workdir, outDir, path.relative(ROOT, MIGRATIONS_DIR));
  const copies = stage
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
    .map((i) => i.args.split(/\s+/))
    .filter(([src]) => src === 'migrations')
    .map(([, dest]) => path.posix.resolve(workdir, dest!));
  expect(copies).toContain(expected);
});

test('the build context leaves out local state and secrets', () => {
  const ignored = readText('.dockerignore')
    .split('\n')
    .map((l) => l.trim());
  for (const p of ['.env', '.data', '.tools', 'node_modules', 'dist']) expect(ignored).toContain(p);
});

test('the Dockerfile uses glibc base images (core-bridge has no musl build)', () => {
  const bases = [...readText('Dockerfile').matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
  expect(bases.length).toBeGreaterThan(0);
  for (const b of bases) expect(b).not.toMatch(/alpine/);
});
