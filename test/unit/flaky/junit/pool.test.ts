/**
 * The JUnit parser pool parses on worker threads exactly what parseJunit parses in-thread: the same
 * result for every fixture (deep and strict: no field added, lost or changed on the way back), the
 * same refusals with the same messages, the same limits while streaming, and in-thread error
 * precedence when the body stream itself fails. The threads are started from the TypeScript sources
 * through tsx's require hook (spawn.ts), as under `npm start`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inThreadJunitParser, JunitParseError, type JunitLimits, parseJunit } from '../../../../flaky/junit';
import {
  createJunitParser,
  defaultParserThreads,
  type JunitParserPool,
  startJunitParserPool,
} from '../../../../flaky/junit/pool';
import { jsonExact } from '../../../../flaky/junit/pool/protocol';
import { matchOwnersNow } from '../../../../flaky/owners-matching';
import { spawnParserWorker } from '../../../../flaky/junit/pool/spawn';
import { FIXTURES } from './fixtures';

let pool: JunitParserPool;
beforeAll(async () => {
  pool = await startJunitParserPool({ threads: 2 });
}, 60_000);
afterAll(() => pool.close());

const FIXTURE_FILES = readdirSync(FIXTURES).filter((f) => f.endsWith('.xml'));

/** The bytes in chunks of `size`, as an HTTP body would arrive. */
function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/** What a parse ends in: the file, or the refusal's kind and message (and the error's class). */
async function outcome(
  parse: typeof parseJunit,
  chunks: (Buffer | string)[] | AsyncIterable<Buffer>,
  limits?: Partial<JunitLimits>,
): Promise<unknown> {
  try {
    return await parse(chunks, { fileName: 'report.xml', ...(limits === undefined ? {} : { limits }) });
  } catch (err) {
    if (err instanceof JunitParseError) return { refused: err.kind, message: err.message };
    return { failed: err instanceof Error ? err.message : String(err) };
  }
}

const pooled: typeof parseJunit = (source, options) => pool.parse(source, options);

