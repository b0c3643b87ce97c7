import { combineUploadFiles, JunitParseError, parseJunitText } from '../../../../flaky/junit';

const parse = (cases: string, fileName = 'r.xml', root = '<testsuite name="s">') =>
  parseJunitText(`${root}${cases}</testsuite>`, { fileName });

describe('repeated testcases', () => {
  test('join in document order, first occurrence decides the test order', async () => {
    const file = await parse(
      '<testcase name="a" classname="c"><failure/></testcase><testcase name="b" classname="c"/><testcase name="a" classname="c"/>',
    );
    expect(file.testCases.map((t) => [t.name, t.status, t.attempts.map((a) => a.origin)])).toEqual([
      ['a', 'passed', ['testcase', 'repeated']],
      ['b', 'passed', ['testcase']],
    ]);
  });

  test('attempt_number orders occurrences when every one has it', async () => {
    const file = await parse(
      '<testcase name="a" classname="c" attempt_number="1"/><testcase name="a" classname="c" attempt_number="0"><failure/></testcase>',
    );
    expect(file.testCases[0]!.attempts.map((a) => a.status)).toEqual(['failed', 'passed']);
  });

  test('same name in different classnames or files stays separate', async () => {
    const file = await parse(
      '<testcase name="a" classname="c1"/><testcase name="a" classname="c2"/><testcase name="a" classname="c1" file="x.js"/>',
    );
    expect(file.testCases).toHaveLength(3);
  });

  test('empty earlier repeats are passes outside pytest', async () => {
    const file = await parse(
      '<testcase name="a" classname="c"/><testcase name="a" classname="c"><failure/></testcase>',
    );
    expect(file.testCases[0]!.attempts.map((a) => a.status)).toEqual(['passed', 'failed']);
  });
});

describe('several files in one upload', () => {
  test('attempts of one test across files are joined in file order and renumbered', async () => {
    const first = await parse(
      '<testcase name="a" classname="c"><failure/></testcase><testcase name="b" classname="c"/>',
      'first.xml',
    );
    const retry = await parse('<testcase name="a" classname="c"/>', 'retry.xml');
    const tests = combineUploadFiles([first, retry]);
    expect(
      tests.map((t) => [t.name, t.status, t.attempts.map((a) => `${a.index}:${a.status}`), t.fileNames]),
    ).toEqual([
      ['a', 'passed', ['0:failed', '1:passed'], ['first.xml', 'retry.xml']],
      ['b', 'passed', ['0:passed'], ['first.xml']],
    ]);
  });

  test('the attempt limit applies across files', async () => {
    const one = await parse('<testcase name="a" classname="c"/>', 'one.xml');
    expect(() => combineUploadFiles([one, one, one], { maxAttemptsPerTest: 2 })).toThrow(JunitParseError);
  });
});
