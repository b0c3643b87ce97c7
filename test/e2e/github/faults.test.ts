/**
 * GitHub misbehaving under the merge queue (fakehub's fault knobs), the real stack:
 *
 * - a check_run webhook that never arrives: the PR waits in testing until the reconciliation
 *   (activities/github-reconciliation.ts) redelivers what GitHub failed to deliver; then it merges;
 * - a secondary rate limit in the middle of a run: the throttled client waits it out;
 * - every installation token expiring while a PR tests: the client mints a new one on the 401;
 * - a second worker that has never seen the repository takes over from the first.
 *
 * Last, a scan: no log line the harness collected (workers, workflows, API) and no file in the
 * workers' data folders holds an installation token (fakehub's `ghs_…`) or git's Basic credential.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createGitHubAppAuth } from '../../../github/app/app-auth';
import { createGitHubReconciliationActivities } from '../../../activities/github-reconciliation';
import { getTestRunQuery, queueWorkflowId } from '../../../contract';
import type { WebhookDelivery } from '../../support/fakehub';
import {
  startGitHubQueueHarness,
  useGitHubQueueHarness,
  type GitHubHarnessOptions,
  type GitHubQueueHarness,
} from '../../support/github-queue-harness';

const { hub, newQueue } = useGitHubQueueHarness();
let h: GitHubQueueHarness | undefined;

/** fakehub's installation tokens, and git's `Authorization: Basic` value (base64 of `x-access-token:`). */
const TOKEN = /ghs_[A-Za-z0-9]{36}/;
const BASIC_CREDENTIAL = Buffer.from('x-access-token:').toString('base64');
const found = (text: string) => TOKEN.test(text) || text.includes(BASIC_CREDENTIAL);
const scan = { lines: 0, files: 0, leaks: [] as string[] };

/** Every file under `dir`; loose git objects are also read inflated. */
function scanFiles(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = fs.readFileSync(file);
    const texts = [bytes.toString('latin1')];
    if (/\/objects\/[0-9a-f]{2}$/.test(entry.parentPath))
      texts.push(zlib.inflateSync(bytes).toString('latin1'));
    scan.files++;
    if (texts.some(found)) scan.leaks.push(`file ${path.relative(dir, file)}`);
  }
}

// After the harness's own afterEach has closed the test's queue (its logs complete then).
afterEach(async () => {
  if (!h) return;
  const g = h;
  h = undefined;
  scanFiles(g.dataRoot);
  await g.close();
  scan.lines += g.logs.length;
  for (const line of g.logs) if (found(line)) scan.leaks.push(`log line: ${line.slice(0, 120)}…`);
});

/** CI reports on PR branches but not on test branches: the test reports those itself. */
const ciOnPrsOnly: GitHubHarnessOptions['ci'] = (_sha, branch) =>
  branch.startsWith('trunk-merge/') ? null : 'success';

/** The head of PR `n`'s test branch, once the queue has read its checks since the run started. */
async function testedHead(g: GitHubQueueHarness, n: number): Promise<string> {
  const branch = await g.waitFor(`PR #${n}'s test branch`, () =>
    Promise.resolve(g.branches(`trunk-merge/pr-${n}/`)[0]),
  );
  const sha = g.bareGit('rev-parse', `refs/heads/${branch}`);
  await g.waitFor(`PR #${n} testing and its checks read`, async () => {
    const read = hub().requests.some(
      // The combined status is the last read of the checks (github/host/checks.ts).
      (r) => r.path.startsWith(`/repos/acme/${g.repo.name}/commits/${sha}/status?`) && r.status === 200,
    );
    return read && (await g.pr(n))?.state === 'testing';
  });
  return sha;
}

const passCheck = (g: GitHubQueueHarness, sha: string) =>
  hub().setCheckRun(g.repo.owner, g.repo.name, sha, {
    name: 'test',
    status: 'completed',
    conclusion: 'success',
  });

/**
 * main's commits, one per PR in order, hold the trees of the commits that passed each PR's tests (the
 * run in its `tests_passed` step: its own, stacked on the PRs before it; a later run that lands it
 * along with others is its `verifiedByTestRun`).
 */
