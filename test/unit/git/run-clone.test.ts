/**
 * A run's clone of one commit (git/run-clone.ts, through the local host's `checkout`): with a work
 * tree the commit's files are written; without one (what the worker's bundles of a run need) HEAD is
 * the commit, detached, no file is written, and a bundle of HEAD holds the commit all the same. Both
 * leave no `origin` to push back to.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

let fx: GitFixture & { base: string };
let sha: string;

beforeAll(async () => {
  fx = await createRepoWithMain();
  sha = fx.commit('second', { 'src/app.txt': 'app\n' });
  fx.pushBranch('main', sha);
});

afterAll(() => fx.cleanup());

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** Everything in `dir` but git's own folder. */
const filesIn = (dir: string) => fs.readdirSync(dir).filter((name) => name !== '.git');

it('writes the commit and detaches HEAD at it, by default', async () => {
  const directory = path.join(fx.dir, 'with-tree');
  await fx.host.checkout({ repo: fx.repo, sha, directory });
  expect(gitIn(directory, 'rev-parse', 'HEAD')).toBe(sha);
  expect(fs.readFileSync(path.join(directory, 'src', 'app.txt'), 'utf8')).toBe('app\n');
  expect(filesIn(directory).sort()).toEqual(['README.md', 'lines.txt', 'src']);
  expect(gitIn(directory, 'remote')).toBe('');
});

it('without a work tree: HEAD is the commit, detached, and no file is written', async () => {
  const directory = path.join(fx.dir, 'no-tree');
  await fx.host.checkout({ repo: fx.repo, sha, directory, workTree: false });
  expect(gitIn(directory, 'rev-parse', 'HEAD')).toBe(sha);
  // Detached: HEAD names no branch, so a later move of main cannot change what it points at.
  expect(() => gitIn(directory, 'symbolic-ref', '-q', 'HEAD')).toThrow();
  expect(filesIn(directory)).toEqual([]);
  expect(gitIn(directory, 'remote')).toBe('');
  // What the worker does with it: a bundle of HEAD holds the commit and its history.
  const bundle = path.join(fx.dir, 'no-tree.bundle');
  gitIn(directory, 'bundle', 'create', '--quiet', bundle, 'HEAD');
  expect(gitIn(directory, 'bundle', 'list-heads', bundle)).toBe(`${sha} HEAD`);
  const clone = path.join(fx.dir, 'from-bundle');
  execFileSync('git', ['clone', '--quiet', bundle, clone], { stdio: 'ignore' });
  expect(fs.readFileSync(path.join(clone, 'src', 'app.txt'), 'utf8')).toBe('app\n');
  expect(gitIn(clone, 'rev-parse', 'HEAD')).toBe(sha);
});

it('refuses a commit the repository does not hold, writing nothing', async () => {
  const directory = path.join(fx.dir, 'unknown');
  await expect(
    fx.host.checkout({ repo: fx.repo, sha: 'f'.repeat(40), directory, workTree: false }),
  ).rejects.toThrow();
  expect(fs.existsSync(directory)).toBe(false);
});
