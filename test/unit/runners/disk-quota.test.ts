/**
 * The checkout's disk quota (executor/disk-quota.ts) on real folders: the walk counts what
 * `du` counts, stops at each of its bounds, never follows links, and the watch reports the first
 * breach once and stops cleanly. Every case runs as root too: the walker that must not be root runs as
 * nobody then.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  describeBreach,
  measureTree,
  watchDiskQuota,
  type QuotaBreach,
  type TreeLimits,
  type TreeUsage,
} from '../../../executor/disk-quota';
import { DEFAULT_SANDBOX } from '../../../executor/sandbox';

const MiB = 1024 ** 2;
const wide: TreeLimits = { maxBytes: 1024 ** 4, maxEntries: 1_000_000, maxDepth: 128 };
const asRoot = process.getuid?.() === 0;
/** The user a root worker runs the sandbox as (DEFAULT_SANDBOX.runAs). */
const NOBODY = DEFAULT_SANDBOX.runAs;
const PROJECT = join(__dirname, '..', '..', '..');

/**
 * measureTree by a walker that is not root: this process, or, when tests run as root, a child process
 * running as nobody. The child starts as root, loads the module, then drops to nobody's uid and gid
 * (and no groups) before it walks: started as nobody it could not read the project when the project
 * lives in a private folder (a fresh clone under a 0700 temp folder, as CI makes).
 */
async function measureUnprivileged(tree: string, limits: TreeLimits): Promise<TreeUsage> {
  if (!asRoot) return measureTree(tree, limits);
  const script = [
    "import('./executor/disk-quota.ts').then(async (m) => {",
    '  const [tree, limits, uid, gid] = process.argv.slice(1);',
    '  process.setgroups([]);',
    '  process.setgid(Number(gid));',
    '  process.setuid(Number(uid));',
    '  const usage = await (m.measureTree ?? m.default.measureTree)(tree, JSON.parse(limits));',
    '  process.stdout.write(JSON.stringify(usage));',
    '});',
  ].join('\n');
  const loader = typeof register === 'function' ? '--import' : '--loader';
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [loader, 'tsx', '-e', script, tree, JSON.stringify(limits), String(NOBODY.uid), String(NOBODY.gid)],
    { cwd: PROJECT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
  );
  return JSON.parse(stdout) as TreeUsage;
}

