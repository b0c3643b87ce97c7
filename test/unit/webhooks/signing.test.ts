/**
 * Our Svix-style signatures verify with the svix library itself (an independent implementation), and
 * a tampered body, a wrong secret or a stale timestamp do not.
 */
import { Webhook } from 'svix';
import { generateSecret, svixHeaders } from '../../../webhooks/signing';

const body = JSON.stringify({ type: 'pull_request.merged', pr_number: 1, title: 'naïve ✓' });

test('a signed body verifies with svix Webhook.verify', () => {
  const secret = generateSecret();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  const headers = svixHeaders(secret, 'msg_0123', Math.floor(Date.now() / 1000), body);
  expect(headers['svix-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
});

test('a changed body, another secret or a timestamp older than five minutes is refused', () => {
  const secret = generateSecret();
  const now = Math.floor(Date.now() / 1000);
  const headers = svixHeaders(secret, 'msg_0123', now, body);
  expect(() => new Webhook(secret).verify(body.replace('1', '2'), headers)).toThrow();
  expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  const stale = svixHeaders(secret, 'msg_0123', now - 600, body);
  expect(() => new Webhook(secret).verify(body, stale)).toThrow();
});

test('secrets are random', () => {
  expect(generateSecret()).not.toBe(generateSecret());
});
