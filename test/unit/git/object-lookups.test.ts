/**
 * Lookups of refs and objects in one git process (git/object-lookups.ts), against a real repository:
 * each answer is what the one-process-per-lookup plumbing answers, a name that resolves to nothing is
 * missing, and contents are taken only last, whatever their bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCommit, type RepoAccess } from '../../../git/commits';
import { createGit } from '../../../git/git-cli';
import { lookUp } from '../../../git/object-lookups';
import { sharedProcessBroker } from '../../support/shared-brokers';
import { createRepoWithMain, type GitFixture } from '../../support/git-fixture';

let fx: GitFixture & { base: string };
let access: RepoAccess;

beforeAll(async () => {
  fx = await createRepoWithMain();
  const git = createGit({
    identity: { name: 'railyard', email: 'r@example.com' },
    runner: sharedProcessBroker(),
  });
  access = { git, dir: fx.bare };
});
afterAll(() => fx.cleanup());

test('refs and objects resolve as rev-parse resolves them, and what is not there is missing', async () => {
  fx.branchFrom('pr-1', fx.base);
  const head = fx.commit('Add one\n\nbody line', { 'one.txt': '1\n' });
  fx.pushPr(1, head);
  fx.bareGit('tag', '-a', '-m', 'annotated', 'v1', head);
  const answers = await lookUp(access, [
    { kind: 'info', name: 'refs/heads/main^{commit}' },
    { kind: 'info', name: 'refs/heads/absent^{commit}' },
    { kind: 'info', name: 'refs/tags/v1^{commit}' },
    { kind: 'info', name: `${fx.base}:README.md` },
    { kind: 'info', name: `${fx.base}:no-such-file` },
    { kind: 'info', name: `${'0'.repeat(40)}^{commit}` },
    { kind: 'contents', name: 'refs/pull/1/head^{commit}' },
  ]);
  expect(answers[0]).toEqual({
    kind: 'found',
    sha: fx.base,
    type: 'commit',
    size: expect.any(Number),
    contents: null,
  });
  expect(answers[1]).toEqual({ kind: 'missing' });
  // An annotated tag peels to its commit, as `rev-parse <tag>^{commit}` does.
  expect(answers[2]).toMatchObject({ kind: 'found', sha: head, type: 'commit' });
  expect(answers[3]).toMatchObject({ kind: 'found', type: 'blob', size: 'widgets\n'.length });
  expect(answers[4]).toEqual({ kind: 'missing' });
  expect(answers[5]).toEqual({ kind: 'missing' });
  const last = answers[6];
  if (last?.kind !== 'found') throw new Error('the PR head was not found');
  expect(last.sha).toBe(head);
  expect(last.size).toBe(Buffer.byteLength(last.contents ?? ''));
  // The same commit as `git cat-file commit` gives it, parsed the same way.
  const commit = await readCommit(access, head);
  expect(last.contents).toContain(`tree ${commit.tree}\n`);
  expect(last.contents?.endsWith('Add one\n\nbody line\n')).toBe(true);
});

test('contents whose bytes are not UTF-8 come last and are read to the end', async () => {
  // A blob of Latin-1 bytes ("caf\xe9\n"), written straight into the bare repository.
  const file = join(fx.dir, 'latin-1.txt');
  writeFileSync(file, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const blob = fx.bareGit('hash-object', '-w', '--no-filters', file);
  const answers = await lookUp(access, [
    { kind: 'info', name: 'refs/heads/main^{commit}' },
    { kind: 'contents', name: blob },
  ]);
  expect(answers[0]).toMatchObject({ kind: 'found', sha: fx.tip('main') });
  // Decoded as every reader here decodes (UTF-8, the byte that is not becomes U+FFFD), to the end.
  expect(answers[1]).toEqual({ kind: 'found', sha: blob, type: 'blob', size: 5, contents: 'caf\ufffd\n' });
});

test('contents asked for before another lookup, or a name with a line break, are refused unread', async () => {
  await expect(
    lookUp(access, [
      { kind: 'contents', name: 'refs/heads/main^{commit}' },
      { kind: 'info', name: 'refs/heads/main^{commit}' },
    ]),
  ).rejects.toThrow('only the last lookup may ask for contents');
  await expect(lookUp(access, [{ kind: 'info', name: 'refs/heads/main\ninfo HEAD' }])).rejects.toThrow(
    'line break',
  );
  await expect(lookUp(access, [])).resolves.toEqual([]);
});

test('a repository that is not there is an error, not a missing answer', async () => {
  const gone = { ...access, dir: `${fx.dir}/no-such-repository` };
  await expect(lookUp(gone, [{ kind: 'info', name: 'refs/heads/main^{commit}' }])).rejects.toThrow(
    /cat-file --batch-command failed/,
  );
});
