/**
 * fakehub's git side on real git: clone, fetch and push over smart HTTP with an installation token
 * (401 without one or with an expired one), `refs/pull/<n>/head` kept by the fake and refused to
 * pushes, protected branches refusing with GitHub's GH006 text, and `--force-with-lease`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitAs, useFakeHub, type TokenGit } from '../../support/fakehub';

const hub = useFakeHub();
let work: string;
let token: string;
let git: TokenGit;
let installationId: number;

async function ok(args: string[], cwd = work): Promise<string> {
  const result = await git(args, { cwd });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}

async function commit(file: string, content: string, cwd = work): Promise<string> {
  writeFileSync(join(cwd, file), content);
  await ok(['add', file], cwd);
  await ok(['commit', '-q', '-m', `change ${file}`], cwd);
  return ok(['rev-parse', 'HEAD'], cwd);
}

beforeAll(async () => {
  const installation = hub().createInstallation({ account: 'acme' });
  installationId = installation.id;
  await hub().createRepository({ installationId, owner: 'acme', name: 'widgets' });
  token = hub().installationToken(installationId);
  git = gitAs(token);
  work = mkdtempSync(join(tmpdir(), 'fakehub-work-'));
  await ok(['clone', '-q', hub().gitUrl('acme', 'widgets'), work], tmpdir());
  await commit('README.md', 'hello\n');
  await ok(['push', '-q', 'origin', 'HEAD:refs/heads/main']);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('smart HTTP with an installation token', () => {
  it('clones, fetches and pushes; the tip is the pushed commit', async () => {
    const sha = await commit('a.txt', 'a\n');
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/main']);
    const other = mkdtempSync(join(tmpdir(), 'fakehub-clone-'));
    try {
      await ok(['clone', '-q', hub().gitUrl('acme', 'widgets'), other], tmpdir());
      expect(await ok(['rev-parse', 'HEAD'], other)).toBe(sha);
      await ok(['fetch', '-q', 'origin'], other);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('answers 401 without a token, with an unknown one and with an expired one', async () => {
    for (const anonymous of [gitAs(null), gitAs('ghs_notatoken')]) {
      const result = await anonymous(['ls-remote', hub().gitUrl('acme', 'widgets')], { cwd: tmpdir() });
      expect(result.exitCode).not.toBe(0);
      expect(result.stderr).toMatch(/Authentication failed|could not read Username|401/);
    }
    const shortLived = hub().installationToken(installationId);
    hub().knobs.expireTokens();
    const expired = await gitAs(shortLived)(['ls-remote', hub().gitUrl('acme', 'widgets')], {
      cwd: tmpdir(),
    });
    expect(expired.exitCode).not.toBe(0);
    const unauthorised = hub().requests.filter((r) => r.kind === 'git' && r.status === 401);
    expect(unauthorised.length).toBeGreaterThanOrEqual(3);
    // A fresh token works again, and no request record carries a token.
    token = hub().installationToken(installationId);
    git = gitAs(token);
    expect((await git(['ls-remote', hub().gitUrl('acme', 'widgets')], { cwd: tmpdir() })).exitCode).toBe(0);
    expect(JSON.stringify(hub().requests)).not.toContain(shortLived);
  });

  it('keeps refs/pull/<n>/head itself: it follows the head branch and refuses pushes', async () => {
    await ok(['checkout', '-q', '-b', 'feature/x', 'origin/main']);
    const first = await commit('x.txt', '1\n');
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/feature/x']);
    const pr = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'feature/x' });
    await ok(['fetch', '-q', 'origin', `+refs/pull/${pr.number}/head:refs/remotes/pr/${pr.number}`]);
    expect(await ok(['rev-parse', `refs/remotes/pr/${pr.number}`])).toBe(first);

    const second = await commit('x.txt', '2\n');
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/feature/x']);
    expect(hub().pullRequest('acme', 'widgets', pr.number).headSha).toBe(second);
    await ok(['fetch', '-q', 'origin', `+refs/pull/${pr.number}/head:refs/remotes/pr/${pr.number}`]);
    expect(await ok(['rev-parse', `refs/remotes/pr/${pr.number}`])).toBe(second);

    const refused = await git(['push', 'origin', `HEAD:refs/pull/${pr.number}/head`], { cwd: work });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('deny updating a hidden ref');
    await ok(['checkout', '-q', 'main']);
  });

  it('marks a PR merged when a push makes its head reachable from the base', async () => {
    await ok(['fetch', '-q', 'origin']);
    await ok(['checkout', '-q', '-B', 'ff', 'origin/main']);
    const head = await commit('ff.txt', 'ff\n');
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/ff']);
    const pr = await hub().openPullRequest({ owner: 'acme', repo: 'widgets', head: 'ff' });
    await ok(['push', '-q', 'origin', `${head}:refs/heads/main`]);
    const after = hub().pullRequest('acme', 'widgets', pr.number);
    expect(after).toMatchObject({
      state: 'closed',
      merged: true,
      mergeCommitSha: head,
      mergedBy: 'railyard-test[bot]',
    });
    await ok(['checkout', '-q', 'main']);
    await ok(['reset', '-q', '--hard', head]);
  });
});

describe('protected branches', () => {
  afterEach(() => hub().setProtection('acme', 'widgets', 'main', null));

  async function tip(): Promise<string> {
    await ok(['fetch', '-q', 'origin']);
    return ok(['rev-parse', 'origin/main']);
  }

  it('refuses a non-fast-forward push with GH006', async () => {
    const base = await tip();
    hub().setProtection('acme', 'widgets', 'main', {});
    await ok(['checkout', '-q', '-B', 'rewrite', `${base}~1`]);
    await commit('rewrite.txt', 'r\n');
    const result = await git(['push', '--force', 'origin', 'HEAD:refs/heads/main'], { cwd: work });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(
      'remote: error: GH006: Protected branch update failed for refs/heads/main.',
    );
    expect(result.stderr).toContain('remote: error: Cannot force-push to this branch');
    expect(await tip()).toBe(base);
  });

  it('refuses direct updates to a restricted branch unless the App bypasses it', async () => {
    const base = await tip();
    hub().setProtection('acme', 'widgets', 'main', { restrictUpdates: true });
    await ok(['checkout', '-q', '-B', 'next', base]);
    const next = await commit('next.txt', 'n\n');
    const refused = await git(['push', 'origin', 'HEAD:refs/heads/main'], { cwd: work });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('GH006: Protected branch update failed for refs/heads/main.');
    expect(refused.stderr).toContain("You're not authorized to push to this branch.");

    hub().setProtection('acme', 'widgets', 'main', { restrictUpdates: true, bypassAppIds: [hub().app.id] });
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/main']);
    expect(await tip()).toBe(next);
  });

  it('refuses a commit without its required status check, accepts it once the check succeeds', async () => {
    const base = await tip();
    hub().setProtection('acme', 'widgets', 'main', { requiredStatusChecks: ['ci/test'] });
    await ok(['checkout', '-q', '-B', 'checked', base]);
    const sha = await commit('checked.txt', 'c\n');
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/checked']);
    const refused = await git(['push', 'origin', 'HEAD:refs/heads/main'], { cwd: work });
    expect(refused.stderr).toContain('remote: error: Required status check "ci/test" is expected.');
    hub().setCheckRun('acme', 'widgets', sha, { name: 'ci/test', conclusion: 'success' });
    await ok(['push', '-q', 'origin', 'HEAD:refs/heads/main']);
    expect(await tip()).toBe(sha);
  });

  it('refuses deleting a protected branch', async () => {
    hub().setProtection('acme', 'widgets', 'main', { bypassAppIds: [hub().app.id] });
    const result = await git(['push', 'origin', ':refs/heads/main'], { cwd: work });
    expect(result.stderr).toContain('remote: error: Cannot delete this branch');
  });
});

describe('secrets', () => {
  it('leaves no installation token in any file of the fake or of the clone', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    const all = [...files(hub().state.gitRoot), ...files(join(work, '.git'))];
    expect(all.length).toBeGreaterThan(20);
    for (const file of all) expect(readFileSync(file).includes(token)).toBe(false);
  });
});

describe('--force-with-lease', () => {
  it('is a compare-and-swap: a stale lease is refused, the right one lands', async () => {
    await ok(['fetch', '-q', 'origin']);
    const base = await ok(['rev-parse', 'origin/main']);
    await ok(['checkout', '-q', '-B', 'lease', base]);
    const mine = await commit('lease.txt', 'mine\n');
    // Someone else moves main first.
    const other = mkdtempSync(join(tmpdir(), 'fakehub-other-'));
    try {
      await ok(['clone', '-q', hub().gitUrl('acme', 'widgets'), other], tmpdir());
      const theirs = await commit('theirs.txt', 'theirs\n', other);
      await ok(['push', '-q', 'origin', 'HEAD:refs/heads/main'], other);
      const stale = await git(
        ['push', `--force-with-lease=refs/heads/main:${base}`, 'origin', `${mine}:refs/heads/main`],
        {
          cwd: work,
        },
      );
      expect(stale.exitCode).not.toBe(0);
      expect(stale.stderr).toContain('stale info');
      await ok(['fetch', '-q', 'origin']);
      await ok(['rebase', '-q', theirs]);
      const rebased = await ok(['rev-parse', 'HEAD']);
      await ok([
        'push',
        '-q',
        `--force-with-lease=refs/heads/main:${theirs}`,
        'origin',
        `${rebased}:refs/heads/main`,
      ]);
      await ok(['fetch', '-q', 'origin']);
      expect(await ok(['rev-parse', 'origin/main'])).toBe(rebased);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
