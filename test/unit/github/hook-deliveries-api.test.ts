/**
 * The pure part of the delivery log client (github/app/hook-deliveries-api.ts): only the `cursor` of a
 * `rel="next"` link is taken from GitHub's link header.
 */
import { nextCursor } from '../../../github/app/hook-deliveries-api';

test('nextCursor takes only the cursor of rel="next"', () => {
  expect(
    nextCursor(
      '<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_123>; rel="next", <https://api.github.com/app/hook/deliveries?per_page=100>; rel="first"',
    ),
  ).toBe('v1_123');
  expect(nextCursor('<https://api.github.com/app/hook/deliveries?per_page=2>; rel="first"')).toBeNull();
  expect(nextCursor(undefined)).toBeNull();
  expect(nextCursor('<https://evil.example/x?cursor=a%20b>; rel="next"')).toBeNull();
  expect(nextCursor('<::not a url>; rel="next"')).toBeNull();
  expect(nextCursor(`<https://x/y?cursor=${'a'.repeat(501)}>; rel="next"`)).toBeNull();
});
