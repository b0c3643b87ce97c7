/**
 * The protobuf amplification bomb of issue 24, over HTTP to an app that reads bundles on the parser
 * pool's threads (as server.ts runs it): a Trunk bundle whose internal.bin is 20 MiB of empty
 * messages, about 2 KB with `zstd -3`, sent to a signed upload URL (what anyone with a key, or a
 * public repository id, can get). It is refused with 413 and one sentence naming the entry and the
 * limit, stores nothing, is read on a pool thread, and /healthz answers while it is being received
 * and decoded. How fast /healthz answers meanwhile is measured in bench/flaky/bomb-latency.ts.
 */
import { DEFAULT_BUNDLE_LIMITS, DEFAULT_DECODE_LIMITS } from '../../../flaky/bundle';
import { type JunitParserPool, startJunitParserPool } from '../../../flaky/junit/pool';
import { metaJson, tarOf, zstd } from '../../support/bundles';
import { type BundleWorld, createBundleWorld } from '../flaky/bundle-harness';

const EMPTY_MESSAGES_BYTES = 20 * 1024 * 1024;

/** 20 MiB of `0a 00`: one empty TestResult per two bytes, ten million of them. */
async function bombBundle(): Promise<Buffer> {
  const internal = Buffer.alloc(EMPTY_MESSAGES_BYTES);
  for (let i = 0; i < internal.length; i += 2) internal[i] = 0x0a;
  const tar = await tarOf([
    { name: 'meta.json', content: JSON.stringify(metaJson({ internalBundled: true })) },
    { name: 'internal.bin', content: internal },
  ]);
  return zstd(tar, 3);
}

const SENTENCE = `The bundle entry "internal.bin" holds more than ${DEFAULT_DECODE_LIMITS.maxEntries} protobuf fields (counted over the upload's reports), the limit for one upload.`;

let pool: JunitParserPool;
let w: BundleWorld;
let bundlesOnThreads = 0;
let bomb: Buffer;

beforeAll(async () => {
  pool = await startJunitParserPool({ threads: 1 });
  const counted: JunitParserPool = {
    ...pool,
    readBundle: (source, limits) => {
      bundlesOnThreads += 1;
      return pool.readBundle(source, limits);
    },
  };
  w = await createBundleWorld('protobuf_bomb', { parser: counted, limits: DEFAULT_BUNDLE_LIMITS });
  bomb = await bombBundle();
}, 90_000);

afterAll(async () => {
  await w?.close();
  await pool?.close();
});

const stored = () => Promise.all(['uploads', 'test_cases', 'test_results'].map((t) => w.count(t)));

test('the bomb is a few kilobytes that unpack to 20 MiB of empty messages', () => {
  expect(bomb.length).toBeLessThan(4 * 1024);
});

test('the bomb is refused on a parser thread with 413 and a sentence naming the entry and the limit', async () => {
  const before = await stored();
  const threadsBefore = bundlesOnThreads;
  const { url } = await w.uploadUrl();
  const res = await w.put(url, bomb);
  expect({ status: res.status, body: await res.text() }).toEqual({ status: 413, body: SENTENCE });
  expect(bundlesOnThreads).toBe(threadsBefore + 1);
  expect(await stored()).toEqual(before);
  // The URL is spent, as by any refusal.
  expect((await w.put(url, bomb)).status).toBe(410);
});

test('/healthz answers while the bomb is received and decoded', async () => {
  const { url } = await w.uploadUrl();
  // The body arrives in two halves; the second is sent only once /healthz has answered after the
  // first, so the answers below are given while the bomb is in the middle of being processed.
  const half = Math.floor(bomb.length / 2);
  let release: () => void = () => undefined;
  const secondHalf = new Promise<void>((resolve) => (release = resolve));
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bomb.subarray(0, half));
      await secondHalf;
      controller.enqueue(bomb.subarray(half));
      controller.close();
    },
  });
  let settled = false;
  const put = fetch(url, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body,
    duplex: 'half',
  }).then(async (res) => {
    settled = true;
    return { status: res.status, body: await res.text() };
  });
  const health: number[] = [];
  const healthz = async () => health.push((await fetch(`${w.base}/healthz`)).status);
  await healthz();
  expect(settled).toBe(false);
  release();
  while (!settled) await healthz();
  expect(await put).toEqual({ status: 413, body: SENTENCE });
  expect(new Set(health)).toEqual(new Set([200]));
});
