/**
 * The per-checkout disk quota of the `command` runner (issue 17): RLIMIT_FSIZE bounds one file, this
 * bounds the whole checkout. `measureTree` is one bounded walk; `watchDiskQuota` repeats it while the
 * command runs and reports the first breach (the runner then stops the run, like an oversized log).
 *
 * Rules and invariants of the walk:
 *  - Bytes are allocated bytes (`blocks × 512`, what `du` counts), of every file, folder and link
 *    under the root, the root included; sparse files count what they really occupy.
 *  - Links are never followed (lstat, and only real folders are descended); nothing is read but
 *    folder listings and metadata.
 *  - The work per walk is bounded whatever the tree: it stops as soon as the bytes pass `maxBytes`,
 *    after `maxEntries` entries (files, folders and links together), or at folders nested deeper
 *    than `maxDepth`, and says which bound it hit; each of those is a breach of the quota (a checkout
 *    the walk cannot finish cannot be called small). Memory is bounded too: the walk is depth first
 *    with one open folder per level and at most BATCH names pending per level, so a folder of a
 *    million entries costs no more memory than one of a hundred.
 *  - A folder or file that cannot be read (permissions changed by the command, a path longer than
 *    PATH_MAX…) ends the walk as `unreadable`, a breach too: content the walk cannot see cannot be
 *    counted. Entries that vanish during the walk (the command deleting them) are skipped.
 *  - A folder swapped for a link between its lstat and its opening can only make the walk count more
 *    (still bounded by `maxEntries`); it never writes anything.
 * And of the watch:
 *  - Walks never overlap; the next starts `intervalMs` after the previous ended, or as long after as
 *    that walk took if it was longer, so measuring takes at most about half of the run's time.
 *  - A run can pass its quota by what it writes between two walks; the disk needs that headroom.
 */
import type { Dir, Stats } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Folders nested deeper than this below the checkout breach the quota (one open folder per level). */
export const MAX_TREE_DEPTH = 128;

export interface TreeLimits {
  /** Stop counting once the total passes this. */
  maxBytes: number;
  /** Stop after this many entries below the root. */
  maxEntries: number;
  /** Stop at folders nested deeper than this below the root. */
  maxDepth: number;
  /** Aborting ends the walk early (`aborted`). */
  signal?: AbortSignal;
}

export type TreeUsage =
  | { kind: 'within'; bytes: number; entries: number }
  | { kind: 'over_bytes'; bytes: number; entries: number }
  | { kind: 'over_entries'; bytes: number; entries: number }
  | { kind: 'too_deep'; bytes: number; entries: number }
  | { kind: 'unreadable'; code: string }
  | { kind: 'aborted' };

/** Names read and lstat-ed together: the most names pending per level, and the lstat concurrency. */
const BATCH = 32;

interface Frame {
  path: string;
  depth: number;
  dir: Dir;
  /** Sub-folders of the last batch, still to descend into. */
  subdirs: string[];
}

/** The allocated size of one entry; `blocks` is absent on some platforms, then the length counts. */
function allocated(stats: Stats): number {
  return typeof stats.blocks === 'number' ? stats.blocks * 512 : stats.size;
}

/** Whether an error means the entry went away meanwhile (skipped), not that it cannot be read. */
function vanished(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The errno name (EACCES, ENAMETOOLONG…); anything else becomes EIO, so no odd text reaches a log. */
function codeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && /^E[A-Z0-9]{1,20}$/.test(code) ? code : 'EIO';
}

