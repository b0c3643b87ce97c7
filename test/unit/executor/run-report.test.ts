/** The run report (executor/run-report.ts): it always fits a Temporal payload; and what counts as a sandbox setup failure. */
import { executorFault, sandboxSetupFailure } from '../../../executor/run-job';
import { CGROUP_JOIN_FAILED } from '../../../executor/run-cgroup';
import { NETWORK_DOWN } from '../../../executor/sandbox-network';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  cutMiddle,
  MAX_PACKED_BYTES,
  packRunReport,
  unpackRunReport,
  type RunReport,
} from '../../../executor/run-report';

const base: RunReport = {
  outcome: 'failed',
  exitCode: 1,
  durationMs: 1234,
  junitFiles: [{ path: 'junit.xml', xml: '<testsuite name="a"><testcase name="t"/></testsuite>' }],
  junitTruncated: false,
  log: 'hello\n',
  logOriginalBytes: 6,
  logTruncated: false,
};

test('a small report travels whole', () => {
  expect(unpackRunReport(packRunReport(base))).toEqual(base);
});

test('JUnit files that do not fit are left out, largest first, and the report says so', () => {
  // Base64 noise packs to about 3/4 of its length: the three big files (2.3 MB packed) cannot fit.
  const noise = (n: number) => randomBytes(n).toString('base64');
  const files = [
    { path: 'a.xml', xml: noise(900_000) },
    { path: 'b.xml', xml: noise(1_200_000) },
    { path: 'c.xml', xml: noise(1_000_000) },
    { path: 'd.xml', xml: '<testsuite/>' },
  ];
  const packed = packRunReport({ ...base, junitFiles: files });
  expect(packed.length).toBeLessThanOrEqual(MAX_PACKED_BYTES);
  const back = unpackRunReport(packed);
  expect(back.junitTruncated).toBe(true);
  expect(back.junitFiles.map((f) => f.path)).not.toContain('b.xml');
  expect(back.junitFiles.map((f) => f.path)).toContain('d.xml');
});

test('a log that does not compress is cut in the middle until the report fits', () => {
  const log = randomBytes(3_000_000).toString('base64');
  const packed = packRunReport({ ...base, junitFiles: [], log, logOriginalBytes: log.length });
  expect(packed.length).toBeLessThanOrEqual(MAX_PACKED_BYTES);
  const back = unpackRunReport(packed);
  expect(back.logTruncated).toBe(true);
  expect(back.log.startsWith(log.slice(0, 1000))).toBe(true);
  expect(back.log.endsWith(log.slice(-1000))).toBe(true);
  expect(back.log).toMatch(/characters left out here \(report limit\)/);
});

test('something that is not a report is refused', () => {
  expect(() => unpackRunReport(gzipSync(JSON.stringify({ outcome: 'won' })))).toThrow();
  expect(() => unpackRunReport(new Uint8Array([1, 2, 3]))).toThrow();
});

test('cutMiddle keeps a quarter of the budget from the head and the rest from the tail', () => {
  const cut = cutMiddle('a'.repeat(100) + 'b'.repeat(100), 40);
  expect(cut.startsWith('a'.repeat(10))).toBe(true);
  expect(cut.endsWith('b'.repeat(30))).toBe(true);
  expect(cutMiddle('short', 40)).toBe('short');
});

test("bwrap's own setup error, first in a failed run's log, is the executor's fault; the command's output is not", () => {
  const header = '# railyard test run x\n# command: true\n# started now\n';
  expect(
    sandboxSetupFailure(
      1,
      `${header}bwrap: loopback: Failed RTM_NEWADDR: No child processes\n\n# failed: exit code 1`,
    ),
  ).toMatch(/could not be set up \(bwrap: loopback/);
  expect(sandboxSetupFailure(1, `${header}FAIL calc\nbwrap: later\n# failed`)).toBeNull();
  expect(sandboxSetupFailure(2, `${header}bwrap: x\n`)).toBeNull();
  expect(sandboxSetupFailure(0, `${header}bwrap: x\n`)).toBeNull();
});

test('a run that never started its command is tried again, whatever kept it from starting (issue 24)', () => {
  const header = '# railyard test run x\n# command: true\n# started now\n';
  expect(executorFault(125, `${header}${NETWORK_DOWN}\n`)).toEqual({
    kind: 'sandbox_network_down',
    message: NETWORK_DOWN,
  });
  // Per-run cgroup limits: a run whose first process could not join its cgroup ran nothing.
  expect(executorFault(125, `${header}${CGROUP_JOIN_FAILED}\n`)).toEqual({
    kind: 'sandbox_setup_failed',
    message: CGROUP_JOIN_FAILED,
  });
  expect(executorFault(1, `${header}bwrap: loopback: Failed RTM_NEWADDR\n`)?.kind).toBe(
    'sandbox_setup_failed',
  );
  // The command's own exit 125, or the message printed by a command that exits otherwise: its verdict.
  expect(executorFault(125, `${header}error: 125\n`)).toBeNull();
  expect(executorFault(1, `${header}ok\n${CGROUP_JOIN_FAILED}\n`)).toBeNull();
});
