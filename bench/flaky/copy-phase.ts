/**
 * Phase 2, the ingestion baseline: the same rows, loaded with a plain COPY by psql into a table with
 * the same definition and indexes (CREATE TABLE … (LIKE test_results INCLUDING ALL)), in the same
 * run. The rows are exported first (through a SELECT: COPY TO refuses a partitioned table, migration
 * 0026), so the timed part is only `\copy … FROM file`.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { psql } from './psql';

export interface CopyResult {
  readonly rows: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly megabytes: number;
}

export async function copyBaseline(url: string, tmp: string): Promise<CopyResult> {
  const file = join(tmp, 'test_results.copy');
  await psql(
    url,
    `DROP TABLE IF EXISTS bench_copy_results;
     CREATE TABLE bench_copy_results (LIKE test_results INCLUDING ALL);
     \\copy (SELECT * FROM test_results) TO '${file}'`,
    tmp,
    'copy-export',
  );
  const started = performance.now();
  await psql(url, `\\copy bench_copy_results FROM '${file}'`, tmp, 'copy-load');
  const seconds = (performance.now() - started) / 1000;
  const out = await psql(
    url,
    `\\pset tuples_only on\nSELECT count(*) FROM bench_copy_results;`,
    tmp,
    'copy-count',
  );
  const rows = Number(out.trim());
  await psql(url, 'DROP TABLE bench_copy_results;', tmp, 'copy-drop');
  return { rows, seconds, perSecond: rows / seconds, megabytes: statSync(file).size / 1024 / 1024 };
}
