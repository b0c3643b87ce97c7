/** Page tokens: round trip, and every kind of bad token is the same 400. */
import { createHmac } from 'node:crypto';
import {
  createPageTokens,
  INVALID_PAGE_TOKEN,
  queryDigest,
} from '../../../api/routes/flaky-tests/page-token';

const tokens = createPageTokens('a-secret-of-enough-length');
const query = queryDigest(['failing', '1', 0, 1, 100]);

test('a token decodes to its cursor for the query it was issued for', () => {
  const token = tokens.encode(query, { after: [3, '42'], asOf: 1_700_000_000_000 });
  expect(tokens.decode(query, token)).toEqual({ after: [3, '42'], asOf: 1_700_000_000_000 });
  expect(tokens.decode(query, tokens.encode(query, { after: null }))).toEqual({ after: null });
  expect(tokens.decode(query, '')).toBeNull();
  expect(tokens.decode(query, undefined)).toBeNull();
});

test.each([
  ['garbage', 'not-a-token'],
  ['three parts', 'a.b.c'],
  ['a flipped payload', (t: string) => `x${t.slice(1)}`],
  ['a flipped signature', (t: string) => `${t.slice(0, -2)}${t.endsWith('A') ? 'B' : 'A'}A`],
  ['another secret', () => createPageTokens('another-secret-of-length').encode(query, { after: null })],
  ['another query', () => tokens.encode(queryDigest(['failing', '2', 0, 1, 100]), { after: null })],
  [
    'a signed payload of the wrong shape',
    () => {
      const payload = Buffer.from(JSON.stringify({ v: 2, q: query, k: null })).toString('base64url');
      return `${payload}.${createHmac('sha256', 'a-secret-of-enough-length').update(payload).digest('base64url')}`;
    },
  ],
])('%s → 400', (_name, make) => {
  const valid = tokens.encode(query, { after: [1, '2'] });
  const token = typeof make === 'string' ? make : make(valid);
  expect(() => tokens.decode(query, token)).toThrow(
    expect.objectContaining({ statusCode: 400, message: INVALID_PAGE_TOKEN }),
  );
});

test('a short secret is refused at start', () => {
  expect(() => createPageTokens('short')).toThrow('at least 16 characters');
});
