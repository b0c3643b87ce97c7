/** github/presentation/markdown.ts: text from elsewhere made inert for a comment (issue 24). */
import { code, inert, mention, sha, ZWJ } from '../../../github/presentation/markdown';

test('inert breaks mentions, references and autolinks, escapes markup, flattens and bounds', () => {
  const text = inert('@octocat and @acme/team fixed #12 and GH-3, see https://x.example or www.x.example');
  expect(text).toBe(
    `@${ZWJ}octocat and @${ZWJ}acme/team fixed \\#${ZWJ}12 and GH${ZWJ}\\-3, see https:${ZWJ}//x.example or www${ZWJ}.x.example`,
  );
  expect(inert('**bold** _em_ [a](b) ![i](j) <b>x</b> `c` | ~s~ \\')).toBe(
    '\\*\\*bold\\*\\* \\_em\\_ \\[a\\]\\(b\\) \\!\\[i\\]\\(j\\) \\<b\\>x\\</b\\> \\`c\\` \\| \\~s\\~ \\\\',
  );
  expect(inert('one\n\n# two\r\n> three\u202e')).toBe('one \\# two \\> three');
  expect(inert('x'.repeat(500))).toHaveLength(200);
  expect(inert('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
});

test('code keeps an identifier inside its span', () => {
  expect(code('main')).toBe('`main`');
  expect(code('a`b\nc')).toBe("`a'b'c`");
  expect(code('y'.repeat(300), 20)).toBe(`\`${'y'.repeat(19)}…\``);
});

test('sha leaves a commit id bare (GitHub links it) and spans anything else', () => {
  expect(sha('a'.repeat(40))).toBe('a'.repeat(40));
  expect(sha('@evil')).toBe('`@evil`');
});

test('mention only for logins GitHub issues', () => {
  expect(mention('ada')).toBe('@ada');
  expect(mention('railyard[bot]')).toBe('@railyard[bot]');
  expect(mention('acme/admins')).toBeNull();
  expect(mention('a b')).toBeNull();
});
