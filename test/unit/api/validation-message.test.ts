import { z } from 'zod';
import { PrNumber, QueueRequest, looseEnum } from '../../../api/schemas/common';
import { describeIssue } from '../../../api/validation-message';

const firstMessage = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  if (r.success) throw new Error('expected a failure');
  return describeIssue(r.error.issues[0]!);
};

describe('describeIssue', () => {
  test.each([
    [
      'required nested',
      QueueRequest,
      { repo: { host: 'h', owner: 'o' }, targetBranch: 'm' },
      "Field 'repo.name' is required.",
    ],
    ['wrong type', QueueRequest, { repo: 'x', targetBranch: 'm' }, "Field 'repo' must be an object."],
    ['not an object', QueueRequest, 'x', 'The request body must be a JSON object.'],
    [
      'control chars',
      QueueRequest,
      { repo: { host: 'h', owner: 'o', name: 'a\u0001' }, targetBranch: 'm' },
      "Field 'repo.name' must not contain control characters.",
    ],
    [
      'too long',
      QueueRequest,
      { repo: { host: 'h', owner: 'o', name: 'n' }, targetBranch: 'b'.repeat(300) },
      "Field 'targetBranch' must be at most 255 characters long.",
    ],
    ['array index', z.object({ a: z.array(z.number()) }), { a: [1, 'x'] }, "Field 'a[1]' must be a number."],
    [
      'enum',
      z.object({ mode: looseEnum(['single', 'parallel']) }),
      { mode: 'triple' },
      "Field 'mode' must be one of: single, parallel.",
    ],
  ])('%s', (_name, schema, input, message) => {
    expect(firstMessage(schema, input)).toBe(message);
  });
});

describe('PrNumber', () => {
  test.each([
    [123, 123],
    ['123', 123],
    [' 7 ', 7],
  ])('accepts %p', (input, expected) => {
    expect(z.object({ n: PrNumber }).parse({ n: input }).n).toBe(expected);
  });

  test.each([
    ['abc', "Field 'n' must be a number or a numeric string."],
    ['12a', "Field 'n' must be a number or a numeric string."],
    [-1, "Field 'n' must be at least 1."],
    [0, "Field 'n' must be at least 1."],
    [1.5, "Field 'n' must be an integer."],
    [5_000_000_000, "Field 'n' must be at most 4294967295."],
    [null, "Field 'n' must be a number or a numeric string."],
  ])('rejects %p', (input, message) => {
    expect(firstMessage(z.object({ n: PrNumber }), { n: input })).toBe(message);
  });

  test('looseEnum accepts upper case and answers lower case', () => {
    expect(looseEnum(['single', 'parallel']).parse('PARALLEL')).toBe('parallel');
  });
});

describe('names that reach git are refused at the edge', () => {
  const body = (repo: object, targetBranch = 'main') => ({
    repo: { host: 'github.com', owner: 'acme', name: 'app', ...repo },
    targetBranch,
  });
  test.each([
    [
      'option-like owner',
      body({ owner: '--upload-pack=touch /tmp/x' }),
      'Field \'repo.owner\' has a segment starting with "-".',
    ],
    ['path traversal in owner', body({ owner: '../x' }), 'Field \'repo.owner\' has a "." or ".." segment.'],
    [
      'space in name',
      body({ name: 'a b' }),
      'Field \'repo.name\' may only contain letters, digits, ".", "_" and "-".',
    ],
    ['slash in name', body({ name: 'a/b' }), 'Field \'repo.name\' must not contain "/".'],
    ['option-like branch', body({}, '--force'), 'Field \'targetBranch\' must not start with "-".'],
    [
      'branch with space',
      body({}, 'a b'),
      "Field 'targetBranch' must not contain spaces or control characters.",
    ],
    ['branch with ..', body({}, 'x/../y'), 'Field \'targetBranch\' must not contain "..".'],
    [
      'ref-like branch',
      body({}, 'refs/heads/x'),
      "Field 'targetBranch' must not be HEAD or start with refs/.",
    ],
  ])('%s', (_name, input, message) => {
    expect(firstMessage(QueueRequest, input)).toBe(message);
  });

  test('GitLab subgroups and dotted names are accepted', () => {
    expect(
      QueueRequest.safeParse(body({ owner: 'group/sub.group', name: '.github' }, 'release/1.x')).success,
    ).toBe(true);
  });
});
