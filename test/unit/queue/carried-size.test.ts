/**
 * The queue's carried state across continue-as-new (workflows/queue/carry-codec.ts) on a large queue:
 * 1,000 PRs queued, 50 required statuses reported for each test run, the most finished runs the queue
 * keeps (MAX_FINISHED_RUNS) and update results it remembers (MAX_UPDATE_RESULTS). Issue 25's target:
 * under 256 KiB. Also: what the next run gets back is the state minus finished runs' status reports.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { decide, initialState, type EngineEvent, type QueueState } from '../../../engine';
import type { CommitStatusReport } from '../../../contract';
import {
  DEFAULT_RUNNER,
  MAX_DEFERRED_SUBMISSIONS,
  MAX_FINISHED_RUNS,
  MAX_UPDATE_RESULTS,
  type Carried,
  type PrMeta,
  type RunMeta,
} from '../../../workflows/queue/carried';
import { decodeCarried, encodeCarried, forCarrying } from '../../../workflows/queue/carry-codec';
import {
  COMMIT_MESSAGES_BUDGET_BYTES,
  commitMessageRefusal,
  heldCommitMessageBytes,
} from '../../../workflows/queue/commit-budget';
import {
  fitCarried,
  payloadBytes,
  titleBytes,
  TITLES_BUDGET_BYTES,
  cutTitle,
} from '../../../workflows/queue/payload-fit';

const LIMIT = 256 * 1024;
const PRS = 1_000;
const REQUIRED = 50;

/** Hex that looks random (commits, ids) but is the same on every run of the test. */
const hex = (seed: string, length = 40) =>
  createHash('sha256').update(seed).digest('hex').repeat(2).slice(0, length);
