import { parseJunitText } from '../../../../flaky/junit';
import { pytestFileFromClassname } from '../../../../flaky/junit/dialects/pytest';

const dialectOf = async (xml: string) => (await parseJunitText(xml, { fileName: 'r.xml' })).dialect;

describe('dialect detection', () => {
  test.each([
    [
      'surefire schema',
      '<testsuite xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report.xsd" name="a.B"/>',
      'surefire',
    ],
    [
      'JVM properties',
      '<testsuite name="a.B"><properties><property name="java.version" value="21"/></properties></testsuite>',
      'surefire',
    ],
    [
      'go.version property',
      '<testsuites><testsuite name="p"><properties><property name="go.version" value="go1.22"/></properties></testsuite></testsuites>',
      'go',
    ],
    [
      'Go test names in a package',
      '<testsuites><testsuite name="example.com/p"><testcase name="TestX" classname="example.com/p"/></testsuite></testsuites>',
      'go',
    ],
    ['pytest root', '<testsuites name="pytest tests"><testsuite name="custom"/></testsuites>', 'pytest'],
    [
      'pytest suite',
      '<testsuites><testsuite name="pytest"><testcase name="test_a" classname="t"/></testsuite></testsuites>',
      'pytest',
    ],
    [
      'Playwright root id',
      '<testsuites id="" name=""><testsuite name="a.spec.ts" hostname="chromium"><testcase name="t" classname="a.spec.ts"/></testsuite></testsuites>',
      'playwright',
    ],
    ['jest-junit root', '<testsuites name="jest tests"><testsuite name="x"/></testsuites>', 'jest'],
    [
      'plain JUnit',
      '<testsuite name="Suite"><testcase name="testA" classname="com.example.A"/></testsuite>',
      'generic',
    ],
  ])('%s → %s', async (_name, xml, dialect) => {
    expect(await dialectOf(xml)).toBe(dialect);
  });

  test.each([
    ['tests.test_shop.TestCart', 'tests/test_shop.py'],
    ['test_shop', 'test_shop.py'],
    ['pkg.shop_test.TestA.TestNested', 'pkg/shop_test.py'],
    ['mypkg.checks', undefined],
  ])('pytest classname %s → file %s', (classname, file) => {
    expect(pytestFileFromClassname(classname)).toBe(file);
  });

  test('Playwright tests of different projects are different tests', async () => {
    const xml =
      '<testsuites id=""><testsuite name="a.spec.ts" hostname="chromium"><testcase name="d › t" classname="a.spec.ts"/></testsuite><testsuite name="a.spec.ts" hostname="firefox"><testcase name="d › t" classname="a.spec.ts"><failure/></testcase></testsuite></testsuites>';
    const file = await parseJunitText(xml, { fileName: 'r.xml' });
    expect(file.testCases.map((t) => [t.parent, t.status, t.attempts.length])).toEqual([
      ['chromium', 'passed', 1],
      ['firefox', 'failed', 1],
    ]);
  });
});
