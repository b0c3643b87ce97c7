/** The text a person reads on a GitHub PR for each state of its record. */
import {
  announcement,
  liveComment,
  LIVE_MARKER,
  presentedState,
} from '../../../github/presentation/pr-comment';
import { byApp, dashboardPrUrl } from '../../../github/presentation/pr-presenter';
import { CODE_SHAPED, type PullRequestRecord, type ReasonDetail } from '../../../contract';
import type { PrState } from '../../../engine';
import { prDetails } from '../../support/pr-details';

const record = (state: PrState, reason: string): PullRequestRecord => ({
  id: 'sub-1',
  prNumber: 7,
  state,
  stateChangedAt: 0,
  reason,
  details: prDetails(),
  skipTheLine: false,
  isCurrentlySubmittedToQueue: true,
  verifiedByTestRun: null,
  timeline: [{ at: 0, from: 'pending', to: state, reason, testRunId: 'run-1' }],
});
const shown = { comment: true, checkRun: true, position: 2, queueLength: 5 };

test.each([
  ['not_ready', 'AWAITING_MERGEABILITY', /not ready yet/, 'in_progress', undefined],
  ['pending', 'USER_REQUESTED', /Queued: position 2 of 5/, 'in_progress', undefined],
  ['testing', 'TESTS_STARTED', /Testing/, 'in_progress', undefined],
  ['tests_passed', 'TESTS_PASSED', /Tests passed/, 'in_progress', undefined],
  ['pending_failure', 'TEST_RUN_REQUIRED_STATUS_FAILED', /test run failed/, 'in_progress', undefined],
  ['merged', 'MERGE_GRAPH_MERGE', /Merged into `main`/, 'completed', 'success'],
  ['failed', 'TEST_RUN_TIMEOUT', /Failed/, 'completed', 'failure'],
  ['cancelled', 'PR_CLOSED', /Cancelled/, 'completed', 'cancelled'],
] as const)('%s: headline, check run and announcement', (state, reason, headline, status, conclusion) => {
  const s = presentedState(record(state, reason), shown, 'main');
  expect(s.headline).toMatch(headline);
  expect(s.checkRun).toEqual(conclusion ? { status, conclusion } : { status });
  expect(s.announce).toBe(state === 'failed' || state === 'cancelled');
});

test('a failure says why in words, what to do, and keeps the reason name collapsed for a search', () => {
  const body = liveComment(record('failed', 'TEST_RUN_TIMEOUT'), shown, 'main');
  expect(body.startsWith(LIVE_MARKER)).toBe(true);
  expect(body).toContain('because its test run did not finish before the testing timeout. Fix it');
  expect(body).toContain('/trunk merge');
  expect(
    body.endsWith('\n<details><summary>Reason code</summary>\n\n`TEST_RUN_TIMEOUT`\n\n</details>\n'),
  ).toBe(true);
  // Outside the collapsed block the comment has no code-shaped word.
  expect(CODE_SHAPED.test(body.slice(0, body.indexOf('<details>')))).toBe(false);
  const text = announcement(record('failed', 'TEST_RUN_TIMEOUT'), shown, 'main', 4);
  expect(text).toContain('`TEST_RUN_TIMEOUT`\n\n</details>');
  expect(liveComment(record('merged', 'MERGE_GRAPH_MERGE'), shown, 'main')).not.toContain('<details>');
});

test('an announcement mentions the author and carries its own marker', () => {
  const text = announcement(record('cancelled', 'PR_PUSHED_TO'), shown, 'main', 4);
  expect(text).toMatch(
    /^<!-- railyard:announce sub-1\/4 -->\n@ada this PR left the merge queue for `main` \(cancelled\)/,
  );
});

test('a PR GitHub blocks says what it waits for', () => {
  const r = record('not_ready', 'API_REQUESTED');
  r.details!.readiness.blockedBy = 'it waits for the required check `lint` on its head commit';
  expect(liveComment(r, shown, 'main')).toContain(
    'It enters the queue as soon as it is ready; now it waits for the required check `lint` on its head commit.',
  );
});

test('an unknown reason is shown by its name', () => {
  expect(liveComment(record('failed', 'SOMETHING_NEW'), shown, 'main')).toContain('`SOMETHING_NEW`');
});

describe('text railyard did not write is inert (issue 24)', () => {
  /** What GitHub would act on in a comment: a mention, a reference, a link, an image, HTML, a line break. */
  const ACTIVE = /@[A-Za-z]|#[0-9]|[^\\]\]\(|[^\\]<img|https:\/\/|\n\n#/;

  test('failing test names, status names, file names, an actor and a problem', () => {
    const evil = '@acme/admins see #1 ![x](https://evil.example/x.png) <img src=x>\n\n# Heading';
    const details: ReasonDetail[] = [
      { kind: 'command_failed', exitCode: 1, failedTests: [evil], moreFailedTests: 0 },
      { kind: 'statuses', failed: [evil], missing: [evil] },
      { kind: 'conflict', pr: 7, files: [evil], onTopOf: [] },
      { kind: 'actor', actor: evil },
      { kind: 'problem', text: evil },
    ];
    for (const detail of details) {
      const r = record('failed', 'TEST_RUN_TIMEOUT');
      r.timeline[0]!.detail = detail;
      const body = liveComment(r, shown, 'main');
      // `#7` of a conflict is railyard's own reference to the PR, meant to link.
      const shownText = body.slice(body.indexOf('It left the queue')).replace('#7 conflicts', '');
      expect(shownText).not.toMatch(ACTIVE);
      // What it said is still there to read once the escapes are rendered.
      expect(shownText.replace(/[\u200d\\]/g, '')).toContain('@acme/admins see #1');
    }
  });

  test('a branch name with a backtick or a mention stays inside its code span', () => {
    const body = liveComment(record('pending', 'USER_REQUESTED'), shown, 'x`@everyone\n#2');
    expect(body).toContain("· `x'@everyone'#2`\n");
    expect(body).toContain("on top of `x'@everyone'#2` and");
  });

  test('an author login GitHub could not have issued is not mentioned', () => {
    const r = record('cancelled', 'PR_PUSHED_TO');
    r.details!.author = 'ada @acme/admins';
    expect(announcement(r, shown, 'main', 1)).toMatch(/-->\nthis PR left the merge queue/);
  });
});

describe('the presenter (issue 24)', () => {
  test("a marker counts only in the App's own comments", () => {
    const app = { id: 42 };
    expect(byApp({ id: 1, user: { type: 'Bot' }, performed_via_github_app: app }, 42)).toBe(true);
    expect(byApp({ id: 1, user: { type: 'User' }, performed_via_github_app: app }, 42)).toBe(false);
    expect(byApp({ id: 1, user: { type: 'Bot' }, performed_via_github_app: { id: 7 } }, 42)).toBe(false);
    expect(byApp({ id: 1, user: { type: 'Bot' }, performed_via_github_app: null }, 42)).toBe(false);
  });

  test("the check run links the dashboard's PR page, not Temporal's UI", () => {
    const key = {
      organisationId: 'o',
      repo: { host: 'github.com', owner: 'Acme', name: 'W&x' },
      targetBranch: 'release/1.x',
    };
    expect(dashboardPrUrl('https://railyard.example/', { key, record: record('testing', 'x') })).toBe(
      'https://railyard.example/ui/pr?host=github.com&owner=Acme&name=W%26x&branch=release%2F1.x&pr=7',
    );
  });
});
