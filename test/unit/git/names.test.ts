import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  InvalidGitNameError,
  checkBranchName,
  checkPullRequestNumber,
  checkRepoFilePath,
  checkRepositoryKey,
  checkSha,
  testBranchName,
} from '../../../git/names';
import { existingRepositoryPath, repositoryPath } from '../../../git/repository-path';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

const long = 'a'.repeat(256);

describe('branch names', () => {
  it.each([
    ['option injection', '--upload-pack=x'],
    ['leading dash', '-x'],
    ['parent segment', '../x'],
    ['parent segment inside refs', 'refs/../x'],
    ['double dot', 'a..b'],
    ['space', 'a b'],
    ['tab', 'a\tb'],
    ['newline', 'a\nb'],
    ['NUL', 'a\u0000b'],
    ['DEL', 'a\u007fb'],
    ['empty', ''],
    ['very long', long],
    ['tilde', 'a~1'],
    ['caret', 'a^'],
    ['colon', 'a:b'],
    ['glob', 'a*'],
    ['bracket', 'a[b'],
    ['backslash', 'a\\b'],
    ['reflog syntax', 'a@{1}'],
    ['lone at', '@'],
    ['HEAD', 'HEAD'],
    ['full ref', 'refs/heads/main'],
    ['trailing dot', 'a.'],
    ['trailing slash', 'a/'],
    ['leading slash', '/a'],
    ['double slash', 'a//b'],
    ['dot component', 'a/.b'],
    ['lock component', 'a.lock/b'],
  ])('rejects %s', (_name, branch) => {
    expect(checkBranchName(branch).ok).toBe(false);
  });

  it.each([['main'], ['release/2026.11'], ['feature/x-y_z'], ['railyard-merge/pr-12/3f1c'], ['ünïcode']])(
    'accepts %s',
    (branch) => {
      expect(checkBranchName(branch)).toEqual({ ok: true, value: branch });
    },
  );

  it('builds test branch names in the documented shape', () => {
    expect(testBranchName(12, '0b4e7c4e-0a5b-4e8e-9a53-2f4f7a1c2d3e')).toBe(
      'railyard-merge/pr-12/0b4e7c4e-0a5b-4e8e-9a53-2f4f7a1c2d3e',
    );
    expect(() => testBranchName(12, 'a b')).toThrow(InvalidGitNameError);
  });
});

describe('repository keys', () => {
  const key = (owner: string, name = 'widgets', host = 'github.com') => ({ host, owner, name });
  it.each([
    ['option as owner', key('--upload-pack=x')],
    ['leading dash owner', key('-x')],
    ['parent owner', key('..')],
    ['parent inside owner', key('acme/../x')],
    ['escaping owner', key('../x')],
    ['empty owner', key('')],
    ['empty owner segment', key('acme//x')],
    ['space in owner', key('a b')],
    ['control char in owner', key('a\u0001b')],
    ['very long owner', key(long)],
    ['slash in name', key('acme', 'a/b')],
    ['parent name', key('acme', '..')],
    // A repository inside another's bare repository (issue 24): <root>/<host>/victim/app.git/refs/heads/x.git.
    ['an owner path through a bare repository', key('victim/app.git/refs/heads', 'x')],
    ['an owner segment naming a repository folder in another case', key('victim/App.GIT', 'hooks')],
    ['an owner that is a repository folder', key('app.git', 'x')],
    ['option as name', key('acme', '--upload-pack=x')],
    ['empty name', key('acme', '')],
    ['option as host', key('acme', 'widgets', '--x')],
    ['path as host', key('acme', 'widgets', '../etc')],
    ['empty host', key('acme', 'widgets', '')],
  ])('rejects %s', (_name, repo) => {
    expect(checkRepositoryKey(repo).ok).toBe(false);
    expect(() => repositoryPath('/srv/git', repo)).toThrow(InvalidGitNameError);
  });

  it.each([
    ['GitLab subgroups', key('owner/sub/group')],
    ['dots and dashes', key('my-org.io', 'widgets_2.0')],
    ['the .github repository', key('acme', '.github')],
    ['host with port', key('acme', 'widgets', 'git.example.com:8443')],
  ])('accepts %s', (_name, repo) => {
    expect(checkRepositoryKey(repo).ok).toBe(true);
  });

  it('places a repository at <root>/<host>/<owner>/<name>.git', () => {
    expect(repositoryPath('/srv/git', key('owner/sub/group'))).toBe(
      '/srv/git/github.com/owner/sub/group/widgets.git',
    );
  });
});

describe('other inputs', () => {
  it.each([[-1], [1.5], [2 ** 32], [Number.NaN]])('rejects PR number %p', (n) => {
    expect(checkPullRequestNumber(n).ok).toBe(false);
  });
  it.each([['HEAD'], ['abc123'], ['--all'], ['A'.repeat(40)], [`${'a'.repeat(40)}^`]])(
    'rejects sha %p',
    (sha) => {
      expect(checkSha(sha).ok).toBe(false);
    },
  );
  it.each([['../x'], ['/etc/passwd'], ['-x'], ['a//b'], ['a/./b'], ['']])('rejects file path %p', (path) => {
    expect(checkRepoFilePath(path).ok).toBe(false);
  });
});

describe('the local host refuses hostile names before git runs', () => {
  let fx: GitFixture;
  beforeAll(async () => {
    fx = await createRepoWithMain();
  });
  afterAll(() => fx.cleanup());

  it.each([['--upload-pack=touch pwned'], ['../x'], ['a b'], ['-x']])('branch %p', async (branch) => {
    await expect(fx.host.readBranchTip(fx.repo, branch)).rejects.toThrow(InvalidGitNameError);
    await expect(fx.host.readPullRequest(fx.repo, 1, branch)).rejects.toThrow(InvalidGitNameError);
  });

  it('refuses to build or delete anything but a test branch', async () => {
    const build = fx.host.buildTestBranch({
      repo: fx.repo,
      targetBranch: 'main',
      baseSha: fx.tip('main'),
      prs: [{ number: 1, headSha: fx.tip('main') }],
      mergeMethod: 'squash',
      branchName: 'main',
    });
    await expect(build).rejects.toThrow(InvalidGitNameError);
    await expect(fx.host.deleteBranch(fx.repo, 'main')).rejects.toThrow(InvalidGitNameError);
    expect(fx.tip('main')).toMatch(/^[0-9a-f]{40}$/);
  });

  it('refuses rev expressions where a sha is expected', async () => {
    const advance = fx.host.advanceTarget({
      repo: fx.repo,
      targetBranch: 'main',
      expectedSha: 'HEAD',
      newSha: '--all',
    });
    await expect(advance).rejects.toThrow(InvalidGitNameError);
  });

  it('does not follow a symbolic link out of the root', async () => {
    const outside = join(fx.dir, 'outside.git');
    mkdirSync(outside);
    mkdirSync(join(fx.root, 'github.com', 'evil'), { recursive: true });
    symlinkSync(outside, join(fx.root, 'github.com', 'evil', 'widgets.git'));
    const repo = { host: 'github.com', owner: 'evil', name: 'widgets' };
    await expect(existingRepositoryPath(fx.root, repo)).rejects.toThrow(/outside the git root/);
    await expect(fx.host.readBranchTip(repo, 'main')).rejects.toThrow(/outside the git root/);
  });

  it('answers not_found for a repository that does not exist', async () => {
    const repo = { host: 'github.com', owner: 'acme', name: 'nothing' };
    await expect(fx.host.readBranchTip(repo, 'main')).resolves.toEqual({
      kind: 'not_found',
      what: 'repository',
    });
  });
});
