/**
 * Finds the JUnit XML files a test command wrote into its checkout. The checkout holds code from pull
 * requests, so it is read as hostile:
 *  - symbolic links are never followed (a `junit.xml -> /etc/passwd` or a link to the worker's
 *    secrets is skipped), and files are opened with O_NOFOLLOW;
 *  - the walk, the number of files and their sizes are bounded; what is left out sets `truncated`;
 *  - `.git` and `node_modules` are not searched;
 *  - the globs come from the tested commit too: they are compiled once per walk into linear-time
 *    matchers (platform/glob.ts, the `junit` dialect: `**\/` any number of folders, `**`
 *    anything, `*` and `?` within one path segment, everything else literal), paths longer than
 *    `maxPathChars` are not tried, and the matching steps of the whole walk are bounded by
 *    `maxMatchSteps`; past it the walk stops.
 * Results are sorted by path, so two runs over the same files give the same list.
 */
import { constants } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GlobList } from '../platform/glob';
import type { JunitFile } from './test-runner';

export const DEFAULT_JUNIT_GLOBS = ['**/junit*.xml', '**/TEST-*.xml', '**/test-results/**/*.xml'];

export interface JunitLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Directory entries looked at before the walk gives up. */
  maxEntries: number;
  /** Files whose path (relative to the checkout) is longer are not matched against the globs. */
  maxPathChars: number;
  /** Glob matching steps (glob-nfa.ts; a few nanoseconds each) of the whole walk before it gives up. */
  maxMatchSteps: number;
}

export const DEFAULT_JUNIT_LIMITS: JunitLimits = {
  maxFiles: 100,
  maxFileBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  maxEntries: 100_000,
  maxPathChars: 1_024,
  maxMatchSteps: 100_000_000,
};

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);
const MAX_DEPTH = 32;

export async function collectJunitFiles(
  root: string,
  globs: readonly string[] = DEFAULT_JUNIT_GLOBS,
  limits: JunitLimits = DEFAULT_JUNIT_LIMITS,
): Promise<{ files: JunitFile[]; truncated: boolean }> {
  const found = await walk(root, junitFileMatcher(globs, limits), limits.maxEntries);
  const files: JunitFile[] = [];
  let truncated = found.truncated;
  let total = 0;
  for (const path of found.paths.sort()) {
    if (files.length >= limits.maxFiles) {
      truncated = true;
      break;
    }
    const xml = await readRegularFile(join(root, path), limits.maxFileBytes);
    const size = xml === null ? 0 : Buffer.byteLength(xml);
    if (xml === null || total + size > limits.maxTotalBytes) {
      truncated = true;
      continue;
    }
    total += size;
    files.push({ path, xml });
  }
  return { files, truncated };
}

/**
 * Whether a path is a JUnit file by the globs: `yes`, `no`, `skipped` (too long to try: left out,
 * the walk goes on) or `spent` (the walk's matching steps are used up: it stops). Either of the last
 * two sets `truncated`.
 */
type Verdict = 'yes' | 'no' | 'skipped' | 'spent';

export function junitFileMatcher(
  globs: readonly string[],
  limits: Pick<JunitLimits, 'maxPathChars' | 'maxMatchSteps'>,
): (relativePath: string) => Verdict {
  const list = new GlobList(globs, 'junit');
  const meter = { steps: 0 };
  return (relativePath) => {
    if (meter.steps > limits.maxMatchSteps) return 'spent';
    if (relativePath.length > limits.maxPathChars) return 'skipped';
    const path = list.prepare(relativePath);
    for (let i = 0; i < list.length; i += 1) {
      if (list.matchesAt(i, path, meter)) return 'yes';
      if (meter.steps > limits.maxMatchSteps) return 'spent';
    }
    return 'no';
  };
}

async function walk(
  root: string,
  matches: (relativePath: string) => Verdict,
  maxEntries: number,
): Promise<{ paths: string[]; truncated: boolean }> {
  const paths: string[] = [];
  const pending: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  let seen = 0;
  let truncated = false;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const entries = await readdir(next.dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > maxEntries) return { paths, truncated: true };
      const rel = next.rel === '' ? entry.name : `${next.rel}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name) && next.depth < MAX_DEPTH) {
        pending.push({ dir: join(next.dir, entry.name), rel, depth: next.depth + 1 });
      } else if (entry.isFile()) {
        const verdict = matches(rel);
        switch (verdict) {
          case 'yes':
            paths.push(rel);
            break;
          case 'no':
            break;
          case 'skipped':
            truncated = true;
            break;
          case 'spent':
            return { paths, truncated: true };
        }
      }
    }
  }
  return { paths, truncated };
}

/** The file's text, or null when it is not a regular file (a link, say) or larger than `maxBytes`. */
async function readRegularFile(path: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    // Bounded by the size seen now, even if the file is still growing.
    const buffer = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
