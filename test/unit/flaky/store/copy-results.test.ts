/**
 * The binary COPY stream of an upload's attempts (store/copy-results.ts), decoded here field by field
 * as PostgreSQL reads it: the signature, one tuple of nine fields per attempt in the column order,
 * NULL for a missing duration or fingerprint, the trailer, and nothing after it.
 */
import { encodeResults, type ResultRows } from '../../../../flaky/store/copy-results';
import { type PreparedTest } from '../../../../flaky/ingest/prepare';

const test = (attempts: PreparedTest['attempts']): PreparedTest => ({
  id: '00000000-0000-5000-8000-000000000000',
  classname: 'c',
  parent: '',
  name: 'n',
  variant: '',
  codeowners: [],
  attempts,
  final: attempts[attempts.length - 1]!.outcome,
});

const failure = { fingerprint: '0123456789abcdef', summary: 'boom', sample: 'boom 1' };

type Field = bigint | number | string | boolean | null;

/** Decodes the stream with the column types of test_results' COPY column list. */
function decode(buffer: Buffer): Field[][] {
  expect(buffer.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  expect(buffer.readInt32BE(11)).toBe(0);
  expect(buffer.readInt32BE(15)).toBe(0);
  let at = 19;
  const tuples: Field[][] = [];
  for (;;) {
    const count = buffer.readInt16BE(at);
    at += 2;
    if (count === -1) break;
    expect(count).toBe(9);
    const fields: Field[] = [];
    const kinds = ['int8', 'int8', 'int8', 'timestamptz', 'int2', 'text', 'bool', 'int4', 'text'] as const;
    for (const kind of kinds) {
      const length = buffer.readInt32BE(at);
      at += 4;
      if (length === -1) {
        fields.push(null);
        continue;
      }
      const value = buffer.subarray(at, at + length);
      at += length;
      switch (kind) {
        case 'int8':
          fields.push(value.readBigInt64BE(0));
          break;
        case 'timestamptz':
          fields.push(new Date(Number(value.readBigInt64BE(0) / 1000n) + 946_684_800_000).toISOString());
          break;
        case 'int2':
          fields.push(value.readInt16BE(0));
          break;
        case 'int4':
          fields.push(value.readInt32BE(0));
          break;
        case 'bool':
          fields.push(value[0] === 1);
          break;
        case 'text':
          fields.push(value.toString('utf8'));
          break;
      }
    }
    tuples.push(fields);
  }
  expect(at).toBe(buffer.length);
  return tuples;
}

const rows = (tests: ResultRows['tests'], infra = false): ResultRows => ({
  uploadPk: '9007199254740993', // past 2^53: only a bigint keeps it
  repositoryPk: '7',
  at: new Date('2026-11-20T12:34:56.789Z'),
  infra,
  tests,
});

it('writes one tuple per attempt, in order, with NULL for what an attempt lacks', () => {
  const buffer = encodeResults(
    rows([
      {
        pk: '41',
        test: test([
          { index: 0, outcome: 'fail', durationMs: 12, failure },
          { index: 1, outcome: 'pass' },
        ]),
      },
      { pk: '42', test: test([{ index: 0, outcome: 'skip', durationMs: 2_147_483_647 }]) },
    ]),
  )!;
  expect(decode(buffer)).toEqual([
    [9007199254740993n, 41n, 7n, '2026-11-20T12:34:56.789Z', 0, 'fail', false, 12, '0123456789abcdef'],
    [9007199254740993n, 41n, 7n, '2026-11-20T12:34:56.789Z', 1, 'pass', false, null, null],
    [9007199254740993n, 42n, 7n, '2026-11-20T12:34:56.789Z', 0, 'skip', false, 2_147_483_647, null],
  ]);
});

it('marks every attempt of an infrastructure upload, and writes nothing for an upload without attempts', () => {
  const buffer = encodeResults(rows([{ pk: '1', test: test([{ index: 0, outcome: 'pass' }]) }], true))!;
  expect(decode(buffer).map((tuple) => tuple[6])).toEqual([true]);
  expect(encodeResults(rows([]))).toBeNull();
});