export async function measureTree(root: string, limits: TreeLimits): Promise<TreeUsage> {
  let rootStats: Stats;
  try {
    rootStats = await lstat(root);
  } catch (error) {
    return vanished(error)
      ? { kind: 'within', bytes: 0, entries: 0 }
      : { kind: 'unreadable', code: codeOf(error) };
  }
  let bytes = allocated(rootStats);
  let entries = 0;
  if (!rootStats.isDirectory()) return { kind: 'within', bytes, entries };

  const stack: Frame[] = [];
  const enter = async (path: string, depth: number): Promise<TreeUsage | null> => {
    try {
      stack.push({ path, depth, dir: await opendir(path, { bufferSize: BATCH }), subdirs: [] });
      return null;
    } catch (error) {
      return vanished(error) ? null : { kind: 'unreadable', code: codeOf(error) };
    }
  };

  try {
    const first = await enter(root, 0);
    if (first) return first;
    while (stack.length > 0) {
      if (limits.signal?.aborted) return { kind: 'aborted' };
      const top = stack[stack.length - 1] as Frame;
      const next = top.subdirs.pop();
      if (next !== undefined) {
        if (top.depth + 1 > limits.maxDepth) return { kind: 'too_deep', bytes, entries };
        const failed = await enter(join(top.path, next), top.depth + 1);
        if (failed) return failed;
        continue;
      }
      let names: string[];
      try {
        names = await readBatch(top.dir);
      } catch (error) {
        if (!vanished(error)) return { kind: 'unreadable', code: codeOf(error) };
        names = [];
      }
      if (names.length === 0) {
        stack.pop();
        await top.dir.close().catch(() => undefined);
        continue;
      }
      entries += names.length;
      if (entries > limits.maxEntries) return { kind: 'over_entries', bytes, entries };
      const stats = await Promise.all(
        names.map((name) =>
          lstat(join(top.path, name)).then(
            (s): Stats | null => s,
            (error: unknown) => {
              if (vanished(error)) return null;
              throw error;
            },
          ),
        ),
      ).catch((error: unknown) => ({ code: codeOf(error) }));
      if (!Array.isArray(stats)) return { kind: 'unreadable', code: stats.code };
      stats.forEach((s, i) => {
        if (s === null) return;
        bytes += allocated(s);
        if (s.isDirectory()) top.subdirs.push(names[i] as string);
      });
      if (bytes > limits.maxBytes) return { kind: 'over_bytes', bytes, entries };
    }
    return { kind: 'within', bytes, entries };
  } finally {
    // Folders left open by an early return (a bound was hit).
    await Promise.all(stack.map((frame) => frame.dir.close().catch(() => undefined)));
  }
}

/** Up to BATCH names from an open folder; empty at its end. */
async function readBatch(dir: Dir): Promise<string[]> {
  const names: string[] = [];
  while (names.length < BATCH) {
    const entry = await dir.read();
    if (entry === null) break;
    names.push(entry.name);
  }
  return names;
}

export type QuotaBreach = Exclude<TreeUsage, { kind: 'within' } | { kind: 'aborted' }>;

export interface DiskQuota {
  maxBytes: number;
  maxEntries: number;
  /** The pause between two walks (at least; see above). */
  intervalMs: number;
}

export interface DiskQuotaWatch {
  /** Ends the watch; resolves once no walk is running. */
  stop(): Promise<void>;
}

/** Walks `root` every `intervalMs` until stopped; calls `onBreach` once, on the first breach. */
export function watchDiskQuota(
  root: string,
  quota: DiskQuota,
  onBreach: (breach: QuotaBreach) => void,
): DiskQuotaWatch {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let walking: Promise<void> = Promise.resolve();
  const limits = { ...quota, maxDepth: MAX_TREE_DEPTH, signal: controller.signal };
  const check = () => {
    const started = Date.now();
    walking = measureTree(root, limits).then(
      (usage) => {
        if (controller.signal.aborted) return;
        switch (usage.kind) {
          case 'within':
            timer = setTimeout(check, Math.max(quota.intervalMs, Date.now() - started));
            return;
          case 'aborted':
            return;
          case 'over_bytes':
          case 'over_entries':
          case 'too_deep':
          case 'unreadable':
            onBreach(usage);
            return;
          default: {
            const never: never = usage;
            throw new Error(`unknown tree usage ${String(never)}`);
          }
        }
      },
      // measureTree reports file-system errors as results; anything else is a bug, not a quota breach.
      (error: unknown) => console.error('railyard runner: disk quota walk failed', error),
    );
  };
  timer = setTimeout(check, quota.intervalMs);
  return {
    stop: async () => {
      controller.abort();
      clearTimeout(timer);
      await walking;
    },
  };
}

/** The trailer's words for a breach: what was over, never a name from the checkout. */
export function describeBreach(
  breach: QuotaBreach,
  quota: Pick<DiskQuota, 'maxBytes' | 'maxEntries'>,
): string {
  const mib = Math.round(quota.maxBytes / 1024 ** 2);
  switch (breach.kind) {
    case 'over_bytes':
      return `checkout over its disk quota (${mib} MiB)`;
    case 'over_entries':
      return `checkout over its disk quota (more than ${quota.maxEntries} files and folders)`;
    case 'too_deep':
      return `checkout over its disk quota (folders nested more than ${MAX_TREE_DEPTH} deep)`;
    case 'unreadable':
      return `checkout over its disk quota (part of it cannot be measured: ${breach.code})`;
    default: {
      const never: never = breach;
      throw new Error(`unknown quota breach ${String(never)}`);
    }
  }
}
