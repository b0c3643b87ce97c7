/**
 * The words (contract/words.ts): every code of every union a person may see has words, none of them
 * code-shaped, and the unions spelled there for the flaky room are flaky's own (a code added to
 * flaky fails this file's typecheck until it has words).
 */
import {
  ALL_WORDS,
  CODE_SHAPED,
  overrideWord,
  prStateWord,
  quarantineSettingWord,
  queueStateWord,
  testRunName,
  testStatusReasonText,
  type QuarantineOverrideCode,
  type QuarantineSettingCode,
  type TestStatusCode,
  type TestStatusReasonCode,
} from '../../../contract';
import { BATCHING_MODES } from '../../../engine';
import { PR_STATES } from '../../../api/schemas/queue';
import type { ReasonCode, TestStatus } from '../../../flaky/classification';
import {
  QUARANTINE_OVERRIDES,
  type QuarantineOverride,
  type QuarantineVerdict,
} from '../../../flaky/quarantine';

/** Compiles only when A and B are the same union. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameUnions: [
  Same<TestStatusCode, TestStatus>,
  Same<TestStatusReasonCode, ReasonCode>,
  Same<QuarantineOverrideCode, QuarantineOverride>,
  Same<QuarantineSettingCode, Extract<QuarantineVerdict, { quarantined: true }>['setting']>,
] = [true, true, true, true];

test("the flaky room's codes are the ones the words are written for", () => {
  expect(sameUnions).toEqual([true, true, true, true]);
});

test.each(Object.entries(ALL_WORDS))('every %s word is plain words, never code-shaped', (_name, words) => {
  for (const [code, word] of Object.entries(words as Record<string, string>)) {
    expect({ code, word: word.trim() }).toEqual({ code, word: expect.stringMatching(/\S/) });
    expect({ code, shaped: CODE_SHAPED.exec(word)?.[0] ?? null }).toEqual({ code, shaped: null });
  }
});

test('every code of the runtime lists has its own words', () => {
  expect(PR_STATES.map(prStateWord)).not.toContainEqual(expect.stringMatching(CODE_SHAPED));
  expect(Object.keys(ALL_WORDS.prStates).sort()).toEqual([...PR_STATES].sort());
  expect(Object.keys(ALL_WORDS.overrides).sort()).toEqual([...QUARANTINE_OVERRIDES].sort());
  expect(Object.keys(ALL_WORDS.batchingModes).sort()).toEqual([...BATCHING_MODES].sort());
  expect(overrideWord('UNSPECIFIED')).toBe('no override');
  expect(quarantineSettingWord('AUTO_QUARANTINE')).toMatch(/automatically/);
  expect(queueStateWord('switching_modes')).toBe('switching modes');
  expect(prStateWord('pending_failure')).toBe('failed, waiting on the PRs ahead');
});

test.each([
  ['no_signal', 'nothing in its results makes it flaky or broken'],
  ['mixed_outcomes_same_commit:sha=abc1234', 'it passed and failed on the same commit abc1234'],
  [
    'stable_failure_rate:0.15>=0.10,n=20,w=72h',
    'it failed 15 % of 20 runs in the last 72 h (flaky from 10 %)',
  ],
  [
    'stable_failure_rate:0.50,n=2<10,w=72h',
    '2 runs so far in the last 72 h, 10 needed to judge (failed 50 %)',
  ],
  [
    'consecutive_failing_commits:3',
    'it failed on the last 3 commits of the stable branches, and passed on none of them',
  ],
  ['broken_rate:1.00,n=6', 'it failed 100 % of 6 runs'],
  ['stable_failure_rate:garbled', 'its failure rate on the stable branches is high'],
  ['something_new:x', 'something new:x'],
])('the status reason %s reads "%s"', (reason, text) => {
  expect(testStatusReasonText(reason)).toBe(text);
  expect(CODE_SHAPED.test(testStatusReasonText(reason))).toBe(false);
});

test('a test run is named by what it tested', () => {
  expect(testRunName({ prs: [3], bisection: true })).toBe('the bisection run of #3 alone');
  expect(testRunName({ prs: [1, 2, 3], bisection: false })).toBe('the batch run #1 #2 #3');
  expect(testRunName({ prs: [3], bisection: false })).toBe('the run of #3');
  expect(testRunName({ prs: [4, 5], bisection: true })).toBe('the bisection run of #4 #5');
});
