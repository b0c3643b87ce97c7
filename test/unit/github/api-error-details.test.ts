/**
 * GitHub's 422 puts why in `errors[].message` beside "Validation Failed": the error railyard makes of it
 * (github/app/app-auth.ts, wrap) keeps those words, so a caller can tell "No commits between" or a
 * repository without draft PRs from any other validation failure, and an answer can say which.
 */
import { GitHubAuthError, wrap } from '../../../github/app/app-auth';

const refusal = (data: unknown) => ({ status: 422, response: { data } });

test('a 422 keeps the first three of its errors’ messages, bounded and scrubbed like the reason', () => {
  const err = wrap(
    refusal({
      message: 'Validation Failed',
      errors: [
        {
          resource: 'PullRequest',
          code: 'custom',
          message: 'Draft pull requests are not supported in this repository.',
        },
        { resource: 'PullRequest', code: 'invalid', field: 'head' },
        { message: 'token ghs_abcdefABCDEF0123456789 leaked' },
        { message: 'two' },
        { message: 'three' },
      ],
    }),
    'GitHub POST /repos/{owner}/{repo}/pulls',
  );
  expect(err).toBeInstanceOf(GitHubAuthError);
  expect(err.message).toBe(
    'GitHub POST /repos/{owner}/{repo}/pulls: GitHub answered 422: Validation Failed (Draft pull requests are not supported in this repository.; token [redacted] leaked; two).',
  );
});

test('without messages in its errors the reason is GitHub’s message alone', () => {
  expect(wrap(refusal({ message: 'Validation Failed', errors: [{ code: 'invalid' }] }), 'x').message).toBe(
    'x: GitHub answered 422: Validation Failed.',
  );
  expect(wrap(refusal({ message: 'Not Found' }), 'x').message).toBe('x: GitHub answered 422: Not Found.');
});
