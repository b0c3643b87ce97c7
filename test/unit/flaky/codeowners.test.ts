import { createOwnersResolver, resolveOwners } from '../../../activities/flaky/codeowners';

const CODEOWNERS = `# Default owners
*                     @acme/everyone
/docs/                @acme/docs
*.py                  @acme/python
src/payments/**       @alice @acme/payments   # money
src/payments/legacy/
e2e/                  @acme/qa
`;

describe('codeowners', () => {
  test.each([
    ['README.md', ['@acme/everyone']],
    ['docs/guide.md', ['@acme/docs']],
    ['tests/test_shop.py', ['@acme/python']],
    ['src/payments/card.test.ts', ['@alice', '@acme/payments']],
    ['src/payments/legacy/old.test.ts', []],
    ['./e2e/checkout.spec.ts', ['@acme/qa']],
    ['e2e\\checkout.spec.ts', ['@acme/qa']],
    ['/abs/path/x.ts', []],
    ['../outside.ts', []],
    [undefined, []],
  ])('%s is owned by %j (last matching rule wins)', (file, owners) => {
    expect(resolveOwners(CODEOWNERS, file)).toEqual(owners);
  });

  test('no CODEOWNERS means no owners', () => {
    expect(resolveOwners(undefined, 'src/a.ts')).toEqual([]);
    expect(resolveOwners('', 'src/a.ts')).toEqual([]);
  });

  test('Windows line endings are read like Unix ones', () => {
    expect(resolveOwners('* @a\r\n*.go @b\r\n', 'x.go')).toEqual(['@b']);
  });

  test('a resolver answers repeated files from its own cache', () => {
    const owners = createOwnersResolver(CODEOWNERS);
    expect(owners('src/payments/a.ts')).toBe(owners('src/payments/a.ts'));
  });
});