const uuid = (seed: string) => {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
const VERBS = ['Fix', 'Add', 'Remove', 'Refactor', 'Speed up', 'Document', 'Test', 'Rename'];
const THINGS = ['cache', 'retry loop', 'login form', 'billing export', 'search index', 'rate limiter'];
const title = (pr: number) =>
  `${VERBS[pr % VERBS.length]} the ${THINGS[pr % THINGS.length]} in services/module-${pr % 97} (#${pr})`;

const statuses = (sha: string, run: string): CommitStatusReport[] =>
  Array.from({ length: REQUIRED }, (_, i) => ({
    sha,
    context: `ci/job-${String(i).padStart(2, '0')}`,
    state: 'success',
    url: `https://ci.example.com/acme/widgets/builds/${hex(run, 8)}/jobs/${i}`,
    description: `Job ${i} passed in ${(i % 7) + 2}m ${(i * 13) % 60}s`,
  }));

/** A queue holding PRS PRs, its runs in progress and MAX_FINISHED_RUNS finished ones, all with statuses. */
function largeQueue(): Carried {
  let engine: QueueState = initialState({ concurrency: 4 });
  let ids = 0;
  let now = 1_780_000_000_000;
  const runs: RunMeta[] = [];
  const prs: Record<string, PrMeta> = {};
  const apply = (event: EngineEvent) => {
    now += 1_371;
    const { state, commands } = decide(engine, event, { now, newId: () => uuid(`run-${++ids}`) });
    engine = state;
    for (const cmd of commands)
      if (cmd.type === 'startTestRun') {
        const headSha = hex(`head-${cmd.runId}`);
        runs.push(runOf(cmd.runId, cmd.prs, headSha, 'in_progress', now));
      }
  };
  apply({ type: 'targetBranchMoved', sha: hex('tip') });
  for (let pr = 1; pr <= PRS; pr++) {
    prs[String(pr)] = {
      submissionId: uuid(`submission-${pr}`),
      title: title(pr),
      author: `developer-${pr % 41}`,
      baseBranch: 'main',
      explicitPriority: pr % 10 === 0,
      readiness: {
        hasImpactedTargets: false,
        requiresImpactedTargets: false,
        doesBaseBranchMatch: true,
        gitHubMergeability: 'mergeable',
      },
      notified: 2,
      submittedAt: now,
    };
    apply({
      type: 'submitted',
      pr,
      headSha: hex(`pr-${pr}`),
      priority: 100,
      noBatch: false,
      ready: true,
      baseSha: null,
      reason: 'API_REQUESTED',
    });
  }
  const finished = Array.from({ length: MAX_FINISHED_RUNS }, (_, i) =>
    runOf(uuid(`finished-${i}`), [PRS + i + 1], hex(`finished-head-${i}`), 'succeeded', now - 1e6 + i),
  );
  return {
    engine,
    runner: { ...DEFAULT_RUNNER, requiredStatuses: statuses('', '').map((s) => s.context) },
    prs,
    runs: [...finished, ...runs],
    inbox: [],
    deleted: false,
    updateResults: Array.from({ length: MAX_UPDATE_RESULTS }, (_, i) => [
      uuid(`update-${i}`),
      { submissionId: uuid(`submission-${(i % PRS) + 1}`), resubmitted: false },
    ]),
    earlyTargets: [],
    rejectedAdmissions: [],
    unstored: [],
    viewRevision: 12_345,
  };
}

function runOf(
  runId: string,
  prNumbers: number[],
  headSha: string,
  status: RunMeta['status'],
  at: number,
): RunMeta {
  return {
    runId,
    branchName: `railyard-merge/pr-${prNumbers[0]}/${runId}`,
    headSha,
    baseSha: hex(`base-${runId}`),
    createdAt: at,
    prs: prNumbers,
    ahead: [],
    bisection: false,
    status,
    runner: 'statuses',
    child: null,
    childStarted: false,
    statuses: statuses(headSha, runId),
    titles: Object.fromEntries(prNumbers.map((n) => [String(n), title(n)])),
    cleaned: status !== 'in_progress',
  };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

test('1,000 PRs queued with 50 required statuses per run: the carried state stays under 256 KiB', () => {
  const c = largeQueue();
  expect(c.engine.entries).toHaveLength(PRS);
  expect(c.runs.filter((r) => r.status === 'in_progress').length).toBeGreaterThan(0);
  // As carried before: the whole state, every finished run's reports with it.
  const whole = bytes(c);
  const encoded = bytes(encodeCarried(c));
  expect(whole).toBeGreaterThan(4 * LIMIT);
  expect(encoded).toBeLessThan(LIMIT);
  console.log(
    `carried state, ${PRS} PRs: ${(whole / 1024).toFixed(0)} KiB as JSON, ` +
      `${(bytes(forCarrying(c)) / 1024).toFixed(0)} KiB without finished runs' reports, ` +
      `${(encoded / 1024).toFixed(0)} KiB carried`,
  );
});

test('the next run gets the state back, without finished runs’ status reports', () => {
  const c = largeQueue();
  const encoded = encodeCarried(c);
  expect(encoded).toHaveProperty('codec', 'lzw-ids-1');
  const back = decodeCarried(encoded);
  expect(back).toEqual(JSON.parse(JSON.stringify(forCarrying(c))));
  for (const run of back.runs) expect(run.statuses.length).toBe(run.status === 'in_progress' ? REQUIRED : 0);
});

test('the most deferred submissions a closing queue carries (ADR 0027) cross unchanged, under 256 KiB', () => {
  const c = largeQueue();
  c.deferredSubmissions = Array.from({ length: MAX_DEFERRED_SUBMISSIONS }, (_, i) => ({
    pr: PRS + 1 + i,
    submissionId: uuid(`deferred-${i}`),
    priority: i % 3 === 0 ? null : i % 256,
    noBatch: i % 2 === 0,
    ...(i % 4 === 0 ? { expectedHeadSha: hex(`head-${i}`) } : {}),
    ...(i % 5 === 0 ? { commitMessage: { title: title(i), body: `Body of ${i}` } } : {}),
  }));
  const encoded = encodeCarried(c);
  expect(decodeCarried(encoded).deferredSubmissions).toEqual(c.deferredSubmissions);
  expect(bytes(encoded)).toBeLessThan(LIMIT);
});

test('text outside ASCII, escapes and an empty queue cross unchanged; plain state reads as itself', () => {
  const c = largeQueue();
  c.prs['1']!.title = 'Ünïcödé ✓ 🚀 "quotes" \\ back\\slash \u0000 \ud800 lone';
  const back = decodeCarried(encodeCarried(c));
  expect(back.prs['1']!.title).toBe(c.prs['1']!.title);
  const empty: Carried = { ...c, engine: initialState(), prs: {}, runs: [], updateResults: [] };
  expect(decodeCarried(encodeCarried(empty) as never)).toEqual(JSON.parse(JSON.stringify(empty)));
  expect(decodeCarried(empty)).toBe(empty);
});

test('any JSON, commits, uuids and strings that look like references cross unchanged', () => {
  const value = fc.oneof(
    fc.jsonValue(),
    fc.stringMatching(/^[0-9a-f]{40}$/),
    fc.uuid(),
    fc.string().map((s) => `\u0001${s}`),
    fc.constantFrom('\u0001s', '\u0001u', '\u0001e', 'A'.repeat(40)),
  );
  fc.assert(
    fc.property(fc.array(value), (values) => {
      const state = { runs: [], values } as unknown as Carried;
      const encoded = encodeCarried(state);
      // Encoded, not the plain fallback (which would hide a codec that misreads).
      expect(encoded).toHaveProperty('codec', 'lzw-ids-1');
      expect(decodeCarried(encoded)).toEqual(JSON.parse(JSON.stringify(state)));
    }),
    { numRuns: 300 },
  );
});

test('the format is pinned: a state encoded by the first codec (117e3ab) is decoded, and encoded again to the same text', () => {
  // A run in flight hands its successor what the codec of its own worker wrote: the encoder may get
  // faster, never write another format under the same name.
  const state = {
    runs: [],
    values: [
      'fe2b1b3c0d9a8e7f6a5b4c3d2e1f0a9b8c7d6e5f',
      '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
      'Ünïcödé ✓ 🚀 "quotes"',
      '\u0001s',
      { state: 'testing', reason: 'SUBMITTED', pr: 12, title: 'testing testing testing testing' },
      { state: 'testing', reason: 'SUBMITTED', pr: 13, title: 'testing testing testing testing' },
      Array.from({ length: 40 }, (_, i) => i * 997),
    ],
  } as unknown as Carried;
  const written = {
    codec: 'lzw-ids-1',
    ids: '/isbPA2ajn9qW0w9Lh8Km4x9bl8/JQTgT4lB05oMAwXoLDMB',
    data:
      'AAACEXsicnVucyI6W10sInZhbHVlhYciXHUwljGFipSWMDF1IpqVMGRjbpswZWZjp2Y2ZKdlOSCUMjcxM7N1ZDgzr7plODCzInF1b3SQXC' +
      'Kgk6KdZaedmYBzdGHIhiLI1WluZ8xyZWFzb27ZU1VCTUlUVEVEzHByhjEyinRpdGxl2dv4bwgfzdM8BSD/gkCbwiPosajWbA6bUGgbgcTkc0Rd' +
      'DqdjueCKeT0Gb3fL7fsTgEJhEnlTchUMLYwFg5HI3FgxmY0FgymYxFgzHI4HAsGlAGosGtAew2mg5Fg3mg2Fg4mkimY3mIxGA5G01GM3G05etb' +
      'nq3HI1oQxog1owxpA1ewxpdEm1PGlRGNTGkim45GkxGVaGc1GU3Gc5GU7Gc9GU/GVCGVEGVGyQ5xE6pc3nVPuM6qa3nU8mIzrQwmuKHIwnIzna' +
      'dnwzqdCw1Towzs+Vnw2oNNwVBqOvoIzLpdPo',
  } as const;
  expect(decodeCarried(written as never)).toEqual(JSON.parse(JSON.stringify(state)));
  expect(encodeCarried(state)).toEqual(written);
});

test('corrupt encoded data is refused with a reason, never misread', () => {
  const encoded = encodeCarried(largeQueue()) as { codec: 'lzw-ids-1'; ids: string; data: string };
  expect(() => decodeCarried({ ...encoded, data: `${encoded.data.slice(0, 10)}!` })).toThrow(/not base64/);
  expect(() => decodeCarried({ ...encoded, data: encoded.data.slice(0, 1000) })).toThrow(/ends early/);
  // A length beyond any state (the first 32 bits) must not allocate it.
  expect(() => decodeCarried({ ...encoded, data: `/////w${encoded.data.slice(6)}` })).toThrow(/implausible/);
});

/** Text that compresses badly and grows the most when carried: random astral characters (12 bytes escaped). */
const noise = (seed: string, chars: number) => {
  const h = createHash('sha512');
  let out = '';
  let block = h.update(seed).digest();
  for (let i = 0; out.length < chars * 2; i += 2) {
    if (i + 1 >= block.length) {
      block = createHash('sha512').update(block).digest();
      i = 0;
    }
    out += String.fromCodePoint(0x10000 + ((block[i]! << 8) | block[i + 1]!) * 15);
  }
  return out.slice(0, chars * 2);
};

describe('commit messages are bounded in bytes (commit-budget.ts)', () => {
  test('a queue filled to its budget with the worst text carries what it did before, plus at most the budget', () => {
    const c = largeQueue();
    const before = bytes(encodeCarried(c));
    // Bodies of noise submitted one after the other until the budget refuses one.
    let accepted = 0;
    let refusal: string | null = null;
    for (let pr = 1; pr <= PRS && refusal === null; pr++) {
      const message = { title: noise(`t-${pr}`, 128), body: noise(`b-${pr}`, 4_000) };
      refusal = commitMessageRefusal(c, [], pr, message);
      if (refusal === null) {
        c.prs[String(pr)]!.commitMessage = message;
        accepted += 1;
      }
    }
    expect(refusal).toMatch(
      /^Fields 'commitTitle' and 'commitBody' would take this queue's commit messages past its limit of 256 KiB \(it holds [\d.]+ KiB, these are [\d.]+ KiB\); submit with a shorter commitBody/,
    );
    expect(accepted).toBeGreaterThan(0);
    expect(heldCommitMessageBytes(c, [], 0)).toBeLessThanOrEqual(COMMIT_MESSAGES_BUDGET_BYTES);
    const encoded = encodeCarried(c);
    const full = bytes(encoded);
    expect(full - before).toBeLessThan(COMMIT_MESSAGES_BUDGET_BYTES);
    expect(decodeCarried(encoded).prs['1']!.commitMessage).toEqual(c.prs['1']!.commitMessage);
    console.log(
      `carried state: ${(before / 1024).toFixed(0)} KiB; with ${accepted} commit messages of noise up to the budget ` +
        `${(full / 1024).toFixed(0)} KiB (titles read from the host: payload-fit.ts, below)`,
    );
  });

  test('the rule: no message is never refused, a PR’s own earlier message does not count, requests do', () => {
    const c = largeQueue();
    const big = (chars: number) => 'x'.repeat(chars);
    expect(commitMessageRefusal(c, [], 5, undefined)).toBeNull();
    // 32 bodies of 8,000 ASCII characters: 256,064 bytes carried, just past the budget with 33.
    for (let pr = 1; pr <= 32; pr++) c.prs[String(pr)]!.commitMessage = { body: big(8_000) };
    expect(heldCommitMessageBytes(c, [], 0)).toBe(32 * 8_002);
    const room = COMMIT_MESSAGES_BUDGET_BYTES - 32 * 8_002;
    expect(commitMessageRefusal(c, [], 40, { body: big(room - 2) })).toBeNull();
    expect(commitMessageRefusal(c, [], 40, { body: big(room - 1) })).not.toBeNull();
    // A resubmission of PR 1 replaces its own 8,002 bytes.
    expect(commitMessageRefusal(c, [], 1, { body: big(room + 8_000) })).toBeNull();
    // A request being read counts, once, even when it is also deferred.
    const request = {
      pr: 50,
      submissionId: uuid('req-50'),
      priority: null,
      noBatch: false,
      commitMessage: { body: big(100) },
    };
    c.deferredSubmissions = [request];
    expect(heldCommitMessageBytes(c, [request], 0)).toBe(32 * 8_002 + 102);
    // A request still pending for a PR already queued under its submission id counts once, as queued.
    const queued = {
      ...request,
      pr: 2,
      submissionId: c.prs['2']!.submissionId,
      commitMessage: { body: big(8_000) },
    };
    expect(heldCommitMessageBytes(c, [request, queued], 0)).toBe(32 * 8_002 + 102);
    expect(commitMessageRefusal(c, [request], 40, { body: big(room - 2) })).not.toBeNull();
    // Counted as carried: a quote is two bytes, a newline two, a control character and an é six, an emoji twelve.
    expect(
      heldCommitMessageBytes(
        { prs: { '1': { ...c.prs['1']!, commitMessage: { title: '"\n\u0001é🚀a' } } } },
        [],
        0,
      ),
    ).toBe(2 + 2 + 2 + 6 + 6 + 12 + 1);
  });
});

describe('the payload guard at continue-as-new (payload-fit.ts)', () => {
  const noisy = (seed: string) => noise(seed, 128);

  test('titles within their budget are carried exactly as encoded, 256 ASCII characters each included', () => {
    const c = largeQueue();
    for (const [n, meta] of Object.entries(c.prs)) {
      meta.title = `${title(Number(n))} `.repeat(8).slice(0, 256);
      meta.commitMessage = { title: meta.title.split('').reverse().join('') };
    }
    expect(titleBytes(c)).toBeLessThan(TITLES_BUDGET_BYTES);
    const fit = fitCarried(c);
    expect(fit.cutTo).toBeNull();
    expect(fit.carried).toEqual(encodeCarried(c));
    expect(fit.bytes).toBe(bytes(fit.carried));
  });

  test('titles of emoji noise everywhere: over their budget, cut before the state is encoded', () => {
    const c = largeQueue();
    for (const [n, meta] of Object.entries(c.prs)) {
      meta.title = noisy(`title-${n}`);
      meta.commitMessage = {
        title: noisy(`commit-${n}`),
        ...(Number(n) <= 3 ? { body: `Body ${n} 🚀` } : {}),
      };
    }
    for (const run of c.runs)
      run.titles = Object.fromEntries(
        Object.keys(run.titles).map((pr) => [pr, noisy(`run-${run.runId}-${pr}`)]),
      );
    const started = performance.now();
    const fit = fitCarried(c);
    const took = performance.now() - started;
    console.log(
      `titles of 128 emoji everywhere: ${(fit.titleBytes / 1024).toFixed(0)} KiB as carried; cut to ${fit.cutTo} ` +
        `bytes each, the state carries ${(fit.bytes / 1024).toFixed(0)} KiB (${took.toFixed(0)} ms to cut and encode)`,
    );
    expect(fit.titleBytes).toBeGreaterThan(TITLES_BUDGET_BYTES);
    expect(fit.cutTo).toBe(192);
    expect(titleBytes(decodeCarried(fit.carried as never))).toBeLessThanOrEqual(TITLES_BUDGET_BYTES);
    expect(fit.bytes).toBeLessThan(1024 * 1024);
    expect(fit.bytes).toBe(bytes(fit.carried));
    const back = decodeCarried(fit.carried);
    for (const [n, meta] of Object.entries(back.prs)) {
      expect(meta.title.length).toBeGreaterThan(0);
      expect(c.prs[n]!.title.startsWith(meta.title)).toBe(true);
      expect(c.prs[n]!.commitMessage!.title!.startsWith(meta.commitMessage!.title!)).toBe(true);
      // Bodies are bounded by the submit's budget, not cut here.
      expect(meta.commitMessage!.body).toBe(c.prs[n]!.commitMessage!.body);
    }
    expect(back.engine).toEqual(JSON.parse(JSON.stringify(c.engine)));
  });

  test('a cut never splits a character and keeps the most ASCII; payloadBytes is the UTF-8 length of the JSON', () => {
    expect(cutTitle('🚀é🚀x', 2 + 12 + 6)).toBe('🚀é');
    expect(cutTitle('🚀é🚀x', 2 + 12 + 6 + 11)).toBe('🚀é');
    expect(cutTitle('🚀é🚀x', 2 + 12 + 6 + 12)).toBe('🚀é🚀');
    expect(cutTitle('a"b', 4)).toBe('a');
    expect(cutTitle('x'.repeat(300), 192)).toBe('x'.repeat(190));
    expect(cutTitle('short', 192)).toBe('short');
    const c = largeQueue();
    expect(payloadBytes(c)).toBe(bytes(c));
    c.prs['1']!.title = '🚀é "x"';
    expect(payloadBytes(c)).toBe(bytes(c));
  });
});
