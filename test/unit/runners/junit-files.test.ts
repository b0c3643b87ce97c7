import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  collectJunitFiles,
  DEFAULT_JUNIT_GLOBS,
  DEFAULT_JUNIT_LIMITS,
  junitFileMatcher,
} from '../../../executor/junit-files';

import { deepJunitGlobs, globStepBound } from '../../../bench/patterns/cases';

// The junit glob dialect's rows live with the matcher (test/unit/platform/glob.test.ts).

describe('collecting JUnit files', () => {
  let dir: string;
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'railyard-junit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('skips links, .git and node_modules, and sorts by path', async () => {
    write('z/junit.xml', '<z/>');
    write('a/TEST-a.xml', '<a/>');
    write('.git/junit.xml', '<git/>');
    write('node_modules/x/junit.xml', '<nm/>');
    write('secret.txt', 'secret');
    symlinkSync(join(dir, 'secret.txt'), join(dir, 'junit-link.xml'));
    mkdirSync(join(dir, 'linked'));
    symlinkSync(join(dir, 'z'), join(dir, 'linked', 'test-results'));
    const result = await collectJunitFiles(dir, DEFAULT_JUNIT_GLOBS);
    expect(result).toEqual({
      files: [
        { path: 'a/TEST-a.xml', xml: '<a/>' },
        { path: 'z/junit.xml', xml: '<z/>' },
      ],
      truncated: false,
    });
  });

  it('keeps within the count and size bounds and says so', async () => {
    for (let i = 0; i < 5; i += 1) write(`r/junit-${i}.xml`, 'x'.repeat(10));
    write('r/junit-big.xml', 'x'.repeat(100));
    const limits = { ...DEFAULT_JUNIT_LIMITS, maxFiles: 3, maxFileBytes: 50 };
    const byCount = await collectJunitFiles(dir, DEFAULT_JUNIT_GLOBS, limits);
    expect(byCount.files.map((f) => f.path)).toEqual(['r/junit-0.xml', 'r/junit-1.xml', 'r/junit-2.xml']);
    expect(byCount.truncated).toBe(true);
    const bySize = await collectJunitFiles(dir, DEFAULT_JUNIT_GLOBS, {
      ...limits,
      maxFiles: 100,
      maxTotalBytes: 25,
    });
    expect(bySize.files).toHaveLength(2);
    expect(bySize.truncated).toBe(true);
    const walk = await collectJunitFiles(dir, DEFAULT_JUNIT_GLOBS, {
      ...DEFAULT_JUNIT_LIMITS,
      maxEntries: 2,
    });
    expect(walk.truncated).toBe(true);
  });
});

describe('globs from the tested commit', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'railyard-junit-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // `**/` ten times took about 7 s per path as a regular expression (issue 11); fifty, far longer. With
  // the matching steps bounded by path x pattern length the walk finds both files; an exponential
  // matcher would spend them and stop (truncated). Timings: bench/patterns/run.ts.
  it.each([10, 50])('`**/` x %i is matched within path x pattern steps on deep paths', async (times) => {
    const deep = join(dir, ...Array.from({ length: 30 }, () => 'a'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'junit.xmk'), '<no/>');
    writeFileSync(join(deep, 'x.xml'), '<x/>');
    const globs = deepJunitGlobs(times);
    const files = [`${'a/'.repeat(30)}junit.xmk`, `${'a/'.repeat(30)}x.xml`];
    const linear = files.reduce((n, f) => n + globs.reduce((m, g) => m + globStepBound(g, f), 0), 0);
    const result = await collectJunitFiles(dir, globs, { ...DEFAULT_JUNIT_LIMITS, maxMatchSteps: linear });
    expect(result.truncated).toBe(false);
    expect(result.files.map((f) => f.path)).toEqual(files);
  });

  it('stops the walk once its matching steps are spent, and says so', async () => {
    // Names that get past the literal check (`ab`) and then cost the automaton the whole name.
    for (let i = 0; i < 20; i += 1) writeFileSync(join(dir, `${'a'.repeat(200)}b-${i}.txt`), '');
    writeFileSync(join(dir, 'junit.xml'), '<r/>');
    const globs = ['*a'.repeat(100) + 'b', 'junit.xml'];
    const unbounded = await collectJunitFiles(dir, globs);
    expect(unbounded).toEqual({ files: [{ path: 'junit.xml', xml: '<r/>' }], truncated: false });
    const bounded = await collectJunitFiles(dir, globs, { ...DEFAULT_JUNIT_LIMITS, maxMatchSteps: 10_000 });
    expect(bounded.truncated).toBe(true);
  });

  it('does not try paths longer than maxPathChars', () => {
    const matches = junitFileMatcher(['**/*.xml'], { maxPathChars: 10, maxMatchSteps: 1e6 });
    expect(matches('a/b/c.xml')).toBe('yes');
    expect(matches('a/b/cdefgh.xml')).toBe('skipped');
    expect(matches('a/b/c.txt')).toBe('no');
    const spent = junitFileMatcher(['*a'.repeat(50) + 'b'], { maxPathChars: 1e4, maxMatchSteps: 100 });
    expect(spent(`${'a'.repeat(500)}bc`)).toBe('spent');
    expect(spent('b')).toBe('spent');
  });
});
