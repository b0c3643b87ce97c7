/**
 * Attack suite of the test-run sandbox (issue 17): real checkouts from the real local git host, real
 * bwrap, the real PostgreSQL and Temporal of `npm test`. Each command tries one attack and exits 0
 * when it was blocked ("blocked"), 1 when it worked ("BREACH"); the run reports that verdict normally,
 * and afterwards nothing of the attacker survives.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCommandRunner, type CommandRunnerOptions } from '../../../executor/command-runner';
import { DEFAULT_SANDBOX, type SandboxSettings } from '../../../executor/sandbox';
import { probeSandbox } from '../../../executor/sandbox-probe';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';
import { requireTestEnv } from '../../support/env';
import { INSTALL, requireTool } from '../../support/required-tool';

const CANARY = `canary-${process.pid}-secret`;
// Missing bwrap fails this suite under CI, and skips it loudly elsewhere (required-tool.ts).
const available = requireTool({
  tool: 'bwrap',
  probe: probeSandbox('bwrap'),
  install: INSTALL.bwrap,
  neededBy: 'the sandbox attack suite (sandbox-attacks.test.ts)',
});
const maybe = available ? describe : describe.skip;

maybe('sandboxed test runs: attacks', () => {
  let fx: GitFixture & { base: string };
  let other: GitFixture & { base: string };
  let scratch: string;
  let dataDir: string;
  let otherCheckout: string;
  let runs = 0;

  beforeAll(async () => {
    fx = await createRepoWithMain();
    other = await createRepoWithMain({ host: 'local', owner: 'globex', name: 'app' });
    // A layout like npm start's: <project>/.data/{dev-api-key,page-token-secret,work/...}.
    scratch = mkdtempSync(join(tmpdir(), 'railyard-attacks-'));
    chmodSync(scratch, 0o711); // searchable by the sandbox's unprivileged user when tests run as root
    dataDir = join(scratch, '.data');
    mkdirSync(join(dataDir, 'work', 'checkouts', 'other-run', 'checkout'), { recursive: true });
    otherCheckout = join(dataDir, 'work', 'checkouts', 'other-run', 'checkout');
    writeFileSync(join(otherCheckout, 'test.sh'), 'exit 0\n');
    writeFileSync(join(dataDir, 'dev-api-key'), CANARY);
    writeFileSync(join(dataDir, 'page-token-secret'), CANARY);
    process.env.RAILYARD_PAGE_TOKEN_SECRET = CANARY;
  });
  afterAll(() => {
    delete process.env.RAILYARD_PAGE_TOKEN_SECRET;
    fx.cleanup();
    other.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  const attack = async (
    command: string,
    overrides: Partial<SandboxSettings> = {},
    timeoutMs = 20_000,
    limits: Partial<CommandRunnerOptions> = {},
  ) => {
    runs += 1;
    const runner = createCommandRunner({
      gitHost: fx.host,
      workRoot: join(dataDir, 'work', 'checkouts'),
      logRoot: join(dataDir, 'work', 'logs'),
      killGraceMs: 500,
      maxLogBytes: 1024 * 1024,
      maxDiskBytes: 20 * 1024 ** 2,
      diskCheckIntervalMs: 200,
      ...limits,
      sandbox: {
        ...DEFAULT_SANDBOX,
        bwrap: 'bwrap',
        // These attacks are on files and processes, with the host's network as before the refusal of
        // unisolated runs (issue 24); what a run's network reaches is sandbox-network.test.ts's.
        unisolatedNetwork: { kind: 'host', reason: 'the attack suite runs without pasta' },
        maxProcesses: 64,
        maxFileBytes: 64 * 1024 * 1024,
        tmpBytes: 16 * 1024 * 1024,
        ...overrides,
      },
    });
    const result = await runner.run({
      runId: `attack-${runs}`,
      repo: fx.repo,
      branchName: 'main',
      headSha: fx.base,
      command,
      timeoutMs,
    });
    const log = readFileSync(result.logPath, 'utf8');
    // The header repeats the command; what the command printed is every line not starting with "# ".
    const output = log.split('\n').filter((line) => !line.startsWith('# ') && !line.startsWith('#  '));
    expect(output.join('\n')).not.toContain(CANARY);
    expect(output.join('\n')).not.toContain('BREACH');
    return { result, log };
  };
  const blocked = (attempt: string) => `if ${attempt}; then echo BREACH; exit 1; fi; echo blocked`;

  it("cannot read the worker's environment", async () => {
    const { result, log } = await attack(
      'cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | tr "\\0" "\\n"; env; ls /proc | grep -c "^[0-9]"',
    );
    expect(result.outcome).toBe('passed');
    expect(log).not.toMatch(/DATABASE_URL|TEMPORAL_|RAILYARD_PAGE_TOKEN_SECRET/);
  });

  it('cannot read the data folder, the git root or another checkout, and runs as no root', async () => {
    const paths = [join(dataDir, 'dev-api-key'), join(dataDir, 'page-token-secret'), other.bare, scratch];
    const { result } = await attack(
      [
        ...paths.map((p) => blocked(`cat ${p} 2>/dev/null || ls ${p} 2>/dev/null`)),
        blocked('cat ../../../../.data/dev-api-key 2>/dev/null'),
        blocked(`echo pwned > ${join(otherCheckout, 'test.sh')} 2>/dev/null`),
        blocked('[ "$(id -u)" = 0 ]'),
      ].join('\n'),
    );
    expect(result.outcome).toBe('passed');
    expect(readFileSync(join(otherCheckout, 'test.sh'), 'utf8')).toBe('exit 0\n');
  });

  it("cannot move a target branch: the checkout borrows no repository's objects", async () => {
    const before = [fx.tip('main'), other.tip('main')];
    const { result } = await attack(
      [
        blocked('test -e .git/objects/info/alternates'),
        blocked(`git --git-dir=${fx.bare} update-ref refs/heads/main HEAD 2>/dev/null`),
        blocked(`git --git-dir=${other.bare} update-ref refs/heads/main ${other.base} 2>/dev/null`),
        'git log --oneline -1 >/dev/null', // the checkout itself is a working repository
      ].join('\n'),
    );
    expect(result.outcome).toBe('passed');
    expect([fx.tip('main'), other.tip('main')]).toEqual(before);
  });

  it('cannot reach PostgreSQL or Temporal with the network off', async () => {
    const pg = new URL(requireTestEnv('TEST_DATABASE_URL'));
    const [tHost, tPort] = requireTestEnv('TEST_TEMPORAL_ADDRESS').split(':');
    const tcp = (host: string, port: string) =>
      `timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null`;
    const { result } = await attack(
      [blocked(tcp(pg.hostname, pg.port || '5432')), blocked(tcp(tHost ?? '', tPort ?? ''))].join('\n'),
      { network: false },
    );
    expect(result.outcome).toBe('passed');
  });

  it('leaves no setsid daemon behind', async () => {
    const marker = String(300_000 + process.pid);
    const { result } = await attack(
      `setsid sleep ${marker} </dev/null >/dev/null 2>&1 & disown; echo started`,
    );
    expect(result.outcome).toBe('passed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  });

  it('a fork bomb hits the process limit and ends at the timeout', async () => {
    const { result } = await attack('bomb() { bomb | bomb & }; bomb; sleep 60', {}, 4_000);
    expect(result.outcome).toBe('timeout');
    expect(processesRunning('bomb')).toEqual([]);
  });

  // Every run starts as the same host uid (nobody), and RLIMIT_NPROC is per uid: it holds per run
  // because the kernel counts a user namespace's processes against the limit its creator had (none),
  // and the run's own `ulimit -u` applies inside its namespace only.
  it('a fork bomb does not starve a concurrent run of the same host user', async () => {
    const bomb = attack('bomb() { bomb | bomb & }; bomb; sleep 60', {}, 8_000);
    await new Promise((r) => setTimeout(r, 2_000));
    // Sixteen processes at once while the bomb holds its whole budget of 64.
    const { result, log } = await attack('for i in $(seq 16); do sleep 0.2 & done; wait; echo neighbour-ok');
    expect(result.outcome).toBe('passed');
    expect(log).toContain('neighbour-ok');
    expect((await bomb).result.outcome).toBe('timeout');
    expect(processesRunning('bomb')).toEqual([]);
  }, 30_000);

  // The file-size limit and the /tmp size alone: the checkout quota (20 MiB here, checked every
  // 200 ms) is lifted above the 64 MiB a blocked dd leaves behind, or it would fail the run whenever a
  // check lands before the command ends (it did on a loaded machine). The quota has its own test below.
  it('cannot fill the disk: file size and /tmp are bounded', async () => {
    const { result, log } = await attack(
      [
        blocked('dd if=/dev/zero of=big bs=1M count=200 2>/dev/null'),
        blocked('dd if=/dev/zero of=/tmp/big bs=1M count=100 2>/dev/null'),
        // Another file beside it gets no more room: the limit is /tmp's, not one file's.
        blocked('dd if=/dev/zero of=/tmp/more bs=1M count=20 2>/dev/null'),
        'echo "checkout file: $(stat -c %s big) bytes"',
        'echo "tmp files: $(cat /tmp/big /tmp/more | wc -c) bytes"',
      ].join('\n'),
      {},
      20_000,
      { maxDiskBytes: 1024 ** 3 },
    );
    expect(result.outcome).toBe('passed');
    // dd stopped at RLIMIT_FSIZE (64 MiB), not at the 200 MiB it asked for.
    expect(log).toContain(`checkout file: ${64 * 1024 * 1024} bytes`);
    // /tmp (a 16 MiB tmpfs here, bwrap --size) holds at most its size, whatever the files.
    const tmp = Number(/^tmp files: (\d+) bytes$/m.exec(log)?.[1]);
    expect(tmp).toBeGreaterThan(0);
    expect(tmp).toBeLessThanOrEqual(16 * 1024 * 1024);
  });

  it('cannot fill the disk with many files under the size limit: the checkout quota stops the run', async () => {
    const { result, log } = await attack(
      'i=0; while true; do i=$((i+1)); head -c 1048576 /dev/urandom > "f$i" || exit 0; done',
    );
    expect(result.outcome).toBe('failed');
    expect(log).toContain('# failed: stopped: checkout over its disk quota (20 MiB)');
    expect(readdirSync(join(dataDir, 'work', 'checkouts'))).toEqual(['other-run']);
  });

  it('cannot hide files from the quota, nor outlive removal, with chmod 000 and a tree past PATH_MAX', async () => {
    const { result, log } = await attack(
      [
        // Unreadable to a worker that is not root (root reads it, and counts it).
        'mkdir hidden && head -c 1048576 /dev/urandom > hidden/f && chmod 000 hidden',
        'for i in $(seq 150); do mkdir x$(printf "%040d" 0) && cd x*; done; sleep 30',
      ].join('\n'),
    );
    expect(result.outcome).toBe('failed');
    expect(log).toContain('# failed: stopped: checkout over its disk quota (');
    expect(readdirSync(join(dataDir, 'work', 'checkouts'))).toEqual(['other-run']);
  });

  it('a run without a testing timeout ends at the executor maximum', async () => {
    const marker = String(400_000 + process.pid);
    const { result, log } = await attack(`sleep ${marker} & wait`, {}, 0, { maxRunMs: 1_000 });
    expect(result.outcome).toBe('timeout');
    expect(result.durationMs).toBeLessThan(5_000);
    expect(log).toContain("# timeout: stopped at the executor's maximum run time (1 s)");
    expect(processesRunning(`sleep ${marker}`)).toEqual([]);
  });

  it('a 1 GiB log is cut at the cap, says so, and fails the run', async () => {
    const { result, log } = await attack('head -c 1073741824 /dev/zero | tr "\\0" "A"');
    expect(result.outcome).toBe('failed');
    expect(log).toContain('the log reached its limit of 1048576 bytes');
    expect(log.length).toBeLessThan(1024 * 1024 + 4096);
  });

  it('runs of the repository still pass afterwards, and no checkout is left', async () => {
    const { result } = await attack('git log --oneline -1');
    expect(result.outcome).toBe('passed');
    expect(readdirSync(join(dataDir, 'work', 'checkouts'))).toEqual(['other-run']);
  });
});

/** Host processes whose command line contains `needle` (the sandbox's PID namespace is gone). */
function processesRunning(needle: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(needle) && Number(pid) !== process.pid) found.push(`${pid} ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
