/**
 * The run report: what an executor hands back to the control plane at the end of a test run (issue 17)
 * — the verdict, the JUnit files and the log — as one gzip-compressed JSON document in the executor
 * activity's result. A Uint8Array travels as Temporal's binary payload, untouched by the JSON converter.
 *
 * Invariants:
 * - A packed report is at most MAX_PACKED_BYTES, under Temporal's 2 MB payload limit: the log is cut to
 *   its head and tail first (LOG_BYTES), then JUnit files are left out, largest first, until it fits;
 *   every cut is said (logTruncated, junitTruncated), never silent.
 * - Unpacking checks the shape; a report that is not one is an error, not a verdict.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { JunitFile, TestOutcome } from './test-runner';

export const MAX_PACKED_BYTES = 1_900_000;
/** The part of the log a report carries (the control plane keeps at most RAILYARD_RUN_LOG_MAX_BYTES). */
export const LOG_BYTES = 1024 * 1024;
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;

export interface RunReport {
  outcome: TestOutcome;
  exitCode: number | null;
  durationMs: number;
  junitFiles: JunitFile[];
  junitTruncated: boolean;
  /** The log as text: all of it, or its head and tail around a line saying what was left out. */
  log: string;
  logOriginalBytes: number;
  logTruncated: boolean;
}

const RunReportSchema = z.object({
  outcome: z.enum(['passed', 'failed', 'timeout', 'cancelled']),
  exitCode: z.number().int().nullable(),
  durationMs: z.number().nonnegative(),
  junitFiles: z.array(z.object({ path: z.string(), xml: z.string() })),
  junitTruncated: z.boolean(),
  log: z.string(),
  logOriginalBytes: z.number().nonnegative(),
  logTruncated: z.boolean(),
});

/** The report within MAX_PACKED_BYTES (see the invariants). */
export function packRunReport(report: RunReport, maxBytes = MAX_PACKED_BYTES): Uint8Array {
  let current = report;
  const bySize = [...report.junitFiles].sort((a, b) => b.xml.length - a.xml.length);
  for (;;) {
    const packed = gzipSync(JSON.stringify(current));
    if (packed.length <= maxBytes) return new Uint8Array(packed);
    const largest = bySize.shift();
    if (largest) {
      current = {
        ...current,
        junitFiles: current.junitFiles.filter((f) => f !== largest),
        junitTruncated: true,
      };
      continue;
    }
    // Only the log is left and it does not fit (output that does not compress): keep less of it.
    if (current.log.length <= 1024) throw new Error('a run report does not fit in a Temporal payload');
    current = {
      ...current,
      log: cutMiddle(current.log, Math.floor(current.log.length / 2)),
      logTruncated: true,
    };
  }
}

export function unpackRunReport(packed: Uint8Array): RunReport {
  const json = gunzipSync(packed, { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8');
  return RunReportSchema.parse(JSON.parse(json));
}

/** Head (a quarter) and tail of `text` within `max` characters, joined by a note of the cut. */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 4);
  const tail = max - head;
  return `${text.slice(0, head)}\n# railyard: ${text.length - head - tail} characters left out here (report limit)\n${text.slice(text.length - tail)}`;
}
