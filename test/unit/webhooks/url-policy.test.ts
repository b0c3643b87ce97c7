/**
 * The webhook URL policy: http(s) only; private, loopback, link-local and reserved addresses refused
 * (also in their IPv6 disguises and behind a DNS name) unless the operator allows them. The IPv6
 * forms that carry an IPv4 address (mapped, translated, NAT64, 6to4) are judged by that address, in
 * hex and dotted notation alike; the ones whose IPv4 address cannot be known (local-use NAT64, Teredo)
 * are refused outright.
 */
import { checkWebhookUrl, checkWebhookUrlResolved, isPrivateAddress } from '../../../webhooks/url-policy';

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

// Each IPv6 form that embeds, or may embed, an IPv4 address: [form, address, what it stands for].
test.each([
  ['mapped ::ffff:0:0/96, dotted', '::ffff:127.0.0.1', 'loopback'],
  ['mapped, hex', '::ffff:7f00:1', 'loopback'],
  ['mapped, hex, upper case', '::FFFF:7F00:0001', 'loopback'],
  ['mapped, written out', '0:0:0:0:0:ffff:7f00:1', 'loopback'],
  ['mapped, private', '::ffff:c0a8:101', '192.168.1.1'],
  ['mapped, cloud metadata', '::ffff:a9fe:a9fe', '169.254.169.254'],
  ['translated ::ffff:0:0:0/96, dotted', '::ffff:0:127.0.0.1', 'loopback'],
  ['translated, hex', '::ffff:0:7f00:1', 'loopback'],
  ['translated, private', '::ffff:0:a00:1', '10.0.0.1'],
  ['NAT64 64:ff9b::/96, dotted', '64:ff9b::127.0.0.1', 'loopback'],
  ['NAT64, hex', '64:ff9b::7f00:1', 'loopback'],
  ['NAT64, private', '64:ff9b::10.1.2.3', '10.1.2.3'],
  ['local-use NAT64 64:ff9b:1::/48, public inside', '64:ff9b:1::808:808', 'refused outright'],
  ['local-use NAT64, another prefix length', '64:ff9b:1:7f00:1::', 'refused outright'],
  ['6to4 2002::/16, loopback', '2002:7f00:1::', '127.0.0.1'],
  ['6to4, private, with a host part', '2002:a00:1:1::1', '10.0.0.1'],
  ['6to4, cloud metadata', '2002:a9fe:a9fe::1', '169.254.169.254'],
  ['6to4, unspecified', '2002::1', '0.0.0.0'],
  ['Teredo 2001::/32', '2001::1', 'refused outright'],
  ['Teredo, a real-looking one', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'refused outright'],
])('%s: %s is private (%s)', (_form, address) => {
  expect(isPrivateAddress(address)).toBe(true);
});

test.each([
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '192.169.0.1',
  '2606:4700:4700::1111',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '::ffff:0:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  // Next to Teredo, not in it: only 2001:0::/32 is.
  '2001:4860:4860::8888',
  '2001:1::1',
])('%s is public', (address) => {
  expect(isPrivateAddress(address)).toBe(false);
});

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
  ...[
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:7f00:1]/hook',
    'https://[0:0:0:0:0:ffff:7f00:1]:8443/hook',
    'http://[::ffff:0:7f00:1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[64:ff9b:1::808:808]/hook',
    'http://[2002:7f00:1::]/hook',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    // IPv4 in the notations the URL parser turns into 127.0.0.1.
    'http://0x7f.1/hook',
    'http://2130706433/hook',
    'http://0177.0.0.1/hook',
  ].map((url) => [url, 'points at a private or loopback address, which this server does not allow']),
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

test('a name that resolves to an IPv6 form of a private address is refused at save time', async () => {
  for (const address of ['::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '2002:a00:1::', '2001::1']) {
    const lookup = () => Promise.resolve([address]);
    expect(await checkWebhookUrlResolved('https://sneaky.test/x', false, lookup)).toEqual({
      ok: false,
      reason: 'resolves to a private or loopback address, which this server does not allow',
    });
  }
});

test('localhost resolves to loopback and is refused', async () => {
  expect(await checkWebhookUrlResolved('http://localhost:9/hook', false)).toMatchObject({ ok: false });
});