async function expectTestedTrees(g: GitHubQueueHarness, prs: number[]): Promise<void> {
  const queue = g.client.workflow.getHandle(queueWorkflowId(g.key));
  const tested: string[] = [];
  for (const n of prs) {
    const passed = (await g.pr(n))!.timeline.filter((t) => t.to === 'tests_passed');
    expect(passed).toHaveLength(1);
    const run = await queue.query(getTestRunQuery, passed[0]!.testRunId!);
    tested.push(g.bareGit('rev-parse', `${run!.testBranchSha!}^{tree}`));
  }
  expect(g.mainTrees()).toEqual(tested);
}

const repoRequests = (g: GitHubQueueHarness, from = 0) =>
  hub()
    .requests.slice(from)
    .filter(
      (r) => r.path.startsWith(`/repos/acme/${g.repo.name}`) || r.path.startsWith(`/acme/${g.repo.name}.git`),
    );

test('a dropped check_run webhook leaves the PR testing until the reconciliation redelivers it; then it merges', async () => {
  h = await newQueue({ ci: ciOnPrsOnly });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(pr.number);
  const sha = await testedHead(h, pr.number);

  const ofRun = (d: WebhookDelivery) =>
    d.event === 'check_run' && (d.payload.check_run as { head_sha?: string } | undefined)?.head_sha === sha;
  hub().webhooks.drop(ofRun);
  passCheck(h, sha);
  await hub().webhooks.idle();
  const dropped = hub().webhooks.deliveries.filter(ofRun);
  expect(dropped.length).toBeGreaterThan(0);
  expect(dropped.every((d) => d.outcome === 'dropped')).toBe(true);
  // Nothing else tells the queue: the PR is still testing, nothing landed.
  expect((await h.pr(pr.number))?.state).toBe('testing');
  expect(h.mainLog()).toEqual([]);

  // GitHub is reachable again; the reconciliation's first step finds the failed deliveries.
  hub().webhooks.drop(0);
  const app = hub().app;
  const reconciliation = createGitHubReconciliationActivities({
    pool: h.pool,
    client: h.client,
    namespace: 'default',
    settings: { appId: app.id, apiUrl: hub().url, host: 'github.com' },
    auth: await createGitHubAppAuth({ appId: app.id, privateKey: app.privateKey, apiUrl: hub().url }),
    // Earlier runs against this database must not hide this test's deliveries behind their mark.
    limits: { overlapMs: 60 * 60_000 },
    onError: (err, message) => h!.logs.push(`reconciliation: ${message}: ${String(err)}`),
  });
  const summary = await reconciliation.redeliverFailedGitHubDeliveries();
  expect(summary.redelivered).toBeGreaterThanOrEqual(dropped.length);
  await hub().webhooks.idle();
  const redelivered = hub().webhooks.deliveries.filter((d) => ofRun(d) && d.redelivery);
  expect(new Set(redelivered.map((d) => d.guid))).toEqual(new Set(dropped.map((d) => d.guid)));
  expect(redelivered.every((d) => d.outcome === 'delivered')).toBe(true);

  const done = await h.settled(pr.number);
  expect(done.state).toBe('merged');
  expect(h.mainLog()).toEqual(['first change (#1)']);
  await expectTestedTrees(h, [pr.number]);
  // The remaining steps run too: every queue of the host is hinted, nothing failed.
  expect((await reconciliation.reconcileGitHubQueues()).failed).toBe(0);
  expect(h.logs.filter((l) => l.startsWith('reconciliation:'))).toEqual([]);
}, 120_000);

