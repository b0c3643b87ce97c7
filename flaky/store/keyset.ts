/**
 * Keyset pages over a ranked set, in ONE statement that also finds the repository and writes the
 * page's items as JSON text. The set (`source`) is ordered by its key; a cursor is the key of the
 * last row already seen, and the page is the `size` rows after it — so a row that arrives or leaves
 * elsewhere never shifts the rows around the cursor, and a cursor whose row has left the set still
 * lands where it was. The same statement answers the total and the keys that anchor the previous,
 * next and last page, which is what the spec's page object needs.
 *
 * Why one statement: a list page used to be four round trips (key, repository, page, details) and
 * ~90 kB of rows parsed into objects and serialised again by the API; the API's CPU per page, not
 * PostgreSQL, was the tail at 50 req/s (bench/README.md). Now the API authenticates, sends this,
 * and passes the items through.
 *
 * Invariants: the repository is found by (organisation, host, owner, name) as the CTE `scope`
 * (repository-scope.ts), and every source reads through it, so a key never reaches another
 * organisation's rows; no scope row means no repository (null). The text depends only on the spec and on whether there is a cursor,
 * and is prepared once per connection under a name derived from it.
 */
import { createHash } from 'node:crypto';
import { type Queryable } from './db';
import { type RepositoryScope, scopeSql } from './repository-scope';
import { type SqlParams, sqlParams } from './sql-params';

export interface KeysetSpec<K> {
  /** A SELECT producing the set; reads the repository from the CTE `scope` (pk and settings). */
  readonly source: string;
  /** ORDER BY over the source's columns: must be a total order matching the key. */
  readonly orderBy: string;
  /** "This row sorts at or before the cursor" over the source's columns, given the cursor's placeholders. */
  readonly atOrBefore: (cursor: readonly string[]) => string;
  readonly cursorValues: (key: K) => readonly unknown[];
  /** The key of source row `s` as a JSON array; parseKey reads it back (null if malformed). */
  readonly keyJson: string;
  readonly parseKey: (json: unknown) => K | null;
  /** Joins after `ranked s` that give the item's tables: `t` (test_cases), `rp` (scope), details. */
  readonly itemJoins: string;
  /** The item's JSON text over those joins. */
  readonly itemJson: string;
}

/** Where a page sits in its set, in the terms of the spec's page object. */
export interface KeysetPosition<K> {
  readonly total: number;
  /** Rows of the set before this page. */
  readonly offset: number;
  /** Cursor of the next page; undefined on the last page. */
  readonly next?: K;
  /** Cursor of the previous page: null for "from the start", undefined on the first page. */
  readonly prev?: K | null;
  /** Cursor of the last page: null when it is the first, undefined when the set is empty. */
  readonly last?: K | null;
}

export interface JsonPage<K> extends KeysetPosition<K> {
  readonly repositoryPk: string;
  /** The page's items as JSON values joined by commas ('' for none): `[${items}]` is the array. */
  readonly items: string;
}

interface PageRow {
  repository_pk: string | null;
  page_offset: number;
  page_total: number;
  anchors: Record<string, unknown> | null;
  items: string | null;
}

/**
 * The page of `size` rows after `after` (null: the first page) of the set `build` describes, in the
 * repository `scope`; null when the organisation has no such repository. `build` adds its values to
 * the statement's parameters in a fixed order.
 */
export async function keysetJsonPage<K>(
  db: Queryable,
  scope: RepositoryScope,
  build: (p: SqlParams) => KeysetSpec<K>,
  size: number,
  after: K | null,
): Promise<JsonPage<K> | null> {
  const p = sqlParams();
  const repository = scopeSql(p, scope);
  const spec = build(p);
  const n = p.add(size, 'int');
  const cursor = after === null ? null : spec.cursorValues(after).map((value) => p.add(value));
  const text = `WITH scope AS (${repository}),
    source AS MATERIALIZED (${spec.source}),
    ranked AS (SELECT s.*, (row_number() OVER (ORDER BY ${spec.orderBy}))::int AS position FROM source s),
    cur AS (SELECT ${cursor === null ? '0' : `(SELECT count(*) FROM ranked WHERE ${spec.atOrBefore(cursor)})`}::int AS p),
    tot AS (SELECT count(*)::int AS n FROM ranked)
    SELECT (SELECT pk FROM scope) AS repository_pk, cur.p AS page_offset, tot.n AS page_total,
      (SELECT json_object_agg(s.position, ${spec.keyJson}) FROM ranked s
        WHERE s.position IN (cur.p - ${n}, cur.p + ${n}, ((tot.n - 1) / ${n}) * ${n})) AS anchors,
      (SELECT string_agg(${spec.itemJson}, ',' ORDER BY s.position) FROM ranked s ${spec.itemJoins}
        WHERE s.position > cur.p AND s.position <= cur.p + ${n}) AS items
    FROM cur CROSS JOIN tot`;
  // Named after its text: prepared once per connection, so PostgreSQL plans each list shape once.
  const name = `flaky-page-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
  const { rows } = await db.query<PageRow>({ name, text, values: [...p.values] });
  const row = rows[0];
  if (row?.repository_pk == null) return null;
  const keyAt = (position: number): K | undefined => {
    const json = row.anchors?.[String(position)];
    return json === undefined ? undefined : (spec.parseKey(json) ?? undefined);
  };
  return {
    repositoryPk: row.repository_pk,
    items: row.items ?? '',
    ...keysetPosition(row.page_total, row.page_offset, size, keyAt),
  };
}

/**
 * The page object's cursors from the keys at a few positions (1-based ranks): the next page starts
 * after this page's last row, the previous one after the row `size` before this page's first (from
 * the start when that is before the set), the last one after the last multiple of `size` below
 * `total`. A missing anchor (the set moved under a cursor) falls back to the last page.
 */
export function keysetPosition<K>(
  total: number,
  offset: number,
  size: number,
  keyAt: (position: number) => K | undefined,
): KeysetPosition<K> {
  const anchor = (position: number): K | null | undefined => (position <= 0 ? null : keyAt(position));
  const last = total === 0 ? undefined : anchor(Math.floor((total - 1) / size) * size);
  const before = offset === 0 ? undefined : anchor(offset - size);
  const prev = offset === 0 ? undefined : before === undefined ? last : before;
  const next = offset + size < total ? keyAt(offset + size) : undefined;
  return {
    total,
    offset,
    ...(next === undefined ? {} : { next }),
    ...(prev === undefined ? {} : { prev }),
    ...(last === undefined ? {} : { last }),
  };
}
