/**
 * railyard's X-Hub-Signature-256 check (node:crypto, synchronous) agrees with `@octokit/webhooks-methods`,
 * the implementation behind `@octokit/webhooks`: what one signs the other verifies, and both refuse the
 * same tampered bodies, other secrets and malformed headers.
 */
import { isValidSignature, signatureOf } from '../../../github/inbound/webhook-signature';

const SECRET = 'It is a secret to everybody';
const BODY = '{"action":"opened","number":1,"note":"caf\u00e9 \u2603"}';

test('signatures agree with @octokit/webhooks-methods both ways', async () => {
  const octokit = await import('@octokit/webhooks-methods');
  const theirs = await octokit.sign(SECRET, BODY);
  expect(signatureOf(SECRET, BODY)).toBe(theirs);
  expect(isValidSignature(SECRET, Buffer.from(BODY), theirs)).toBe(true);
  expect(await octokit.verify(SECRET, BODY, signatureOf(SECRET, BODY))).toBe(true);
  // GitHub's documented example (docs.github.com, "Validating webhook deliveries").
  expect(signatureOf("It's a Secret to Everybody", 'Hello, World!')).toBe(
    'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  );
});

test.each([
  ['a tampered body', SECRET, `${BODY} `],
  ['another secret', 'not the secret', BODY],
])('%s is refused by both', async (_what, secret, body) => {
  const octokit = await import('@octokit/webhooks-methods');
  const header = signatureOf(SECRET, BODY);
  expect(isValidSignature(secret, Buffer.from(body), header)).toBe(false);
  expect(await octokit.verify(secret, body, header)).toBe(false);
});

test.each([undefined, '', 'sha1=abc', 'sha256=', `sha256=${'0'.repeat(63)}`, `sha256=${'z'.repeat(64)}`])(
  'a malformed header %p is not valid',
  (header) => {
    expect(isValidSignature(SECRET, Buffer.from(BODY), header)).toBe(false);
  },
);
