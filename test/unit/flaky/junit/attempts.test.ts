/**
 * Retry encodings on small hand-written testcases (the fixtures show them as the tools write them).
 */
import { parseJunitText } from '../../../../flaky/junit';

const attemptsOf = async (body: string, attributes = '') => {
  const xml = `<testsuite name="s"><testcase name="t" classname="c" time="1.5"${attributes}>${body}</testcase></testsuite>`;
  const file = await parseJunitText(xml, { fileName: 'r.xml' });
  return file.testCases[0]!.attempts.map((a) => [a.status, a.origin, a.durationMs ?? null]);
};

describe('attempts of one testcase', () => {
  test.each([
    ['no child: a pass', '', [['passed', 'testcase', 1500]]],
    ['skipped', '<skipped message="later"/>', [['skipped', 'testcase', 1500]]],
    ['failure', '<failure message="m">trace</failure>', [['failed', 'testcase', 1500]]],
    ['error', '<error/>', [['error', 'testcase', 1500]]],
    [
      'flaky children then the final pass',
      '<flakyFailure time="0.2"/><flakyError time="0.3"/>',
      [
        ['failed', 'flakyFailure', 200],
        ['error', 'flakyError', 300],
        ['passed', 'testcase', 1500],
      ],
    ],
    [
      'rerun children follow the first failure, wherever they are written',
      '<rerunFailure time="0.2"/><failure/><rerunError/>',
      [
        ['failed', 'testcase', 1500],
        ['failed', 'rerunFailure', 200],
        ['error', 'rerunError', null],
      ],
    ],
    [
      'flaky children before a final failure (pytest-rerunfailures proposal)',
      '<flakyFailure/><failure/>',
      [
        ['failed', 'flakyFailure', null],
        ['failed', 'testcase', 1500],
      ],
    ],
    ['failure wins over skipped', '<skipped/><failure/>', [['failed', 'testcase', 1500]]],
  ])('%s', async (_name, body, expected) => {
    expect(await attemptsOf(body)).toEqual(expected);
  });

  test.each([
    ['invocations', '3', 3],
    ['dd_tags[test.invocations]', '2', 2],
    ['invocations', 'x', 1],
  ])('property %s=%s gives %i attempts', async (name, value, count) => {
    const attempts = await attemptsOf(`<properties><property name="${name}" value="${value}"/></properties>`);
    expect(attempts).toHaveLength(count);
    expect(attempts[attempts.length - 1]).toEqual(['passed', 'testcase', 1500]);
  });

  test('retry children carry their own message, stack trace and output', async () => {
    const xml =
      '<testsuite name="s"><testcase name="t" classname="c"><flakyFailure message="m1" type="E"><stackTrace>E: m1\n at x</stackTrace><system-out>o1</system-out><system-err>e1</system-err></flakyFailure></testcase></testsuite>';
    const [first] = (await parseJunitText(xml, { fileName: 'r.xml' })).testCases[0]!.attempts;
    expect(first).toEqual({
      index: 0,
      status: 'failed',
      origin: 'flakyFailure',
      failure: { message: 'm1', type: 'E', body: { text: 'E: m1\n at x', totalChars: 11 } },
      systemOut: { text: 'o1', totalChars: 2 },
      systemErr: { text: 'e1', totalChars: 2 },
    });
  });
});
