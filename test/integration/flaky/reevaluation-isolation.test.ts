/**
 * The hourly re-evaluation goes on past a repository that throws (issue 11). Three repositories of two
 * organisations each hold a flaky test that eight quiet days heal; the first one's stored
 * classification overrides are corrupted in PostgreSQL so that loading it throws. The sweep still
 * heals the other two, logs the failure with the repository and its organisation, and reports one
 * failed repository: through the activity (its log captured) and through the workflow on the real
 * Temporal service (its result).
 */
import { Client, Connection } from '@temporalio/client';
import type { LogLevel, LogMetadata } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createFlakyActivities } from '../../../activities/flaky';
import type { ReevaluationSummary } from '../../../flaky/service';
import { requireTestEnv } from '../../support/env';
import { recordHistory } from '../../support/histories';
import { FLAKY_REEVALUATION_WORKFLOW_TYPE } from '../../../contract';
import { createHarness, type Harness, junit, REPO } from './harness';

const DAY = 86_400_000;
const BROKEN = { ...REPO, name: 'aaa-broken' };
const OTHER_ORG_REPO = { ...REPO, owner: 'globex', name: 'store' };

/** A world where each repository has one flaky test that time alone heals, the first one corrupted. */
async function world(prefix: string): Promise<Harness> {
  const h = await createHarness(prefix);
  // Created in this order, so the broken repository is the first the sweep meets (it goes by pk).
  const targets = [
    { repo: BROKEN, org: 'acme', key: h.key },
    { repo: REPO, org: 'acme', key: h.key },
    { repo: OTHER_ORG_REPO, org: 'globex', key: h.otherKey },
  ];
  for (const { repo, org, key } of targets) {
    const res = await h.uploadJson(
      { upload_id: `${repo.name}-0`, commit_sha: 'a0', repo, org_url_slug: org },
      [{ name: 'j.xml', content: junit({ Heals: 'FP' }) }],
      key,
    );
    if (res.statusCode !== 200) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  }
  for (let i = 1; i <= 10; i += 1) {
    h.tick(3_600_000);
    for (const { repo, org, key } of targets) {
      await h.uploadJson(
        { upload_id: `${repo.name}-${i}`, commit_sha: `a${i}`, repo, org_url_slug: org },
        [{ name: 'j.xml', content: junit({ Heals: 'P' }) }],
        key,
      );
    }
  }
  h.tick(8 * DAY);
  // What the code refuses to load: a negative stale period, written past the API.
  await h.pool.query(`UPDATE repositories SET classification = '{"staleDays": -1}' WHERE name = $1`, [
    BROKEN.name,
  ]);
  return h;
}

async function statuses(h: Harness): Promise<Record<string, string>> {
  const { rows } = await h.pool.query<{ repo: string; status: string }>(
    `SELECT r.owner || '/' || r.name AS repo, t.status FROM test_cases t
       JOIN repositories r ON r.pk = t.repository_pk WHERE t.name = 'Heals'`,
  );
  return Object.fromEntries(rows.map((r) => [r.repo, r.status]));
}

const HEALED_BUT_BROKEN = { 'acme/aaa-broken': 'flaky', 'acme/shop': 'healthy', 'globex/store': 'healthy' };

describe('a repository that throws', () => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  test('the activity heals the others, logs the failure with the repository and counts it', async () => {
    h = await world('flaky_reeval_iso_a');
    expect(await statuses(h)).toEqual({
      ...HEALED_BUT_BROKEN,
      'acme/shop': 'flaky',
      'globex/store': 'flaky',
    });
    const logged: { level: LogLevel; message: string; meta: LogMetadata | undefined }[] = [];
    const record = (level: LogLevel) => (message: string, meta?: LogMetadata) =>
      void logged.push({ level, message, meta });
    const logger = {
      log: (level: LogLevel, message: string, meta?: LogMetadata) => record(level)(message, meta),
      trace: record('TRACE'),
      debug: record('DEBUG'),
      info: record('INFO'),
      warn: record('WARN'),
      error: record('ERROR'),
    };
    const activities = createFlakyActivities({ pool: h.pool, now: () => h.clock.now });
    const summary = await new MockActivityEnvironment(undefined, { logger }).run<
      [],
      ReevaluationSummary,
      typeof activities.reevaluateFlakyTests
    >(activities.reevaluateFlakyTests);

    expect(summary).toMatchObject({
      repositories: 2,
      failedRepositories: 1,
      failed: ['github.com/acme/aaa-broken (organisation acme)'],
      changed: 2,
    });
    expect(await statuses(h)).toEqual(HEALED_BUT_BROKEN);
    const failures = logged.filter((l) => l.level === 'ERROR');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      message:
        're-evaluation of repository github.com/acme/aaa-broken (organisation acme) failed; the sweep goes on',
      meta: {
        repository: 'github.com/acme/aaa-broken',
        host: 'github.com',
        owner: 'acme',
        name: 'aaa-broken',
        organisation: 'acme',
        error: 'The classification parameter staleDays must be a number greater than 0 and at most 180.',
      },
    });
  });

  test('the scheduled workflow on the real Temporal service reports the failed repository in its result', async () => {
    try {
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Another test file in this jest worker installed the runtime already.
    }
    h = await world('flaky_reeval_iso_b');
    const address = requireTestEnv('TEST_TEMPORAL_ADDRESS');
    const connection = await Connection.connect({ address });
    const workerConnection = await NativeConnection.connect({ address });
    try {
      const client = new Client({ connection, namespace: 'default' });
      const taskQueue = `flaky-reeval-iso-${Date.now()}`;
      const workflowId = `flaky-reeval-iso-${Date.now()}`;
      const worker = await Worker.create({
        connection: workerConnection,
        taskQueue,
        workflowBundle: { codePath: requireTestEnv('TEST_WORKFLOW_BUNDLE') },
        activities: createFlakyActivities({ pool: h.pool, now: () => h.clock.now }),
      });
      const summary = await worker.runUntil(
        client.workflow.execute(FLAKY_REEVALUATION_WORKFLOW_TYPE, {
          taskQueue,
          workflowId,
          args: [],
        }) as Promise<ReevaluationSummary>,
      );
      expect(summary).toMatchObject({ repositories: 2, failedRepositories: 1, changed: 2 });
      expect(await statuses(h)).toEqual(HEALED_BUT_BROKEN);
      recordHistory('flaky-reevaluation', workflowId);
    } finally {
      await Promise.allSettled([connection.close(), workerConnection.close()]);
    }
  }, 60_000);
});