describe('the same parse on a worker thread', () => {
  test.each(FIXTURE_FILES)('%s parses to a strictly equal result', async (name) => {
    const bytes = readFileSync(join(FIXTURES, name));
    for (const size of [7, 64, 65_536]) {
      const inThread = await parseJunit(chunked(bytes, size), { fileName: name });
      const onPool = await pool.parse(chunked(bytes, size), { fileName: name });
      expect(onPool).toStrictEqual(inThread);
    }
  });

  test('a result JSON cannot carry exactly crosses as a structured clone, still strictly equal', async () => {
    // A time this large overflows to an infinite duration, which JSON would turn into null.
    const xml =
      '<testsuite name="s"><testcase name="t" classname="c" time="1e306"/><testcase name="u" classname="c" line="9" time="0.5"/></testsuite>';
    const inThread = await parseJunit([xml], { fileName: 'report.xml' });
    expect(jsonExact(inThread)).toBe(false);
    expect(await pool.parse([xml], { fileName: 'report.xml' })).toStrictEqual(inThread);
  });

  test('many files at once on two threads each get their own result', async () => {
    const files = FIXTURE_FILES.map((name) => readFileSync(join(FIXTURES, name)));
    const results = await Promise.all(
      [...files, ...files].map((bytes, i) => pool.parse(chunked(bytes, 128), { fileName: `f${i}.xml` })),
    );
    for (const [i, result] of results.entries()) {
      const expected = await parseJunit([files[i % files.length]!], { fileName: `f${i}.xml` });
      expect(result).toStrictEqual(expected);
    }
  });
});

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<testsuites><testsuite name="s"><testcase name="&lol9;" classname="c"/></testsuite></testsuites>`;
const EXTERNAL_ENTITY = `<?xml version="1.0"?>
<!DOCTYPE testsuites [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<testsuites><testsuite name="s"><testcase name="t" classname="c"><failure>&xxe;</failure></testcase></testsuite></testsuites>`;
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

describe('the same refusals with the same sentences', () => {
  test.each([
    ['billion laughs', [BILLION_LAUGHS]],
    ['an external entity', [EXTERNAL_ENTITY]],
    ['a DOCTYPE in UTF-16 with a byte-order mark', [utf16(EXTERNAL_ENTITY)]],
    [
      'a DOCTYPE split across chunks',
      ['<?xml version="1.0"?><!DOC', 'TYPE x [<!ENTITY a "b">]><testsuites/>'],
    ],
    ['an undefined entity', ['<testsuites><testsuite name="&nbsp;"/></testsuites>']],
    ['a NUL character', ['<testsuites><testsuite name="a\u0000b"/></testsuites>']],
    ['text that is not XML', ['this is not xml']],
    ['an empty file', ['']],
    ['XML that is not JUnit', ['<html><body/></html>']],
    ['an unsupported encoding', [Buffer.from('<?xml version="1.0" encoding="EBCDIC-XYZ"?><testsuites/>')]],
    [
      'elements nested too deep',
      [`<testsuites>${'<testsuite>'.repeat(39)}${'</testsuite>'.repeat(39)}</testsuites>`],
    ],
    ['a document cut off', ['<testsuites><testsuite name="s"><testcase']],
  ])('%s', async (_name, chunks) => {
    const expected = await outcome(parseJunit, chunks);
    expect(expected).toHaveProperty('refused');
    expect(await outcome(pooled, chunks)).toEqual(expected);
  });

  test.each([
    ['bytes', { maxFileBytes: 1_000 }],
    ['test cases', { maxTestCases: 3 }],
    ['attempts of one test', { maxAttemptsPerTest: 2 }],
    ['depth', { maxDepth: 2 }],
  ])('the %s limit is enforced in the worker while streaming', async (_name, limits) => {
    const cases = Array.from(
      { length: 40 },
      () => '<testcase name="t" classname="c"><system-out>x</system-out></testcase>',
    ).join('');
    const chunks = chunked(Buffer.from(`<testsuite name="s">${cases}</testsuite>`), 50);
    const expected = await outcome(parseJunit, chunks, limits);
    expect(expected).toHaveProperty('refused');
    expect(await outcome(pooled, chunks, limits)).toEqual(expected);
  });
});

describe('when the body stream fails', () => {
  async function* failingAfter(chunks: string[], error: Error): AsyncGenerator<Buffer> {
    for (const chunk of chunks) {
      await new Promise((resolve) => setImmediate(resolve));
      yield Buffer.from(chunk);
    }
    throw error;
  }

  test('a refusal of the chunks already read wins, as in-thread', async () => {
    // Past the first 1 KiB: the decoder holds back less than that while it looks for the encoding.
    const chunks = [`<?xml version="1.0"?><!--${'-'.repeat(1100)}--><!DOCTYPE x>`, '<testsuites>'];
    const inThread = await outcome(parseJunit, failingAfter(chunks, new Error('body too large')));
    expect(inThread).toMatchObject({ refused: 'doctype' });
    expect(await outcome(pooled, failingAfter(chunks, new Error('body too large')))).toEqual(inThread);
  });

  test("otherwise the stream's error comes through (also within the first KiB, not yet parsed)", async () => {
    const early = ['<?xml version="1.0"?><!DOCTYPE x>', '<testsuites>'];
    const inThread = await outcome(parseJunit, failingAfter(early, new Error('body too large')));
    expect(inThread).toEqual({ failed: 'body too large' });
    expect(await outcome(pooled, failingAfter(early, new Error('body too large')))).toEqual(inThread);
    const chunks = ['<testsuites><testsuite name="s">', '<testcase name="t" classname="c"/>'];
    const error = new Error('Unexpected end of multipart data');
    await expect(parseJunit(failingAfter(chunks, error), { fileName: 'r.xml' })).rejects.toBe(error);
    await expect(pool.parse(failingAfter(chunks, error), { fileName: 'r.xml' })).rejects.toBe(error);
  });

  test('a large file streams through the flow-control window', async () => {
    const cases = Array.from(
      { length: 30_000 },
      (_, i) =>
        `<testcase name="t${i}" classname="c" time="0.01"><system-out>${'o'.repeat(40)}</system-out></testcase>`,
    ).join('');
    const bytes = Buffer.from(`<testsuite name="s">${cases}</testsuite>`);
    expect(bytes.length).toBeGreaterThan(3 * 1024 * 1024);
    const onPool = await pool.parse(chunked(bytes, 65_536), { fileName: 'big.xml' });
    expect(onPool).toStrictEqual(await parseJunit([bytes], { fileName: 'big.xml' }));
  });
});

/** A thread that says it is ready, then exits with code 3 as soon as it is given a file. */
const dyingOnFirstJob = () =>
  new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.postMessage({ type: 'ready' });
     parentPort.on('message', (m) => { if (m.type === 'start') process.exit(3); });`,
    { eval: true },
  );
/** A thread that fails before it is ready. */
const failingToStart = () => new Worker(`throw new Error('cannot load the parser');`, { eval: true });

