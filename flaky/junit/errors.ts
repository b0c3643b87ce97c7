/**
 * Why a JUnit file was refused. Every refusal is a {@link JunitParseError} whose message is one
 * plain sentence naming the file and the problem, so the API can return it as a 400 body as is.
 *
 * Invariant: parsing never resolves entities or DTDs. A DOCTYPE is refused outright rather than
 * "parsed safely", because refusing is the only way that cannot regress into entity expansion
 * (billion laughs) or external entity reads.
 */

export type JunitProblem =
  | { readonly kind: 'doctype' }
  | { readonly kind: 'malformed'; readonly detail: string; readonly line?: number; readonly column?: number }
  | { readonly kind: 'not_junit'; readonly root: string }
  | { readonly kind: 'encoding'; readonly encoding: string }
  | { readonly kind: 'too_large'; readonly limitBytes: number }
  | { readonly kind: 'too_many_testcases'; readonly limit: number }
  | { readonly kind: 'too_many_attempts'; readonly test: string; readonly limit: number }
  | { readonly kind: 'too_deep'; readonly limit: number };

export type JunitProblemKind = JunitProblem['kind'];

export class JunitParseError extends Error {
  override readonly name = 'JunitParseError';
  readonly kind: JunitProblemKind;

  constructor(
    readonly fileName: string,
    readonly problem: JunitProblem,
  ) {
    super(describeProblem(fileName, problem));
    this.kind = problem.kind;
  }
}

export function describeProblem(fileName: string, problem: JunitProblem): string {
  const file = `JUnit file ${JSON.stringify(fileName)}`;
  switch (problem.kind) {
    case 'doctype':
      return `${file} contains a DOCTYPE declaration, which is refused because it can define entities (entity expansion or external entities).`;
    case 'malformed': {
      const at = problem.line === undefined ? '' : ` at line ${problem.line}, column ${problem.column ?? 0}`;
      return `${file} is not well-formed XML${at}: ${withoutFinalPeriod(problem.detail)}.`;
    }
    case 'not_junit':
      return `${file} has the root element <${problem.root}>, but JUnit XML starts with <testsuites> or <testsuite>.`;
    case 'encoding':
      return `${file} declares the encoding ${JSON.stringify(problem.encoding)}, which is not supported (use UTF-8).`;
    case 'too_large':
      return `${file} is larger than the limit of ${problem.limitBytes} bytes.`;
    case 'too_many_testcases':
      return `${file} has more than ${problem.limit} test cases, the limit for one file.`;
    case 'too_many_attempts':
      return `${file} has more than ${problem.limit} attempts of the test ${JSON.stringify(problem.test)}, the limit for one test.`;
    case 'too_deep':
      return `${file} nests elements deeper than ${problem.limit} levels, the limit for one file.`;
  }
}

function withoutFinalPeriod(text: string): string {
  return text.trim().replace(/\.+$/, '');
}
