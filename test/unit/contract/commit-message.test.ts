/**
 * A PR's commit title and body (contract/commit-message.ts): Trunk's `merge-commit-title:` line in the
 * description, the submit's fields over it, the template when neither says anything.
 */
import { chooseCommitMessage, MAX_COMMIT_TITLE, titleFromDescription } from '../../../contract';

test.each<[string | null, string | undefined]>([
  ['Fixes the widget.\n\nmerge-commit-title: widgets: fix the frobnicator\n', 'widgets: fix the frobnicator'],
  ['MERGE-COMMIT-TITLE:   spaced out   \r\nmore', 'spaced out'],
  ['merge-commit-title: first\nmerge-commit-title: second', 'first'],
  ['merge-commit-title:   ', undefined],
  ['the merge-commit-title: is not at the start of the line', undefined],
  ['no directive here', undefined],
  [null, undefined],
])('titleFromDescription(%j) = %j', (description, title) => {
  expect(titleFromDescription(description)).toBe(title);
});

test('a title is bounded to one line of MAX_COMMIT_TITLE characters', () => {
  expect(titleFromDescription(`merge-commit-title: ${'x'.repeat(400)}`)).toHaveLength(MAX_COMMIT_TITLE);
});

// The description is the PR author's: a line built to make a backtracking pattern quadratic (about 5 s
// of CPU at this size with the pattern it replaced) is read in linear time. The bound is a guard
// against that hole, not a speed figure: 1 s of CPU is hundreds of times what the linear read takes.
test('a hostile 64 KB description line costs no more than linear time', () => {
  const started = process.cpuUsage();
  expect(titleFromDescription(`merge-commit-title: a${' '.repeat(65_000)}b`)).toBe('a');
  expect(titleFromDescription(`${' \t'.repeat(30_000)}x\nmerge-commit-title: t`)).toBe('t');
  const used = process.cpuUsage(started);
  expect((used.user + used.system) / 1000).toBeLessThan(1_000);
});

test("the submit's title and body win over the description's title; nothing chosen is undefined", () => {
  expect(chooseCommitMessage({ title: 'From the API', body: 'Body.\n\n' }, 'From the description')).toEqual({
    title: 'From the API',
    body: 'Body.',
  });
  expect(chooseCommitMessage({ body: 'Only a body' }, 'From the description')).toEqual({
    title: 'From the description',
    body: 'Only a body',
  });
  expect(chooseCommitMessage(undefined, 'From the description')).toEqual({ title: 'From the description' });
  expect(chooseCommitMessage({ title: '  ' }, undefined)).toBeUndefined();
  expect(chooseCommitMessage(undefined, undefined)).toBeUndefined();
});
