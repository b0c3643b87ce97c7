/**
 * The webhook URL policy: http(s) only; private, loopback, link-local and reserved addresses refused
 * (also in their IPv6 disguises and behind a DNS name) unless the operator allows them.
 */
import {
  checkWebhookUrl,
  checkWebhookUrlResolved,
  isPrivateAddress,
} from '../../../activities/webhooks/url-policy';

test.each([
  '127.0.0.1',
  '127.1.2.3',
  '10.0.0.1',
  '172.16.5.4',
  '172.31.255.255',
  '192.168.1.1',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '255.255.255.255',
  '::1',
  '::',
  'fe80::1',
  'fd00::1',
  'ff02::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '64:ff9b::a9fe:a9fe',
])('%s is private', (address) => {
  expect(isPrivateAddress(address)).toBe(true);
});

test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
  '%s is public',
  (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  },
);

test.each([
  ['ftp://example.com/x', 'must be an http or https URL'],
  ['file:///etc/passwd', 'must be an http or https URL'],
  ['not a url', 'is not a valid URL'],
  ['http://127.0.0.1:8080/hook', 'points at a private or loopback address, which this server does not allow'],
  ['http://[::1]/hook', 'points at a private or loopback address, which this server does not allow'],
  [
    'https://169.254.169.254/latest',
    'points at a private or loopback address, which this server does not allow',
  ],
])('%s is refused: %s', (url, reason) => {
  expect(checkWebhookUrl(url, false)).toEqual({ ok: false, reason });
});

test('loopback is accepted when the operator allows private URLs', () => {
  expect(checkWebhookUrl('http://127.0.0.1:8080/hook', true)).toMatchObject({ ok: true });
  expect(checkWebhookUrl('ftp://127.0.0.1/hook', true)).toMatchObject({ ok: false });
});

test('a name is judged by every address it resolves to; an unresolvable one is left to delivery', async () => {
  const lookup = (host: string) =>
    host === 'rebind.test'
      ? Promise.resolve(['93.184.216.34', '10.1.2.3'])
      : host === 'public.test'
        ? Promise.resolve(['93.184.216.34'])
        : Promise.reject(new Error('ENOTFOUND'));
  expect(await checkWebhookUrlResolved('https://rebind.test/x', false, lookup)).toEqual({
    ok: false,
    reason: 'resolves to a private or loopback address, which this server does not allow',
  });
  expect(await checkWebhookUrlResolved('https://public.test/x', false, lookup)).toMatchObject({ ok: true });
  expect(await checkWebhookUrlResolved('https://nowhere.test/x', false, lookup)).toMatchObject({ ok: true });
  expect(await checkWebhookUrlResolved('https://rebind.test/x', true, lookup)).toMatchObject({ ok: true });
});

test('localhost resolves to loopback and is refused', async () => {
  expect(await checkWebhookUrlResolved('http://localhost:9/hook', false)).toMatchObject({ ok: false });
});
