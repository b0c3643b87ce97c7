import { parseRepoTestConfig, readRepoTestConfig } from '../../../executor/repo-test-config';
import { createRepoWithMain } from '../../support/git-fixture';

describe('the repository test configuration', () => {
  it.each([
    [
      'a minimal file',
      '{"version":1,"command":"npm test"}',
      { kind: 'found', config: { version: 1, command: 'npm test' } },
    ],
    [
      'JUnit globs',
      '{"version":1,"command":"make check","junitGlobs":["out/*.xml"]}',
      { kind: 'found', config: { version: 1, command: 'make check', junitGlobs: ['out/*.xml'] } },
    ],
    ['not JSON', '{version: 1}', { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' }],
    [
      'another version',
      '{"version":2,"command":"x"}',
      { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_BAD_VERSION' },
    ],
    ['no command', '{"version":1}', { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' }],
    [
      'an empty command',
      '{"version":1,"command":"  "}',
      { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' },
    ],
    [
      'an unknown key',
      '{"version":1,"command":"x","comand":"y"}',
      { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' },
    ],
    ['not an object', '"npm test"', { kind: 'invalid', reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE' }],
  ])('reads %s', (_name, text, expected) => {
    expect(parseRepoTestConfig(text)).toMatchObject(expected);
  });

  it.each([
    [
      'a glob longer than 500 characters',
      { junitGlobs: ['out/*.xml', `${'**/'.repeat(167)}x`] },
      'junitGlobs[1]: must be at most 500 characters long',
    ],
    [
      'more than 50 globs',
      { junitGlobs: Array.from({ length: 51 }, (_, i) => `out${i}/*.xml`) },
      'junitGlobs: must have at most 50 globs',
    ],
    ['an empty glob', { junitGlobs: [''] }, 'junitGlobs[0]: must not be empty'],
  ])('refuses %s with a reason naming the field', (_name, extra, problem) => {
    expect(parseRepoTestConfig(JSON.stringify({ version: 1, command: 'make', ...extra }))).toEqual({
      kind: 'invalid',
      reason: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
      detail: `.railyard/merge-queue.json: ${problem}`,
    });
  });

  it('names the field in the detail', () => {
    expect(parseRepoTestConfig('{"version":1}')).toMatchObject({
      detail: expect.stringContaining('command'),
    });
  });

  it('is read from the tested commit through the git host', async () => {
    const fx = await createRepoWithMain();
    try {
      await expect(readRepoTestConfig(fx.host, fx.repo, fx.base)).resolves.toEqual({
        kind: 'absent',
        reason: 'START_TEST_RUN_CONFIG_NOT_FOUND',
      });
      const sha = fx.commit('Configure tests', {
        '.railyard/merge-queue.json': '{"version":1,"command":"npm test"}',
      });
      fx.pushBranch('main', sha);
      await expect(readRepoTestConfig(fx.host, fx.repo, sha)).resolves.toEqual({
        kind: 'found',
        config: { version: 1, command: 'npm test' },
      });
      await expect(fx.host.readFileAtCommit(fx.repo, sha, '.railyard')).resolves.toEqual({
        kind: 'not_found',
      });
      await expect(fx.host.readFileAtCommit(fx.repo, sha, '../x')).rejects.toThrow(/invalid path/);
    } finally {
      fx.cleanup();
    }
  });
});