describe('disk quota', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'railyard-quota-'));
  });
  afterEach(() => {
    execFileSync('chmod', ['-R', 'u+rwX', root]);
    execFileSync('rm', ['-rf', root]);
  });

  /** `count` files of `bytes` random bytes each (random: no file system compresses them away). */
  const fill = (dir: string, count: number, bytes: number) => {
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < count; i += 1)
      execFileSync('dd', ['if=/dev/urandom', `of=${join(dir, `f${i}`)}`, `bs=${bytes}`, 'count=1'], {
        stdio: 'ignore',
      });
  };
  const empties = (dir: string, count: number) => {
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < count; i += 1) writeFileSync(join(dir, `e${i}`), '');
  };

  it('counts the allocated bytes of every entry, as du does, and the entries', async () => {
    fill(join(root, 'a', 'b'), 3, 100_000);
    empties(join(root, 'c'), 10);
    symlinkSync('a', join(root, 'link'));
    const du = Number(execFileSync('du', ['-s', '-B1', root], { encoding: 'utf8' }).split('\t')[0]);
    expect(await measureTree(root, wide)).toEqual({
      kind: 'within',
      bytes: du,
      entries: 3 + 1 + 1 + 10 + 1 + 1,
    });
  });

  it('counts what a sparse file occupies, not its length', async () => {
    writeFileSync(join(root, 'sparse'), '');
    truncateSync(join(root, 'sparse'), 1024 ** 3);
    const usage = await measureTree(root, wide);
    expect(usage).toMatchObject({ kind: 'within', entries: 1 });
    expect(usage.kind === 'within' && usage.bytes).toBeLessThan(MiB);
  });

  it('never follows links, to folders or files outside', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'railyard-quota-outside-'));
    try {
      fill(outside, 4, MiB);
      symlinkSync(outside, join(root, 'dir-link'));
      symlinkSync(join(outside, 'f0'), join(root, 'file-link'));
      symlinkSync('/', join(root, 'root-link'));
      const usage = await measureTree(root, { ...wide, maxBytes: MiB });
      expect(usage).toMatchObject({ kind: 'within', entries: 3 });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('stops counting once the bytes pass the quota', async () => {
    fill(join(root, 'many'), 12, MiB);
    const usage = await measureTree(root, { ...wide, maxBytes: 3 * MiB });
    expect(usage.kind).toBe('over_bytes');
    expect(usage.kind === 'over_bytes' && usage.bytes).toBeGreaterThan(3 * MiB);
  });

  it('stops after maxEntries entries, however many the folder holds', async () => {
    empties(join(root, 'flat'), 3_000);
    const usage = await measureTree(root, { ...wide, maxEntries: 500 });
    expect(usage.kind).toBe('over_entries');
    // One batch of names past the bound at most: the rest of the folder was never listed.
    expect(usage.kind === 'over_entries' && usage.entries).toBeLessThanOrEqual(500 + 32);
  });

  it('stops at folders nested deeper than maxDepth', async () => {
    mkdirSync(join(root, ...Array.from({ length: 12 }, () => 'd')), { recursive: true });
    expect((await measureTree(root, { ...wide, maxDepth: 12 })).kind).toBe('within');
    expect((await measureTree(root, { ...wide, maxDepth: 11 })).kind).toBe('too_deep');
  });

  it('calls a tree it cannot reach unreadable: a path past PATH_MAX', async () => {
    // mkdir relative to the deepest folder, as a command inside its checkout can.
    execFileSync('bash', ['-c', 'for i in $(seq 150); do mkdir x$(printf "%040d" 0) && cd x*; done'], {
      cwd: root,
    });
    expect(await measureTree(root, { ...wide, maxDepth: 1_000 })).toEqual({
      kind: 'unreadable',
      code: 'ENAMETOOLONG',
    });
  });

  it('calls a folder the command made unreadable unreadable; a root walker counts it', async () => {
    fill(join(root, 'hidden'), 2, MiB);
    // The tree is the command's: as root, the sandbox's user (nobody) owns it, as in a real run.
    if (asRoot) execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, root]);
    // The same walker reads the tree while the folder is readable: what follows is the folder's mode.
    expect(await measureUnprivileged(root, wide)).toMatchObject({ kind: 'within', entries: 3 });
    chmodSync(join(root, 'hidden'), 0o000);
    expect(await measureUnprivileged(root, wide)).toEqual({ kind: 'unreadable', code: 'EACCES' });
    // Root reads every folder whatever its mode: hiding a folder does not hide it from a root worker's quota.
    if (asRoot) {
      expect(await measureTree(root, wide)).toMatchObject({ kind: 'within', entries: 3 });
      expect((await measureTree(root, { ...wide, maxBytes: MiB })).kind).toBe('over_bytes');
    }
  });

  it('reads a root that is gone as empty, and ends early when aborted', async () => {
    expect(await measureTree(join(root, 'missing'), wide)).toEqual({ kind: 'within', bytes: 0, entries: 0 });
    empties(root, 100);
    expect(await measureTree(root, { ...wide, signal: AbortSignal.abort() })).toEqual({ kind: 'aborted' });
  });

  it('watches while files are written and reports the first breach once', async () => {
    const breaches: QuotaBreach[] = [];
    const watch = watchDiskQuota(root, { maxBytes: 2 * MiB, maxEntries: 1_000, intervalMs: 20 }, (b) =>
      breaches.push(b),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(breaches).toEqual([]);
    fill(root, 3, MiB);
    const deadline = Date.now() + 3_000;
    while (breaches.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await watch.stop();
    expect(breaches.map((b) => b.kind)).toEqual(['over_bytes']);
  });

  it('stops watching without a breach', async () => {
    const breaches: QuotaBreach[] = [];
    const watch = watchDiskQuota(root, { maxBytes: MiB, maxEntries: 10, intervalMs: 10 }, (b) =>
      breaches.push(b),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await watch.stop();
    fill(root, 2, MiB);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(breaches).toEqual([]);
  });

  it('describes each breach in plain words, without names from the checkout', () => {
    const quota = { maxBytes: 20 * MiB, maxEntries: 1_000 };
    expect(describeBreach({ kind: 'over_bytes', bytes: 21 * MiB, entries: 3 }, quota)).toBe(
      'checkout over its disk quota (20 MiB)',
    );
    expect(describeBreach({ kind: 'over_entries', bytes: 0, entries: 1_001 }, quota)).toBe(
      'checkout over its disk quota (more than 1000 files and folders)',
    );
    expect(describeBreach({ kind: 'too_deep', bytes: 0, entries: 200 }, quota)).toBe(
      'checkout over its disk quota (folders nested more than 128 deep)',
    );
    expect(describeBreach({ kind: 'unreadable', code: 'EACCES' }, quota)).toBe(
      'checkout over its disk quota (part of it cannot be measured: EACCES)',
    );
  });
});
