/**
 * Reading whole bundles made as the CLI makes them (tar + the zstd program at level 15): what is
 * kept from each kind of entry, and every refusal of a hostile or broken bundle, with its sentence.
 * Property tests feed random bytes and corrupted bundles: the reader ends with a result or a
 * refusal, never another error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  BundleRefusal,
  DEFAULT_BUNDLE_LIMITS,
  DEFAULT_DECODE_LIMITS,
  readBundle,
  type BundleLimits,
} from '../../../../flaky/bundle';
import { inThreadJunitParser, JunitParseError } from '../../../../flaky/junit';
import { bundleOf, metaJson, tarOf, zstd, type BundleEntry } from '../../../support/bundles';
import { testReport } from '../../../support/test-report-wire';

const JUNIT = (name: string, failing = false) =>
  `<?xml version="1.0"?><testsuites><testsuite name="S"><testcase classname="c" name="${name}" file="src/${name}.ts">${
    failing ? '<failure message="no">trace</failure>' : ''
  }</testcase></testsuite></testsuites>`;

const meta = (options: Parameters<typeof metaJson>[0]): BundleEntry => ({
  name: 'meta.json',
  content: JSON.stringify(metaJson(options)),
});

const read = (bytes: Uint8Array, limits: BundleLimits = DEFAULT_BUNDLE_LIMITS) =>
  readBundle(chunks(bytes), { parser: inThreadJunitParser, limits });

/** The bytes in 16 KiB pieces, as a request body arrives. */
function* chunks(bytes: Uint8Array, size = 16 * 1024): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function refusal(bytes: Uint8Array, limits?: BundleLimits): Promise<BundleRefusal> {
  const err = await read(bytes, limits).then(
    () => new Error('not refused'),
    (e: unknown) => e,
  );
  if (!(err instanceof BundleRefusal)) throw err;
  return err;
}

