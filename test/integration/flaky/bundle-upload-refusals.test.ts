/**
 * Every refusal of a bundle PUT answers its status and one sentence and stores nothing: forged or
 * altered URLs, expiry, size (declared and streamed), content type, not zstd, a zstd bomb, tar path
 * tricks and links, no results, no or malformed meta.json, a JUnit file the parser refuses, and a
 * meta.json naming another organisation's repository. A URL is spent by its first PUT.
 */
import { randomBytes } from 'node:crypto';
import { bundleOf, metaJson } from '../../support/bundles';
import { type BundleWorld, cliBundle, createBundleWorld, JUNIT, MAX_BUNDLE_BYTES } from './bundle-harness';

let w: BundleWorld;
beforeAll(async () => {
  w = await createBundleWorld('bundle_refusals');
});
afterAll(() => w.close());

describe('PUT refusals store nothing', () => {
  const snapshot = async () => Promise.all(['uploads', 'test_cases', 'test_results'].map((t) => w.count(t)));

  async function refused(
    make: (url: string) => Promise<Response>,
    status: number,
    sentence: RegExp | string,
  ) {
    const before = await snapshot();
    const { url } = await w.uploadUrl();
    const res = await make(url);
    expect(res.status).toBe(status);
    const text = await res.text();
    if (typeof sentence === 'string') expect(text).toBe(sentence);
    else expect(text).toMatch(sentence);
    expect(await snapshot()).toEqual(before);
    return url;
  }

  it.each([
    [
      'a forged signature',
      async (url: string) =>
        w.put(url.replace(/signature=[^&]+/, `signature=${'B'.repeat(43)}`), await cliBundle()),
      403,
      "The upload URL's signature is not valid; use the URL createBundleUpload answered.",
    ],
    [
      'a changed expiry',
      async (url: string) => w.put(url.replace(/expires=\d+/, 'expires=99999999999'), await cliBundle()),
      403,
      "The upload URL's signature is not valid; use the URL createBundleUpload answered.",
    ],
    [
      'another upload id',
      async (url: string) =>
        w.put(
          url.replace(/bundles\/[^?]+/, 'bundles/00000000-0000-4000-8000-000000000000'),
          await cliBundle(),
        ),
      403,
      "The upload URL's signature is not valid; use the URL createBundleUpload answered.",
    ],
    [
      'a body over the limit',
      async (url: string) => w.put(url, Buffer.alloc(MAX_BUNDLE_BYTES + 1)),
      413,
      `The bundle is larger than the limit of ${MAX_BUNDLE_BYTES} bytes.`,
    ],
    [
      'a body that is not zstd',
      async (url: string) => w.put(url, Buffer.from('not a bundle')),
      400,
      'The bundle is not zstd-compressed; send the bundle.tar.zstd the Trunk CLI writes.',
    ],
    [
      'another content type',
      async (url: string) => w.put(url, await cliBundle(), { 'content-type': 'application/json' }),
      415,
      "Content type 'application/json' is not supported; send the bundle as application/octet-stream.",
    ],
    [
      'a tar path trick',
      async (url: string) => w.put(url, await cliBundle({}, [{ name: '../../etc/cron.d/x', content: 'x' }])),
      400,
      'The bundle entry "../../etc/cron.d/x" is refused: its name leaves the archive with "..".',
    ],
    [
      'a symlink',
      async (url: string) =>
        w.put(
          url,
          await cliBundle({}, [{ name: 'junit/1', header: { type: 'symlink', linkname: '/etc/shadow' } }]),
        ),
      400,
      'The bundle entry "junit/1" is refused: it is a link.',
    ],
    [
      'no results',
      async (url: string) =>
        w.put(
          url,
          await bundleOf([{ name: 'meta.json', content: JSON.stringify(metaJson({ junit: ['a.xml'] })) }]),
        ),
      400,
      'The bundle holds no test results (no junit/ file, internal.bin or internal/ file).',
    ],
    [
      'no meta.json',
      async (url: string) => w.put(url, await bundleOf([{ name: 'junit/0', content: JUNIT({ a: 'P' }) }])),
      400,
      "The bundle's first entry is not meta.json; send the bundle the Trunk CLI writes.",
    ],
    [
      'a malformed meta.json',
      async (url: string) =>
        w.put(
          url,
          await bundleOf([
            { name: 'meta.json', content: '{"repo":' },
            { name: 'junit/0', content: JUNIT({ a: 'P' }) },
          ]),
        ),
      400,
      "The bundle's meta.json is not valid JSON.",
    ],
    [
      'a JUnit file the parser refuses',
      async (url: string) =>
        w.put(
          url,
          await bundleOf([
            { name: 'meta.json', content: JSON.stringify(metaJson({ junit: ['r/evil.xml'] })) },
            { name: 'junit/0', content: '<!DOCTYPE x><testsuites/>' },
          ]),
        ),
      400,
      /^JUnit file "r\/evil.xml" contains a DOCTYPE declaration/,
    ],
    [
      'a zstd bomb',
      async (url: string) =>
        w.put(
          url,
          await bundleOf([
            { name: 'meta.json', content: JSON.stringify(metaJson({ junit: ['a.xml'] })) },
            { name: 'junit/0', content: Buffer.alloc(4 * 1024 * 1024, 0x20) },
          ]),
        ),
      413,
      'The bundle unpacks to more than the limit of 1048576 bytes.',
    ],
    [
      'a meta.json naming another organisation’s repository',
      async (url: string) =>
        w.put(url, await cliBundle({ repo: { host: 'github.com', owner: 'globex', name: 'secret' } })),
      400,
      "The bundle's meta.json names the repository github.com/globex/secret, but the upload URL was made for github.com/acme/shop.",
    ],
  ])('refuses %s', async (_what, make, status, sentence) => {
    await refused(make, status, sentence);
  });

  it('spends the URL on a refusal and on success: the second PUT is 410', async () => {
    const url = await refused(async (u) => w.put(u, Buffer.from('junk')), 400, /not zstd/);
    const again = await w.put(url, await cliBundle());
    expect([again.status, await again.text()]).toEqual([
      410,
      'The upload URL was already used; call createBundleUpload again for a new one.',
    ]);
    const { url: good } = await w.uploadUrl();
    expect((await w.put(good, await cliBundle())).status).toBe(200);
    expect((await w.put(good, await cliBundle())).status).toBe(410);
  });

  it('refuses an expired URL', async () => {
    const before = await snapshot();
    const { url } = await w.uploadUrl();
    w.clock.offsetMs += 601_000;
    try {
      const res = await w.put(url, await cliBundle());
      expect([res.status, await res.text()]).toEqual([
        403,
        'The upload URL has expired; call createBundleUpload again for a new one.',
      ]);
    } finally {
      w.clock.offsetMs -= 601_000;
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a streamed body (no Content-Length) once it passes the limit', async () => {
    const before = await snapshot();
    const { url } = await w.uploadUrl();
    // A real bundle, too large because of an incompressible entry the reader would skip.
    const big = await cliBundle({}, [{ name: 'bazel_bep.json', content: randomBytes(MAX_BUNDLE_BYTES * 2) }]);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 8192) controller.enqueue(big.subarray(i, i + 8192));
        controller.close();
      },
    });
    const res = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body,
      duplex: 'half',
    });
    expect([res.status, await res.text()]).toEqual([
      413,
      `The bundle is larger than the limit of ${MAX_BUNDLE_BYTES} bytes.`,
    ]);
    expect(await snapshot()).toEqual(before);
  });
});
