/**
 * What `npm run demo` builds (the data of demo-scenario.ts): a small shell project whose `bash test.sh`
 * checks a calculator and writes a JUnit report, and six pull requests on it.
 *
 * Invariants the demo's sentences and the browser test rely on: #3 breaks the test `calc`/`adds` (its
 * runs fail, the JUnit names the failing test and its message); #4 and #5 change the same line of
 * README.md, so #5, behind #4, conflicts with it; the other PRs each add a file of their own and merge.
 */

/** The project's files on main, as committed by the demo's first commit. */
export const DEMO_PROJECT: Readonly<Record<string, string>> = {
  'README.md': '# demo app\n\nstatus: green\n',
  'calc.sh': '#!/usr/bin/env bash\nadd() { echo $(( $1 + $2 )); }\n',
  'test.sh': [
    '#!/usr/bin/env bash',
    '# Runs the checks and writes a JUnit report the way CI tools do.',
    'source ./calc.sh',
    'mkdir -p test-results; failures=0; cases=""',
    'check() { if [ "$2" = "$3" ]; then cases="$cases<testcase classname=\\"calc\\" name=\\"$1\\"/>";',
    '  else failures=$((failures+1)); cases="$cases<testcase classname=\\"calc\\" name=\\"$1\\"><failure message=\\"expected $3, got $2\\"/></testcase>"; fi; }',
    'check adds "$(add 1 2)" 3',
    'for t in tests/*.sh; do [ -e "$t" ] && source "$t"; done',
    'echo "<testsuite name=\\"calc\\" tests=\\"1\\" failures=\\"$failures\\">$cases</testsuite>" > test-results/junit.xml',
    'sleep 1',
    'exit $failures',
    '',
  ].join('\n'),
  '.railyard/merge-queue.json': `${JSON.stringify({ version: 1, command: 'bash test.sh', junitGlobs: ['test-results/*.xml'] }, null, 2)}\n`,
};

export interface DemoPullRequest {
  n: number;
  title: string;
  /** Files the PR writes on top of main. */
  files: Readonly<Record<string, string>>;
}

export const DEMO_PRS: readonly DemoPullRequest[] = [
  {
    n: 1,
    title: 'Add subtraction',
    files: { 'tests/sub.sh': 'sub() { echo $(( $1 - $2 )); }\ncheck subtracts "$(sub 5 2)" 3\n' },
  },
  {
    n: 2,
    title: 'Add multiplication',
    files: { 'tests/mul.sh': 'mul() { echo $(( $1 * $2 )); }\ncheck multiplies "$(mul 3 4)" 12\n' },
  },
  {
    n: 3,
    title: 'Break addition (fails the tests)',
    files: { 'calc.sh': '#!/usr/bin/env bash\nadd() { echo $(( $1 - $2 )); }\n' },
  },
  { n: 4, title: 'Status: yellow', files: { 'README.md': '# demo app\n\nstatus: yellow\n' } },
  { n: 5, title: 'Status: blue (conflicts with #4)', files: { 'README.md': '# demo app\n\nstatus: blue\n' } },
  { n: 6, title: 'Document the test command', files: { 'docs/testing.md': 'Run `bash test.sh`.\n' } },
];