describe('threads that die', () => {
  test('a dying thread fails its own file and is replaced by a working one', async () => {
    const spawned: string[] = [];
    const errors: string[] = [];
    const own = await startJunitParserPool({
      threads: 1,
      onWorkerError: (err) => errors.push(err.message),
      spawn: () => {
        spawned.push(spawned.length === 0 ? 'dying' : 'real');
        return spawned.length === 1 ? dyingOnFirstJob() : spawnParserWorker();
      },
    });
    try {
      await expect(own.parse(['<testsuite name="s"/>'], { fileName: 'a.xml' })).rejects.toThrow(
        'The JUnit parser thread exited with code 3.',
      );
      expect(errors).toEqual(['The JUnit parser thread exited with code 3.']);
      const xml = readFileSync(join(FIXTURES, 'go-junit-report.xml'));
      expect(await own.parse([xml], { fileName: 'g.xml' })).toStrictEqual(
        await parseJunit([xml], { fileName: 'g.xml' }),
      );
      expect(spawned).toEqual(['dying', 'real']);
    } finally {
      await own.close();
    }
  }, 60_000);

  test('a replacement that cannot start is not restarted; files are then parsed in-thread', async () => {
    let spawns = 0;
    const own = await startJunitParserPool({
      threads: 1,
      spawn: () => (++spawns === 1 ? dyingOnFirstJob() : failingToStart()),
    });
    try {
      await expect(own.parse(['<testsuite name="s"/>'], { fileName: 'a.xml' })).rejects.toThrow();
      for (let tries = 0; spawns < 2 && tries < 100; tries += 1) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 500));
      expect(spawns).toBe(2);
      const xml = readFileSync(join(FIXTURES, 'pytest-xunit2.xml'));
      expect(await own.parse([xml], { fileName: 'p.xml' })).toStrictEqual(
        await parseJunit([xml], { fileName: 'p.xml' }),
      );
      expect(spawns).toBe(2);
    } finally {
      await own.close();
    }
  }, 60_000);

  test('threads that cannot start: the pool is refused, and the API parses in-thread with a warning', async () => {
    await expect(startJunitParserPool({ threads: 2, spawn: failingToStart })).rejects.toThrow(
      'cannot load the parser',
    );
    const warn = jest.fn();
    expect(await createJunitParser({ threads: 2, warn, spawn: failingToStart })).toBe(inThreadJunitParser);
    expect(warn).toHaveBeenCalledWith(
      expect.any(Error),
      'the JUnit parser threads could not start; uploads are parsed on the main thread',
    );
  });
});

describe('CODEOWNERS matching on a thread', () => {
  const RULE = `${'a*'.repeat(12)}b`;

  test.each([
    [
      'matched',
      {
        patterns: ['*', '/src/', RULE, '*.ts'],
        paths: ['src/a.ts', 'README', 'a'.repeat(43)],
        maxSteps: 1e8,
      },
    ],
    [
      'too costly',
      { patterns: Array.from({ length: 300 }, () => RULE), paths: ['a'.repeat(900)], maxSteps: 1e6 },
    ],
  ])('answers what the calling thread would (%s)', async (_kind, request) => {
    expect(await pool.matchOwners(request)).toEqual(matchOwnersNow(request));
  });

  test('a thread that dies fails the job it was given', async () => {
    const own = await startJunitParserPool({
      threads: 1,
      spawn: () =>
        new Worker(
          `const { parentPort } = require('node:worker_threads');
           parentPort.postMessage({ type: 'ready' });
           parentPort.on('message', (m) => { if (m.type === 'matchOwners') process.exit(4); });`,
          { eval: true },
        ),
    });
    try {
      await expect(own.matchOwners({ patterns: ['*'], paths: ['a'], maxSteps: 1e6 })).rejects.toThrow(
        'The JUnit parser thread exited with code 4.',
      );
    } finally {
      await own.close();
    }
  });

  test('the in-thread parser matches in slices, with the same answer', async () => {
    const request = { patterns: ['*.ts', RULE], paths: ['x.ts', 'a'.repeat(43)], maxSteps: 1e8 };
    expect(await inThreadJunitParser.matchOwners!(request)).toEqual(matchOwnersNow(request));
  });
});

describe('lifecycle and configuration', () => {
  test('a closed pool refuses to parse; closing twice is fine', async () => {
    const own = await startJunitParserPool({ threads: 1 });
    expect((await own.parse(['<testsuite name="s"/>'], { fileName: 'a.xml' })).testCases).toEqual([]);
    await own.close();
    await own.close();
    await expect(own.parse(['<testsuite name="s"/>'], { fileName: 'a.xml' })).rejects.toThrow(
      'The JUnit parser pool is closed.',
    );
  }, 60_000);

  test('0 threads parse in-thread', async () => {
    const warn = jest.fn();
    expect(await createJunitParser({ threads: 0, warn })).toBe(inThreadJunitParser);
    expect(warn).not.toHaveBeenCalled();
  });

  test('the default leaves a core to the event loop, at least one thread and at most four', () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => defaultParserThreads(cores))).toEqual([1, 1, 2, 3, 4, 4]);
  });

  test('a pool needs a whole number of threads', async () => {
    await expect(startJunitParserPool({ threads: 0 })).rejects.toThrow(RangeError);
  });
});