test('a secondary rate limit in the middle of a run is waited out and the PR merges', async () => {
  h = await newQueue({ ci: ciOnPrsOnly });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(pr.number);
  const sha = await testedHead(h, pr.number);
  const from = hub().requests.length;
  hub().knobs.secondaryRateLimit(2, { retryAfterSeconds: 1 });
  passCheck(h, sha);

  expect((await h.settled(pr.number)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['first change (#1)']);
  await expectTestedTrees(h, [pr.number]);
  // GitHub answered the limit twice; the worker waited it out (and said so) instead of failing.
  expect(repoRequests(h, from).filter((r) => r.status === 403)).toHaveLength(2);
  expect(h.logs.filter((l) => /^worker 0: secondary limit, waiting 1s/.test(l))).toHaveLength(2);
}, 120_000);

test('installation tokens expiring while a PR tests: the worker mints a new one and the PR merges', async () => {
  h = await newQueue({ ci: ciOnPrsOnly });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const pr = await h.openPr({ 'one.txt': '1\n' }, 'first change');
  await h.submit(pr.number);
  const sha = await testedHead(h, pr.number);
  const from = hub().requests.length;
  hub().knobs.expireTokens();
  passCheck(h, sha);

  expect((await h.settled(pr.number)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['first change (#1)']);
  await expectTestedTrees(h, [pr.number]);
  await h.waitFor('test branches to be deleted', () =>
    Promise.resolve(h!.branches('trunk-merge/').length === 0),
  );
  const after = hub().requests.slice(from);
  // The old token was refused, a new one minted, and git pushed the landing with it.
  expect(repoRequests(h, from).some((r) => r.kind === 'rest' && r.status === 401)).toBe(true);
  expect(after.some((r) => r.path.endsWith('/access_tokens') && r.status === 201)).toBe(true);
  const pushes = repoRequests(h, from).filter(
    (r) => r.kind === 'git' && r.path.endsWith('/git-receive-pack'),
  );
  expect(pushes.length).toBeGreaterThan(0);
  await h.waitFor('the last push answered', () => Promise.resolve(pushes.every((r) => r.status !== 0)));
  expect(pushes.map((r) => r.status)).toEqual(pushes.map(() => 200));
}, 120_000);

test('a second worker that has never seen the repository takes over from the first and finishes the queue', async () => {
  // CI holds every test branch after PR #1's until the second worker has taken over. A deployment of
  // its own: its first worker's mirrors hold this repository alone, and no second worker exists yet.
  let open = false;
  h = await startGitHubQueueHarness(hub(), {
    ci: (_sha, branch) =>
      open || !branch.startsWith('trunk-merge/') || branch.startsWith('trunk-merge/pr-1/') ? 'success' : null,
  });
  await h.createQueue({ concurrency: 1, mergeMethod: 'squash' }, { requiredStatuses: ['test'] });
  const prs = [];
  for (const n of [1, 2, 3, 4]) prs.push(await h.openPr({ [`f${n}.txt`]: `${n}\n` }, `change ${n}`));
  for (const pr of prs) await h.submit(pr.number);
  expect((await h.settled(1)).state).toBe('merged');
  await testedHead(h, 2);

  const mirrors = (i: number) => path.join(h!.dataRoot, `worker-${i}`, 'mirrors', 'github.com', 'acme');
  expect(fs.readdirSync(mirrors(0))).toEqual([`${h.repo.name}.git`]);
  expect(fs.existsSync(path.join(h.dataRoot, 'worker-1'))).toBe(false);
  expect(await h.startWorker()).toBe(1);
  await h.stopWorker(0);
  expect(h.mainLog()).toEqual(['change 1 (#1)']);
  open = true;
  for (const branch of h.branches('trunk-merge/'))
    passCheck(h, h.bareGit('rev-parse', `refs/heads/${branch}`));

  for (const pr of prs) expect((await h.settled(pr.number)).state).toBe('merged');
  expect(h.mainLog()).toEqual(['change 1 (#1)', 'change 2 (#2)', 'change 3 (#3)', 'change 4 (#4)']);
  await expectTestedTrees(h, [1, 2, 3, 4]);
  // Worker 1 did the rest from a mirror of its own, built from GitHub.
  expect(fs.readdirSync(mirrors(1))).toEqual([`${h.repo.name}.git`]);
  await h.waitFor('test branches to be deleted', () =>
    Promise.resolve(h!.branches('trunk-merge/').length === 0),
  );
}, 120_000);

test('no installation token in any log line or data file of the stories above', () => {
  // The scan can fail: a token, or git's Basic credential, is found.
  const token = hub().installationToken(hub().createInstallation({ account: 'scan-check' }).id);
  expect(found(`x ${token} y`)).toBe(true);
  expect(found(Buffer.from(`x-access-token:${token}`).toString('base64'))).toBe(true);
  expect(scan.lines).toBeGreaterThan(0);
  expect(scan.files).toBeGreaterThan(0);
  expect(scan.leaks).toEqual([]);
});