describe('readBundle', () => {
  it('reads a CLI bundle: JUnit files by their original names, CODEOWNERS, the meta; internal.bin and BEP skipped', async () => {
    const bundle = await bundleOf([
      meta({ junit: ['reports/a.xml', 'reports/b.xml'], internalBundled: true, variant: 'linux' }),
      { name: 'internal.bin', content: testReport([[{ name: 'a', status: 1 }]]) },
      { name: 'junit/0', content: JUNIT('a') },
      { name: 'junit/1', content: JUNIT('b', true) },
      { name: 'CODEOWNERS', content: '/src/ @acme/core\n' },
      { name: 'bazel_bep.json', content: '{}' },
    ]);
    const result = await read(bundle);
    expect(result.files.map((f) => [f.fileName, f.testCases.map((t) => [t.name, t.status])])).toEqual([
      ['reports/a.xml', [['a', 'passed']]],
      ['reports/b.xml', [['b', 'failed']]],
    ]);
    expect(result.codeowners).toBe('/src/ @acme/core\n');
    expect(result.meta).toMatchObject({ schema: 'V0_7_8', variant: 'linux', branch: 'main' });
  });

  it('reads a plugin bundle whose results are only protobuf reports (internal/N)', async () => {
    const bundle = await bundleOf([
      meta({ internal: ['tmp/rspec.bin'] }),
      { name: 'internal/0', content: testReport([[{ name: 'works', classname: 'Spec', status: 2 }]]) },
    ]);
    const result = await read(bundle);
    expect(result.files.map((f) => [f.fileName, f.testCases.map((t) => [t.name, t.status])])).toEqual([
      ['tmp/rspec.bin', [['works', 'failed']]],
    ]);
  });

  it('reads an archive written by GNU tar with ./ names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
    try {
      mkdirSync(join(dir, 'junit'));
      writeFileSync(join(dir, 'meta.json'), JSON.stringify(metaJson({ junit: ['a.xml'] })));
      writeFileSync(join(dir, 'junit', '0'), JUNIT('a'));
      const tar = spawnSync('tar', ['-cf', '-', '-C', dir, './meta.json', './junit/0']);
      expect(tar.status).toBe(0);
      const result = await read(zstd(tar.stdout));
      expect(result.files[0]!.testCases[0]!.name).toBe('a');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readBundle refusals', () => {
  const junitBundle = (extra: BundleEntry[] = [], options = {}) =>
    bundleOf([meta({ junit: ['a.xml'], ...options }), { name: 'junit/0', content: JUNIT('a') }, ...extra]);

  it.each([
    [
      'an empty body',
      () => Promise.resolve(Buffer.alloc(0)),
      'The bundle is not zstd-compressed; send the bundle.tar.zstd the Trunk CLI writes.',
    ],
    [
      'a plain tar',
      async () => tarOf([meta({ junit: ['a'] })]),
      'The bundle is not zstd-compressed; send the bundle.tar.zstd the Trunk CLI writes.',
    ],
    [
      'a truncated stream',
      async () => (await junitBundle()).subarray(0, 60),
      "The bundle's zstd data is corrupt: it ends inside a frame.",
    ],
    [
      'zstd of something not tar',
      () => Promise.resolve(zstd(Buffer.from('hello '.repeat(200)))),
      /^The bundle is not a valid tar archive: /,
    ],
    [
      // Its end comes inside an entry the reader is consuming (found by the property below, 500 before).
      'an archive cut inside an entry',
      async () => {
        const tar = await tarOf([meta({ junit: ['a'] }), { name: 'junit/0', content: JUNIT('a') }]);
        return zstd(tar.subarray(0, 512 + 10)); // meta.json's header and 10 of its bytes
      },
      'The bundle is not a valid tar archive: unexpected end of data.',
    ],
    [
      'an empty archive',
      async () => zstd(await tarOf([])),
      "The bundle's first entry is not meta.json; send the bundle the Trunk CLI writes.",
    ],
    [
      'meta.json not first',
      async () => bundleOf([{ name: 'junit/0', content: JUNIT('a') }, meta({ junit: ['a'] })]),
      "The bundle's first entry is not meta.json; send the bundle the Trunk CLI writes.",
    ],
    [
      'no results',
      async () => bundleOf([meta({ junit: ['a'] }), { name: 'CODEOWNERS', content: '* @a' }]),
      'The bundle holds no test results (no junit/ file, internal.bin or internal/ file).',
    ],
    [
      'an absolute name',
      async () => junitBundle([{ name: '/etc/passwd', content: 'x' }]),
      'The bundle entry "/etc/passwd" is refused: its name is an absolute path.',
    ],
    [
      'a ".." name',
      async () => junitBundle([{ name: 'junit/../../x', content: 'x' }]),
      'The bundle entry "junit/../../x" is refused: its name leaves the archive with "..".',
    ],
    [
      'a backslash',
      async () => junitBundle([{ name: '..\\x', content: 'x' }]),
      'The bundle entry "..\\\\x" is refused: its name contains a backslash.',
    ],
    [
      'a symlink',
      async () => junitBundle([{ name: 'junit/1', header: { type: 'symlink', linkname: '/etc/passwd' } }]),
      'The bundle entry "junit/1" is refused: it is a link.',
    ],
    [
      'a hard link',
      async () => junitBundle([{ name: 'junit/1', header: { type: 'link', linkname: 'junit/0' } }]),
      'The bundle entry "junit/1" is refused: it is a link.',
    ],
    [
      'a character device',
      async () =>
        junitBundle([{ name: 'dev', header: { type: 'character-device', devmajor: 1, devminor: 3 } }]),
      'The bundle entry "dev" is refused: it is a device or FIFO.',
    ],
    [
      'a FIFO',
      async () => junitBundle([{ name: 'fifo', header: { type: 'fifo' } }]),
      'The bundle entry "fifo" is refused: it is a device or FIFO.',
    ],
    [
      'a duplicate entry',
      async () => junitBundle([{ name: 'junit/0', content: JUNIT('b') }]),
      'The bundle holds the entry "junit/0" more than once.',
    ],
  ])('refuses %s', async (_what, make, sentence) => {
    const err = await refusal(await make());
    expect(err.statusCode).toBe(400);
    expect(err.message).toMatch(sentence);
  });

  it('refuses a zstd bomb once it unpacks past the limit (413)', async () => {
    const bomb = zstd(
      await tarOf([
        meta({ junit: ['a'] }),
        { name: 'junit/0', content: Buffer.alloc(8 * 1024 * 1024, 0x20) },
      ]),
      19,
    );
    expect(bomb.length).toBeLessThan(4096);
    const err = await refusal(bomb, { ...DEFAULT_BUNDLE_LIMITS, maxUnpackedBytes: 1024 * 1024 });
    expect(err.statusCode).toBe(413);
    expect(err.message).toBe('The bundle unpacks to more than the limit of 1048576 bytes.');
  });

  it('refuses a protobuf bomb (20 MiB of empty messages in 2 KB) by the decode budget, naming the entry (413)', async () => {
    const empty = Buffer.alloc(20 * 1024 * 1024);
    for (let i = 0; i < empty.length; i += 2) empty[i] = 0x0a;
    const bomb = zstd(await tarOf([meta({}), { name: 'internal.bin', content: empty }]), 3);
    expect(bomb.length).toBeLessThan(4096);
    const err = await refusal(bomb);
    expect([err.statusCode, err.message]).toEqual([
      413,
      'The bundle entry "internal.bin" holds more than 1200000 protobuf fields (counted over the upload\'s reports), the limit for one upload.',
    ]);
  });

  it('charges all protobuf reports of a bundle to one budget: the one that crosses it is named', async () => {
    const report = testReport([
      [
        { name: 'a', status: 1 },
        { name: 'b', status: 2 },
      ],
    ]);
    const twoReports = await bundleOf([
      meta({ internal: ['a.bin', 'b.bin'] }),
      { name: 'internal/0', content: report },
      { name: 'internal/1', content: report },
    ]);
    const limits = (maxEntries: number) => ({
      ...DEFAULT_BUNDLE_LIMITS,
      decode: { ...DEFAULT_DECODE_LIMITS, maxEntries },
    });
    // A report of two runs is 12 fields here (a result, two runs of three, metadata of two): two fit in 24, not in 23.
    expect((await read(twoReports, limits(24))).files).toHaveLength(2);
    expect((await refusal(twoReports, limits(23))).message).toBe(
      'The bundle entry "internal/1" holds more than 23 protobuf fields (counted over the upload\'s reports), the limit for one upload.',
    );
  });

  it('refuses a zstd window larger than the limit before decoding (zstd --long=27)', async () => {
    const tar = await tarOf([meta({ junit: ['a'] }), { name: 'junit/0', content: JUNIT('a') }]);
    const run = spawnSync('zstd', ['-q', '-c', '--long=27', '--no-content-size'], { input: tar });
    const err = await refusal(run.stdout);
    expect(err.message).toBe("The bundle's zstd window is larger than the limit of 8388608 bytes.");
  });

  it('refuses too many entries, an over-large CODEOWNERS and meta.json (413)', async () => {
    const many = await junitBundle(Array.from({ length: 5 }, (_, i) => ({ name: `x/${i}`, content: '' })));
    expect((await refusal(many, { ...DEFAULT_BUNDLE_LIMITS, maxEntries: 4 })).message).toBe(
      'The bundle holds more than 4 entries, the limit for one bundle.',
    );
    const owners = await junitBundle([{ name: 'CODEOWNERS', content: '* @a\n'.repeat(100) }]);
    const err = await refusal(owners, { ...DEFAULT_BUNDLE_LIMITS, maxCodeownersBytes: 100 });
    expect([err.statusCode, err.message]).toEqual([
      413,
      'The bundle entry "CODEOWNERS" is larger than the limit of 100 bytes.',
    ]);
    const bigMeta = await junitBundle();
    expect((await refusal(bigMeta, { ...DEFAULT_BUNDLE_LIMITS, maxMetaBytes: 10 })).message).toBe(
      'The bundle entry "meta.json" is larger than the limit of 10 bytes.',
    );
  });

  it('passes a JUnit file the parser refuses on as the parser refused it, naming the original path', async () => {
    const bundle = await bundleOf([
      meta({ junit: ['reports/evil.xml'] }),
      { name: 'junit/0', content: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><testsuites/>' },
    ]);
    const err = await read(bundle).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JunitParseError);
    expect((err as Error).message).toMatch(/^JUnit file "reports\/evil.xml" contains a DOCTYPE declaration/);
  });
});

describe('readBundle on hostile bytes (properties)', () => {
  const settled = async (bytes: Uint8Array) =>
    read(bytes, { ...DEFAULT_BUNDLE_LIMITS, maxUnpackedBytes: 4 * 1024 * 1024 }).then(
      () => 'read',
      (err: unknown) => {
        if (err instanceof BundleRefusal || err instanceof JunitParseError) return 'refused';
        throw err;
      },
    );

  it('random bytes, and random bytes behind a zstd magic number, are refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2048 }), fc.boolean(), async (bytes, magic) => {
        const input = magic ? Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), bytes]) : bytes;
        expect(await settled(input)).toBe('refused');
      }),
      { numRuns: 300 },
    );
  });

  it('a valid bundle with bytes changed or cut is read or refused, never anything else', async () => {
    const bundle = await bundleOf([
      meta({ junit: ['a.xml', 'b.xml'] }),
      { name: 'junit/0', content: JUNIT('a') },
      { name: 'junit/1', content: JUNIT('b', true) },
      { name: 'CODEOWNERS', content: '* @a' },
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: bundle.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.option(fc.nat({ max: bundle.length }), { nil: undefined }),
        async (changes, cut) => {
          const copy = Buffer.from(bundle);
          for (const [at, value] of changes) copy[at] = value;
          await settled(cut === undefined ? copy : copy.subarray(0, cut));
        },
      ),
      { numRuns: 300 },
    );
  });
});
