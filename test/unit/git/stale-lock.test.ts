/**
 * A git process killed mid-update leaves its lock file behind. A lock older than STALE_LOCK_MS inside
 * the repository is removed and the command runs again, so the queue goes on; a young lock (a live
 * writer) is left alone and the command fails as git says. Found by the chaos run: a worker killed
 * while creating a test branch left `refs/heads/railyard-merge/....lock`, and every retry failed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { testBranchName } from '../../../git/names';
import { STALE_LOCK_MS, staleLockOf } from '../../../git/stale-lock';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

describe('stale git locks', () => {
  let fx: GitFixture & { base: string };
  let warn: jest.SpyInstance;

  beforeEach(async () => {
    fx = await createRepoWithMain();
    warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    warn.mockRestore();
    fx.cleanup();
  });

  const build = async (n: number, runId: string) => {
    fx.branchFrom(`pr-${n}`, fx.base);
    const head = fx.commit(`Add f${n}`, { [`f${n}.txt`]: `${n}\n` });
    fx.pushPr(n, head);
    const pr = { number: n, headSha: head };
    const built = await fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha: fx.tip('main'),
      prs: [pr],
      mergeMethod: 'squash',
      branchName: testBranchName(n, runId),
    });
    if (built.kind !== 'built') throw new Error(JSON.stringify(built));
    return { pr, built };
  };
  /** Moves main from its base to `newSha`, landing `pr`. */
  const advanceMain = (pr: { number: number; headSha: string }, newSha: string) =>
    fx.host.advanceTarget({ repo: fx.repo, targetBranch: 'main', expectedSha: fx.base, newSha, prs: [pr] });
  /** Plants `<ref>.lock` in the bare repository, last modified `ageMs` ago. */
  const plantLock = (ref: string, ageMs: number) => {
    const lock = path.join(fx.bare, `${ref}.lock`);
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.writeFileSync(lock, '');
    const at = (Date.now() - ageMs) / 1000;
    fs.utimesSync(lock, at, at);
    return lock;
  };

  it('builds a test branch over a lock a killed process left on its ref, and says so', async () => {
    const lock = plantLock(`refs/heads/${testBranchName(1, 'run-a')}`, STALE_LOCK_MS + 5_000);
    const { built } = await build(1, 'run-a');
    expect(fx.tip(built.branchName)).toBe(built.headSha);
    expect(fs.existsSync(lock)).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`removed ${lock}`));
  });

  it('advances the target over a stale lock on it', async () => {
    const { pr, built } = await build(2, 'run-b');
    plantLock('refs/heads/main', STALE_LOCK_MS * 3);
    await expect(advanceMain(pr, built.headSha)).resolves.toMatchObject({
      kind: 'advanced',
      sha: built.headSha,
    });
    expect(fx.tip('main')).toBe(built.headSha);
  });

  it('leaves a live writer’s young lock alone: the update fails and the ref is unchanged', async () => {
    const { pr, built } = await build(3, 'run-c');
    const lock = plantLock('refs/heads/main', 0);
    await expect(advanceMain(pr, built.headSha)).rejects.toThrow(/main\.lock/);
    expect(fs.existsSync(lock)).toBe(true);
    expect(fx.tip('main')).toBe(fx.base);
    expect(warn).not.toHaveBeenCalled();
  });

  it('names only old regular files inside the repository the command ran in', () => {
    const dir = fs.mkdtempSync(path.join(fx.dir, 'locks-'));
    // "Now" as it will be a minute after the locks below are written.
    const old = Date.now() + STALE_LOCK_MS + 60_000;
    const inside = path.join(dir, 'refs', 'x.lock');
    fs.mkdirSync(path.dirname(inside));
    fs.writeFileSync(inside, '');
    const said = (p: string) => `fatal: Unable to create '${p}': File exists.\n\nAnother git process...`;
    expect(staleLockOf(said(inside), dir, old)).toMatchObject({ path: inside });
    expect(staleLockOf(said(path.join(dir, '.', 'refs', 'x.lock')), dir, old)).toMatchObject({
      path: inside,
    });
    expect(staleLockOf(said(inside), dir, Date.now())).toBeNull(); // young
    expect(staleLockOf(said(path.join(dir, '..', 'elsewhere.lock')), dir, old)).toBeNull(); // outside
    expect(staleLockOf(said(path.join(dir, 'refs', 'gone.lock')), dir, old)).toBeNull(); // gone
    fs.mkdirSync(path.join(dir, 'dir.lock'));
    expect(staleLockOf(said(path.join(dir, 'dir.lock')), dir, old)).toBeNull(); // not a file
    expect(staleLockOf('fatal: not a git repository', dir, old)).toBeNull();
  });
});
