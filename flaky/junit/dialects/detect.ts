/**
 * Which tool wrote a file, from the marks each one leaves. Checked from the most specific mark to
 * the least; anything unrecognised is `generic`, which reads standard JUnit correctly anyway.
 *
 * - Surefire: its schema location on the root, or JVM system properties on the suite.
 * - Go: the `go.version` suite property (gotestsum, go-junit-report with -json), or every testcase
 *   named like a Go test with classname = package = suite name (go-junit-report from `go test -v`).
 * - pytest: the root named "pytest tests" or a suite named "pytest" (the junit_suite_name default).
 * - Playwright: an `id` attribute on `<testsuites>` and classname = suite name (the spec file).
 * - Jest: the root named "jest tests" (jest-junit's default) or an invocation-count property.
 */
import { type DocumentEvidence, type RawCase } from '../raw';
import { type Dialect } from '../types';
import { innermostSuiteName } from './generic';
import { invocationCount } from '../attempts';

const JVM_PROPERTIES = ['java.version', 'java.specification.version', 'surefire.test.class.path'];
const GO_TEST_NAME = /^(Test|Benchmark|Example|Fuzz)([A-Z0-9_/]|$)/;

export function detectDialect(evidence: DocumentEvidence, cases: readonly RawCase[]): Dialect {
  if (isSurefire(evidence)) return 'surefire';
  if (evidence.suitePropertyNames.has('go.version') || looksLikeGo(cases)) return 'go';
  if (
    evidence.rootAttributes.name === 'pytest tests' ||
    cases.some((c) => innermostSuiteName(c) === 'pytest')
  ) {
    return 'pytest';
  }
  if (evidence.root === 'testsuites' && 'id' in evidence.rootAttributes && classnameIsSuite(cases))
    return 'playwright';
  if (evidence.rootAttributes.name === 'jest tests' || cases.some((c) => invocationCount(c) !== undefined))
    return 'jest';
  return 'generic';
}

function isSurefire(evidence: DocumentEvidence): boolean {
  const schema = Object.entries(evidence.rootAttributes).some(
    ([key, value]) => key.endsWith('noNamespaceSchemaLocation') && /surefire/i.test(value),
  );
  return schema || JVM_PROPERTIES.some((name) => evidence.suitePropertyNames.has(name));
}

function looksLikeGo(cases: readonly RawCase[]): boolean {
  return (
    cases.length > 0 &&
    classnameIsSuite(cases) &&
    cases.some((c) => GO_TEST_NAME.test(c.attributes.name ?? '')) &&
    cases.every(
      (c) => (c.attributes.classname ?? '').includes('/') || !(c.attributes.classname ?? '').includes('.'),
    )
  );
}

function classnameIsSuite(cases: readonly RawCase[]): boolean {
  return cases.every((c) => (c.attributes.classname ?? '') === innermostSuiteName(c));
}
