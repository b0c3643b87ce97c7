/**
 * The name rules as the OpenAPI document's patterns (git/names.ts): every name a check
 * accepts matches its pattern, in JavaScript with and without the `u` flag (how JSON Schema
 * validators compile patterns); the patterns may be looser than the checks, never stricter.
 */
import fc from 'fast-check';
import {
  BRANCH_PATTERN,
  checkBranchName,
  checkRepositoryKey,
  REPO_HOST_PATTERN,
  REPO_NAME_PATTERN,
  REPO_OWNER_PATTERN,
} from '../../../git/names';

const compiled = (pattern: string) => [new RegExp(pattern), new RegExp(pattern, 'u')];
const host = compiled(REPO_HOST_PATTERN);
const owner = compiled(REPO_OWNER_PATTERN);
const name = compiled(REPO_NAME_PATTERN);
const branch = compiled(BRANCH_PATTERN);
const REPO = { host: 'github.com', owner: 'acme', name: 'app' };
const matchesAll = (patterns: RegExp[], value: string) => patterns.every((p) => p.test(value));

// Characters the rules treat specially, some ordinary ones, and some outside ASCII.
const special = [...'aZ09._-/:@{}~^?*[]\\ \t\n\u0000\u007f.lock', 'é', 'ü', '😀', '\u00a0', 'HEAD', 'refs/'];
const nameText = fc.oneof(
  fc
    .array(fc.oneof(fc.constantFrom(...special), fc.string({ maxLength: 3 })), { maxLength: 12 })
    .map((parts) => parts.join('')),
  // Mostly valid names, so that many runs reach the assertion.
  fc.stringMatching(/^[A-Za-z0-9._\-/:@{}]{1,24}$/),
);

test.each([
  ['host', host],
  ['owner', owner],
  ['name', name],
] as const)('every repository %s the check accepts matches the pattern', (field, patterns) => {
  fc.assert(
    fc.property(nameText, (value) => {
      if (!checkRepositoryKey({ ...REPO, [field]: value }).ok) return;
      expect(matchesAll(patterns, value)).toBe(true);
    }),
    { numRuns: 3000 },
  );
});

test('every branch name the check accepts matches the pattern', () => {
  fc.assert(
    fc.property(nameText, (b) => {
      if (!checkBranchName(b).ok) return;
      expect(matchesAll(branch, b)).toBe(true);
    }),
    { numRuns: 3000 },
  );
});

const accepts = {
  host: (v: string) => checkRepositoryKey({ ...REPO, host: v }).ok,
  owner: (v: string) => checkRepositoryKey({ ...REPO, owner: v }).ok,
  name: (v: string) => checkRepositoryKey({ ...REPO, name: v }).ok,
  branch: (v: string) => checkBranchName(v).ok,
};

test.each([
  ['host', host, ['github.com', 'gitlab.example.org:8443', 'local', 'a-b.c']],
  ['owner', owner, ['acme', 'group/sub-group/team', '.github', 'a_b.c-d', Array(20).fill('x').join('/')]],
  ['name', name, ['app', '.github', 'my-repo.js', 'x'.repeat(100)]],
  ['branch', branch, ['main', 'release/1.0', 'feature/ü-ber', 'a/-b', 'railyard-merge/pr-1/abc', 'x@y']],
] as const)('valid %s names match', (field, patterns, names) => {
  for (const value of names) {
    expect(accepts[field](value)).toBe(true);
    expect(matchesAll(patterns, value)).toBe(true);
  }
});

test.each([
  ['host', host, ['-github.com', '.github.com', 'git hub.com', 'github.com:port', '']],
  ['owner', owner, ['-acme', 'acme/', '/acme', 'a//b', 'ac me', 'ac\u0000me']],
  ['name', name, ['-app', 'a/b', 'ap p', '']],
  [
    'branch',
    branch,
    [
      '-x',
      '.x',
      'a/.b',
      'a b',
      'a~b',
      'a^b',
      'a:b',
      'a?b',
      'a*b',
      'a[b',
      'a\\b',
      'a/',
      '/a',
      'a//b',
      'a\u007fb',
    ],
  ],
] as const)(
  '%s names the check refuses for their characters or shape do not match',
  (field, patterns, names) => {
    for (const value of names) {
      expect(accepts[field](value)).toBe(false);
      expect(patterns.some((p) => p.test(value))).toBe(false);
    }
  },
);

test.each([
  ['branch', 'a..b', branch],
  ['branch', 'HEAD', branch],
  ['branch', 'x.lock', branch],
  ['owner', 'a/..', owner],
  ['host', 'a..b', host],
] as const)('the %s pattern may be looser than the check: %s', (field, value, patterns) => {
  expect(accepts[field](value)).toBe(false);
  expect(matchesAll(patterns, value)).toBe(true);
});
