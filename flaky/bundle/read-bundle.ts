/**
 * Reads a Trunk bundle (`bundle.tar.zstd`) as it streams in: zstd → tar → entries. What is kept:
 * - `meta.json`, which must be the first entry (the CLI writes it first; Trunk's reader requires it);
 * - the results: `junit/N` files streamed into the JUnit parser when the meta's file sets list JUnit
 *   files, else the protobuf reports (`internal.bin`, `internal/N`) decoded here. A CLI that writes
 *   both writes the same results twice (internal.bin is made from the JUnit files), so one source is
 *   read and the other skipped;
 * - `CODEOWNERS`, as text.
 * Other entries (`bazel_bep.json`, anything newer) are skipped unread.
 *
 * Bounds: the compressed size is the route's; here the unpacked bytes, the zstd window, the entry
 * count, the result files, and the bytes of each entry held whole (meta.json, a report, CODEOWNERS).
 * JUnit files are bounded by the parser's own limits; protobuf reports by one DecodeBudget for the
 * whole bundle (fields, nesting, time: protobuf.ts), counted before anything is decoded. Any problem throws a BundleRefusal (or the
 * parser's JunitParseError) and nothing is returned.
 */
import { type JunitParser, type ParsedJunitFile, resolveJunitLimits } from '../junit';
import { refuse } from './errors';
import { DEFAULT_BUNDLE_LIMITS, type BundleLimits } from './limits';
import { type BundleMeta, parseBundleMeta } from './meta';
import {
  DEFAULT_DECODE_LIMITS,
  decodeBudgetOf,
  decodeTestReport,
  refuseReportPrefix,
  testReportToParsedFile,
} from './protobuf';
import { readEntry, readTarEntries } from './tar';
import type { ReadBundle } from './types';
import { decompressZstd } from './zstd';

type EntryKind = 'junit' | 'report' | 'codeowners' | 'other';

function kindOf(name: string): EntryKind {
  if (/^junit\/\d{1,9}$/.test(name)) return 'junit';
  if (name === 'internal.bin' || /^internal\/\d{1,9}$/.test(name)) return 'report';
  if (name === 'CODEOWNERS') return 'codeowners';
  return 'other';
}

export async function readBundle(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  deps: { readonly parser: JunitParser; readonly limits?: BundleLimits },
): Promise<ReadBundle> {
  const limits = deps.limits ?? DEFAULT_BUNDLE_LIMITS;
  const junitLimits = { ...(limits.junit ?? {}) };
  const decodeLimits = limits.decode ?? DEFAULT_DECODE_LIMITS;
  let budget: ReturnType<typeof decodeBudgetOf> | undefined;
  let meta: BundleMeta | null = null;
  let codeowners: string | undefined;
  const files: ParsedJunitFile[] = [];
  const unpacked = decompressZstd(source, limits);
  for await (const entry of readTarEntries(unpacked, { maxEntries: limits.maxEntries })) {
    if (meta === null) {
      if (entry.name !== 'meta.json') refuse({ kind: 'meta_missing' });
      meta = parseBundleMeta(await readEntry(entry, limits.maxMetaBytes));
      continue;
    }
    const kind = kindOf(entry.name);
    const fileName = meta.originalPaths.get(entry.name) ?? entry.name;
    switch (kind) {
      case 'junit':
        if (meta.resultSource !== 'junit') break;
        if (files.length >= limits.maxResultFiles)
          refuse({ kind: 'too_many_entries', limit: limits.maxResultFiles });
        files.push(await deps.parser.parse(entry.body, { fileName, limits: junitLimits }));
        break;
      case 'report': {
        if (meta.resultSource !== 'internal') break;
        if (files.length >= limits.maxResultFiles)
          refuse({ kind: 'too_many_entries', limit: limits.maxResultFiles });
        const resolved = resolveJunitLimits(junitLimits);
        const within = (budget ??= decodeBudgetOf(decodeLimits, resolved.maxTestCases));
        // A report over the budget is refused from its first megabytes, before the rest is unpacked.
        const bytes = await readEntry(entry, limits.maxReportBytes, (prefix) =>
          refuseReportPrefix(prefix, entry.name, within),
        );
        const report = decodeTestReport(bytes, entry.name, within);
        files.push(testReportToParsedFile(report, fileName, resolved));
        break;
      }
      case 'codeowners':
        codeowners = (await readEntry(entry, limits.maxCodeownersBytes)).toString('utf8');
        break;
      case 'other':
        break;
    }
  }
  if (meta === null) return refuse({ kind: 'meta_missing' });
  if (files.length === 0) return refuse({ kind: 'no_results' });
  return { meta, files, ...(codeowners === undefined ? {} : { codeowners }) };
}
