/** `.trunk/trunk.yaml`'s merge.required_statuses, read with bounds; problems are reported, not skipped. */
import { MAX_CONTEXTS, requiredFromTrunkConfig } from '../../../github/host/required-checks';

test('the names under merge.required_statuses, trimmed and without duplicates', () => {
  const yaml = 'version: 0.1\nmerge:\n  required_statuses:\n    - test\n    - " lint "\n    - test\n';
  expect(requiredFromTrunkConfig(yaml)).toEqual({
    kind: 'found',
    contexts: ['test', 'lint'],
    source: 'trunk_config',
  });
});

test.each([
  ['no merge section', 'version: 0.1\ncli:\n  version: 1.0.0\n'],
  ['an empty list', 'merge:\n  required_statuses: []\n'],
  ['an empty file', ''],
])('%s names none', (_what, yaml) => {
  expect(requiredFromTrunkConfig(yaml)).toEqual({ kind: 'none' });
});

test.each([
  ['not YAML', 'merge: [unclosed\n', /is not valid YAML/],
  ['not a list', 'merge:\n  required_statuses: test\n', /must be a list of names/],
  ['not names', 'merge:\n  required_statuses:\n    - {a: 1}\n', /must be a list of names/],
  [
    'too many',
    `merge:\n  required_statuses:\n${Array.from({ length: MAX_CONTEXTS + 1 }, (_, i) => `    - c${i}`).join('\n')}\n`,
    /at most 50/,
  ],
  ['a name too long', `merge:\n  required_statuses:\n    - ${'x'.repeat(256)}\n`, /longer than 255/],
  ['too large', `# ${'x'.repeat(300 * 1024)}\n`, /larger than/],
])('%s is reported with a sentence', (_what, yaml, message) => {
  const r = requiredFromTrunkConfig(yaml);
  expect(r.kind).toBe('invalid');
  expect(r.kind === 'invalid' && r.detail).toMatch(message);
});

test('aliases cannot blow up the parse (billion laughs)', () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 12; i++)
    lines.push(
      `${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(9)
        .fill(`*${i === 1 ? 'a' : 'b'.repeat(i - 1)}`)
        .join(',')}]`,
    );
  lines.push('merge:\n  required_statuses: *bbbbbbbbbbb');
  const r = requiredFromTrunkConfig(lines.join('\n'));
  expect(r.kind).toBe('invalid');
});
