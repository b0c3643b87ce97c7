/**
 * The flaky-test load: JUnit files sent through the real upload route (multipart, as CI sends them),
 * `uploads` of them, `concurrency` at a time, each with `testsPerUpload` results of which a few fail.
 * Each upload is a new CI job (its own upload id and commit) on one repository the organisation owns.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from './http';
import { pool, type QueueRef } from './queues';

export interface UploadLoadOptions {
  uploads: number;
  testsPerUpload: number;
  concurrency: number;
  repo: QueueRef['repo'];
  /** The slug of the key's organisation (the route checks it names the caller's own). */
  organisation: string;
  log: (line: string) => void;
}

export interface UploadLoadResult {
  uploads: number;
  results: number;
  seconds: number;
}

/** One job's JUnit: `tests` cases over 10 classes; case k fails in every 20th upload-and-case mix. */
export function junit(tests: number, seed: number): string {
  const cases: string[] = [];
  for (let k = 0; k < tests; k++) {
    const open = `    <testcase classname="pkg.Suite${k % 10}" name="test ${k}" file="src/suite${k % 10}.test.ts" time="0.${(k * 37 + seed) % 1000}"`;
    cases.push(
      (k + seed) % 20 === 0
        ? `${open}><failure message="expected 1 to be 2" type="AssertionError">expected 1 to be 2\n    at src/suite${k % 10}.test.ts:${k + 1}:7</failure></testcase>\n`
        : `${open}/>\n`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="capacity">\n  <testsuite name="capacity" tests="${tests}">\n${cases.join('')}  </testsuite>\n</testsuites>\n`;
}

export async function runUploadLoad(client: Client, opts: UploadLoadOptions): Promise<UploadLoadResult> {
  const started = Date.now();
  let uploads = 0;
  let results = 0;
  let lastReport = started;
  await pool([...Array(opts.uploads).keys()], opts.concurrency, async (u) => {
    const form = new FormData();
    form.append('org_url_slug', opts.organisation);
    form.append('repo.host', opts.repo.host);
    form.append('repo.owner', opts.repo.owner);
    form.append('repo.name', opts.repo.name);
    form.append('upload_id', randomUUID());
    form.append('commit_sha', randomBytes(20).toString('hex'));
    form.append('branch', 'main');
    form.append('job_name', `shard-${u % 8}`);
    form.append('file', new Blob([junit(opts.testsPerUpload, u)], { type: 'application/xml' }), 'junit.xml');
    const answer = (await client.upload(form)) as { results: number };
    uploads++;
    results += answer.results;
    if (Date.now() - lastReport > 10_000) {
      lastReport = Date.now();
      opts.log(`uploads: ${uploads}/${opts.uploads}, ${results.toLocaleString('en-US')} results`);
    }
  });
  opts.log(`uploads: ${uploads}/${opts.uploads}, ${results.toLocaleString('en-US')} results`);
  return { uploads, results, seconds: (Date.now() - started) / 1000 };
}
