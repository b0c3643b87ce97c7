/**
 * The test-case rows an upload needs before it is acknowledged: every test of the upload by id, the
 * missing ones created. The lookup is lean (key and id only) because it runs for every test of every
 * upload; the per-test state (last failure, status) is the fold's (flaky/fold/), which locks the rows
 * it changes. Owners are written here, where the upload's CODEOWNERS changes them, because they come
 * from the upload's metadata and not from its raw rows.
 */
import { type PoolClient } from '../../stores/db';
import { plainArray } from './pg-arrays';

/** A test as a new test_cases row needs it. */
export interface NewTest {
  readonly id: string;
  readonly file?: string;
  readonly classname: string;
  readonly parent: string;
  readonly name: string;
  readonly variant: string;
  readonly codeowners: readonly string[];
}

export interface EnsureInput {
  readonly organisationId: string;
  readonly repositoryPk: string;
  /** Every test's id, distinct. */
  readonly ids: readonly string[];
  /** Test i's row; asked only for the tests not stored yet (most uploads: none). */
  readonly describe: (i: number) => NewTest;
  readonly at: Date;
}

/** The primary key of every test of the upload by id, created (healthy, not yet classified) when new. */
export async function ensureTestCases(client: PoolClient, input: EnsureInput): Promise<Map<string, string>> {
  const found = await selectByIds(client, input, input.ids);
  const missing: NewTest[] = [];
  for (let i = 0; i < input.ids.length; i += 1)
    if (!found.has(input.ids[i]!)) missing.push(input.describe(i));
  if (missing.length === 0) return found;
  const { rows } = await client.query<{ pk: string; id: string }>(
    `INSERT INTO test_cases (organisation_id, id, repository_pk, file, classname, parent, name, variant,
       codeowners, status_at)
     SELECT $1, t.id, $2, t.file, t.classname, t.parent, t.name, t.variant,
       ARRAY(SELECT jsonb_array_elements_text(t.owners)), $3
     FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[])
       AS t(id, file, classname, parent, name, variant, owners)
     ORDER BY t.id
     ON CONFLICT (organisation_id, id) DO NOTHING
     RETURNING pk, id`,
    [
      input.organisationId,
      input.repositoryPk,
      input.at,
      plainArray(missing.map((t) => t.id)),
      missing.map((t) => t.file ?? null),
      missing.map((t) => t.classname),
      missing.map((t) => t.parent),
      missing.map((t) => t.name),
      missing.map((t) => t.variant),
      missing.map((t) => JSON.stringify(t.codeowners)),
    ],
  );
  for (const row of rows) found.set(row.id, row.pk);
  // Created by a concurrent upload meanwhile: the insert waited for it, so it is visible now.
  const raced = missing.filter((t) => !found.has(t.id)).map((t) => t.id);
  if (raced.length > 0) for (const [id, ref] of await selectByIds(client, input, raced)) found.set(id, ref);
  return found;
}

/**
 * Stores the owners the upload's CODEOWNERS gives each test, writing only rows whose owners changed
 * (uploads usually resend the same CODEOWNERS). Owner lists are sent once per distinct list.
 */
export async function updateOwners(
  client: PoolClient,
  tests: readonly { readonly pk: string; readonly codeowners: readonly string[] }[],
): Promise<void> {
  if (tests.length === 0) return;
  const lists = new Map<string, number>();
  const index = tests.map((t) => {
    const key = JSON.stringify(t.codeowners);
    const seen = lists.get(key);
    if (seen !== undefined) return seen;
    lists.set(key, lists.size);
    return lists.size - 1;
  });
  await client.query(
    `UPDATE test_cases t SET codeowners = o.owners
     FROM unnest($1::bigint[], $2::integer[]) AS u(pk, list)
     CROSS JOIN LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text($3::jsonb -> u.list)) AS owners) o
     WHERE t.pk = u.pk AND t.codeowners IS DISTINCT FROM o.owners`,
    [
      plainArray(tests.map((t) => t.pk)),
      plainArray(index),
      JSON.stringify([...lists.keys()].map((k) => JSON.parse(k) as unknown)),
    ],
  );
}

async function selectByIds(
  client: PoolClient,
  input: EnsureInput,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const { rows } = await client.query<{ pk: string; id: string }>({
    name: 'flaky-ingest-test-pks',
    text: `SELECT pk, id FROM test_cases WHERE organisation_id = $1 AND id = ANY($2::uuid[])`,
    values: [input.organisationId, plainArray(ids)],
  });
  return new Map(rows.map((row) => [row.id, row.pk]));
}
