/**
 * Keyset pages over a ranked set, in one statement. The set (`source`) is ordered by its key; a
 * cursor is the key of the last row already seen, and the page is the `size` rows after it — so a
 * row that arrives or leaves elsewhere never shifts the rows around the cursor, and a cursor whose
 * row has left the set still lands where it was. The same statement answers the total and the
 * keys that anchor the previous and the last page, which is what the spec's page object needs.
 *
 * `atOrBefore` is the SQL predicate "this row's key sorts at or before the cursor", written over the
 * parameters after the source's own ($n+2 onwards; $n+1 is the page size).
 */
import { createHash } from 'node:crypto';
import { type Queryable } from './db';

export interface KeysetSpec<K, R> {
  /** A SELECT producing the set; uses parameters $1..$values.length. */
  readonly source: string;
  readonly values: readonly unknown[];
  /** ORDER BY over the source's columns: must be a total order matching the key. */
  readonly orderBy: string;
  /** Predicate for "at or before the cursor"; `$c1`, `$c2`… stand for the cursor's parts. */
  readonly atOrBefore: string;
  readonly keyOf: (row: R) => K;
  readonly cursorValues: (key: K) => readonly unknown[];
}

export interface KeysetPage<K, R> {
  readonly total: number;
  /** Rows of the set before this page. */
  readonly offset: number;
  readonly rows: readonly R[];
  /** Cursor of the next page; undefined on the last page. */
  readonly next?: K;
  /** Cursor of the previous page: null for "from the start", undefined on the first page. */
  readonly prev?: K | null;
  /** Cursor of the last page: null when it is the first, undefined when the set is empty. */
  readonly last?: K | null;
}

type Ranked<R> = R & { position: number | null; page_offset: number; page_total: number };

export async function keysetPage<K, R extends object>(
  db: Queryable,
  spec: KeysetSpec<K, R>,
  size: number,
  after: K | null,
): Promise<KeysetPage<K, R>> {
  const sizeParam = `$${spec.values.length + 1}`;
  const cursor = after === null ? [] : spec.cursorValues(after);
  const atOrBefore = spec.atOrBefore.replace(
    /\$c(\d+)/g,
    (_m, i: string) => `$${spec.values.length + 1 + Number(i)}`,
  );
  const sql = `WITH source AS MATERIALIZED (${spec.source}),
    ranked AS (SELECT s.*, (row_number() OVER (ORDER BY ${spec.orderBy}))::int AS position FROM source s),
    cur AS (SELECT ${after === null ? '0' : `(SELECT count(*) FROM ranked WHERE ${atOrBefore})`}::int AS p),
    tot AS (SELECT count(*)::int AS n FROM ranked)
    SELECT r.*, cur.p AS page_offset, tot.n AS page_total
    FROM cur CROSS JOIN tot LEFT JOIN ranked r ON
      (r.position > cur.p AND r.position <= cur.p + ${sizeParam})
      OR r.position = cur.p - ${sizeParam}
      OR r.position = ((tot.n - 1) / ${sizeParam}) * ${sizeParam}
    ORDER BY r.position`;
  // Named after its text: prepared once per connection, so PostgreSQL plans each list shape once.
  const name = `flaky-keyset-${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
  const { rows } = await db.query<Ranked<R>>({ name, text: sql, values: [...spec.values, size, ...cursor] });
  const offset = rows[0]?.page_offset ?? 0;
  const total = rows[0]?.page_total ?? 0;
  const at = (position: number) => rows.find((r) => r.position === position);
  const page = rows.filter((r) => r.position !== null && r.position > offset && r.position <= offset + size);
  const lastPosition = Math.floor((total - 1) / size) * size;
  const anchor = (position: number): K | null | undefined => {
    if (position <= 0) return null;
    const row = at(position);
    return row === undefined ? undefined : spec.keyOf(row);
  };
  const last = total === 0 ? undefined : anchor(lastPosition);
  const prev = offset === 0 ? undefined : (anchor(offset - size) ?? last);
  const nextRow = offset + size < total ? at(offset + size) : undefined;
  return {
    total,
    offset,
    rows: page.map((r) => stripPaging(r)),
    ...(nextRow === undefined ? {} : { next: spec.keyOf(nextRow) }),
    ...(prev === undefined ? {} : { prev }),
    ...(last === undefined ? {} : { last }),
  };
}

function stripPaging<R extends object>(row: Ranked<R>): R {
  const { position: _p, page_offset: _o, page_total: _t, ...rest } = row;
  return rest as unknown as R;
}
