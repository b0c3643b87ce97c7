/**
 * parseComment (github/inbound/pr-commands.ts): which comment bodies carry a merge-queue command,
 * which one, and what an invalid one is told; Markdown that is not text (code, quotes, HTML
 * comments) never commands; at most one command per comment; bounded input.
 */
import {
  ACCEPTED_COMMANDS,
  MAX_COMMENT_LENGTH,
  parseComment,
  quoted,
  type CommentParse,
} from '../../../github/inbound/pr-commands';

const merge = (priority: number | null = null, noBatch = false) => ({
  kind: 'merge' as const,
  priority,
  noBatch,
});
const commandOf = (body: string) => {
  const parsed = parseComment(body);
  return parsed.kind === 'command' ? parsed.command : parsed;
};
const reasonOf = (body: string) => {
  const parsed = parseComment(body);
  if (parsed.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(parsed)}`);
  return parsed.reason;
};

describe('commands', () => {
  test.each([
    ['/trunk merge', merge()],
    ['/trunk cancel', { kind: 'cancel' }],
    ['/railyard merge', merge()],
    ['/railyard cancel', { kind: 'cancel' }],
    ['/TRUNK Merge', merge()],
    ['/trunk merge   ', merge()],
    ['/trunk\tmerge', merge()],
    ['   /trunk merge', merge()],
    ['/trunk merge --no-batch', merge(null, true)],
    ['/trunk merge --NO-BATCH', merge(null, true)],
    ['/trunk merge --priority=urgent', merge(0)],
    ['/trunk merge --priority=high', merge(10)],
    ['/trunk merge --priority=medium', merge(100)],
    ['/trunk merge --priority=low', merge(200)],
    ['/trunk merge --priority=HIGH', merge(10)],
    ['/trunk merge --priority=0', merge(0)],
    ['/trunk merge --priority=255', merge(255)],
    ['/trunk merge --priority=007', merge(7)],
    ['/trunk merge --priority 42', merge(42)],
    ['/trunk merge --priority low --no-batch', merge(200, true)],
    ['/trunk merge --no-batch --priority=urgent', merge(0, true)],
    ['/railyard merge --priority=1 --no-batch', merge(1, true)],
  ])('%j', (body, expected) => {
    expect(commandOf(body)).toEqual(expected);
  });

  test('the command line is quoted back, trimmed', () => {
    expect(parseComment('  /trunk merge --no-batch  \n')).toEqual({
      kind: 'command',
      command: merge(null, true),
      text: '/trunk merge --no-batch',
      ignored: 0,
    });
  });

  test('a command among other lines: text before and after does not matter', () => {
    expect(commandOf('Looks good to me.\n\n/trunk merge\n\nthanks!')).toEqual(merge());
    expect(commandOf('LGTM\r\n/trunk merge --priority=high\r\n')).toEqual(merge(10));
    expect(commandOf('LGTM\r/trunk cancel')).toEqual({ kind: 'cancel' });
  });
});

describe('not commands', () => {
  test.each([
    ['empty', ''],
    ['plain text', 'looks good'],
    ['mid-line', 'please /trunk merge'],
    ['a longer word', '/trunkmerge'],
    ['another prefix', '/trunks merge'],
    ['another bot', '/merge'],
    ['no slash', 'trunk merge'],
    ['inline code', '`/trunk merge`'],
    ['a list item', '- /trunk merge'],
    ['four spaces of indentation (code)', '    /trunk merge'],
    ['a tab of indentation (code)', '\t/trunk merge'],
    ['spaces then a tab (code)', '  \t/trunk merge'],
    ['a quote', '> /trunk merge'],
    ['a quote with indentation', '   > /trunk merge'],
    ['a nested quote', '> > /trunk merge'],
    ['a lazy continuation of a quote', '> someone wrote\n/trunk merge'],
    ['a fenced block', '```\n/trunk merge\n```'],
    ['a fenced block with an info string', '```sh\n/trunk merge\n```'],
    ['a tilde fence', '~~~\n/trunk merge\n~~~'],
    ['an unclosed fence', 'text\n```\n/trunk merge'],
    ['a fence closed only by a longer fence', '````\n```\n/trunk merge\n````'],
    ['a fence not closed by the other character', '```\n~~~\n/trunk merge\n```'],
    ['a fence not closed by a line with text after it', '```\n``` not a close\n/trunk merge\n```'],
    ['an HTML comment block', '<!--\n/trunk merge\n-->'],
    ['an HTML comment opened mid-line', 'note <!-- hidden\n/trunk merge\n-->'],
    ['an HTML comment on the line', '<!-- /trunk merge -->'],
    ['a fence inside a quote, then its content', '> ```\n> /trunk merge\n> ```'],
  ])('%s', (_name, body) => {
    expect(parseComment(body)).toEqual({ kind: 'none' });
  });

  test('a quote ends at a blank line; code ends at its closing fence; an HTML comment at -->', () => {
    expect(commandOf('> quoted\n\n/trunk merge')).toEqual(merge());
    expect(commandOf('```\ncode\n```\n/trunk merge')).toEqual(merge());
    expect(commandOf('~~~~\ncode\n~~~~~\n/trunk cancel')).toEqual({ kind: 'cancel' });
    expect(commandOf('<!--\nhidden\n-->\n/trunk merge')).toEqual(merge());
    expect(commandOf('> quoted\n```\ncode\n```\n/trunk merge')).toEqual(merge());
  });

  test('a line with backticks after a backtick fence is text, not a fence', () => {
    expect(commandOf('``` not `a` fence\n/trunk merge')).toEqual(merge());
  });

  test('an HTML comment after the command is not part of it', () => {
    expect(commandOf('/trunk merge <!-- from the template -->')).toEqual(merge());
    expect(commandOf('/trunk merge --no-batch <!-- note\n/trunk cancel\n-->')).toEqual(merge(null, true));
  });
});

describe('invalid commands are reported with what is wrong', () => {
  test.each([
    ['/trunk', 'it names no command'],
    ['/railyard   ', 'it names no command'],
    ['/trunk please', '`please` is not a command'],
    ['/trunk merge please', '`please` is not a flag of `merge`'],
    ['/trunk merge --force', '`--force` is not a flag of `merge`'],
    ['/trunk merge --no-batch=true', '`--no-batch=true` is not a flag of `merge`'],
    ['/trunk merge --priority', '`--priority` needs a value'],
    ['/trunk merge --priority=', '`--priority` needs a value'],
    ['/trunk merge --priority=asap', '`asap` is not a priority (urgent, high, medium, low or 0 to 255)'],
    ['/trunk merge --priority=256', '`256` is not a priority (urgent, high, medium, low or 0 to 255)'],
    ['/trunk merge --priority=-1', '`-1` is not a priority (urgent, high, medium, low or 0 to 255)'],
    ['/trunk merge --priority=1.5', '`1.5` is not a priority (urgent, high, medium, low or 0 to 255)'],
    [
      '/trunk merge --priority=99999999999999999999',
      '`99999999999999999999` is not a priority (urgent, high, medium, low or 0 to 255)',
    ],
    [
      '/trunk merge --priority --no-batch',
      '`--no-batch` is not a priority (urgent, high, medium, low or 0 to 255)',
    ],
    ['/trunk merge --priority=low --priority=high', '`--priority` is given twice'],
    ['/trunk merge --no-batch --no-batch', '`--no-batch` is given twice'],
    ['/trunk cancel now', '`cancel` takes nothing after it (got `now`)'],
    ['/trunk cancel --no-batch', '`cancel` takes nothing after it (got `--no-batch`)'],
  ])('%j', (body, reason) => {
    expect(reasonOf(body)).toBe(reason);
  });

  test('user text in a reason cannot break out of its code span, and is bounded', () => {
    expect(reasonOf('/trunk merge `@everyone`')).toBe("`'@everyone'` is not a flag of `merge`");
    const long = `/trunk ${'x'.repeat(500)}`;
    const parsed = parseComment(long);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind !== 'invalid') return;
    expect(parsed.reason.length).toBeLessThan(120);
    expect(parsed.text.length).toBeLessThanOrEqual(80);
    expect(quoted('a\nb`c')).toBe("a'b'c");
  });

  test('the accepted forms never start a line (a reply listing them is no command)', () => {
    expect(parseComment(`railyard accepts ${ACCEPTED_COMMANDS}.`)).toEqual({ kind: 'none' });
    expect(ACCEPTED_COMMANDS).toContain('`/trunk merge --priority=<urgent|high|medium|low|0-255>`');
  });
});

describe('at most one command per comment', () => {
  test('the first command line decides; later ones are counted, not acted on', () => {
    expect(parseComment('/trunk merge\n/trunk cancel\n/railyard merge')).toEqual<CommentParse>({
      kind: 'command',
      command: merge(),
      text: '/trunk merge',
      ignored: 2,
    });
    expect(parseComment('/trunk cancel\n/trunk merge')).toMatchObject({
      kind: 'command',
      command: { kind: 'cancel' },
      ignored: 1,
    });
  });

  test('an invalid first command is reported even when a valid one follows', () => {
    expect(parseComment('/trunk merg\n/trunk merge')).toMatchObject({
      kind: 'invalid',
      reason: '`merg` is not a command',
      ignored: 1,
    });
  });

  test('commands in code or quotes do not count as the first', () => {
    expect(parseComment('> /trunk cancel\n\n```\n/trunk cancel\n```\n/trunk merge')).toEqual({
      kind: 'command',
      command: merge(),
      text: '/trunk merge',
      ignored: 0,
    });
  });
});

describe('bounds', () => {
  test('a body at the limit is parsed; one past it is not', () => {
    const command = '/trunk merge\n';
    const atLimit = command + 'x'.repeat(MAX_COMMENT_LENGTH - command.length);
    expect(atLimit).toHaveLength(MAX_COMMENT_LENGTH);
    expect(commandOf(atLimit)).toEqual(merge());
    expect(parseComment(`${atLimit}x`)).toEqual({ kind: 'none' });
  });

  test('pathological bodies at the limit are parsed (the HTML-comment scan is linear, no backtracking regex)', () => {
    const bodies = [
      '<!--'.repeat(MAX_COMMENT_LENGTH / 4),
      '`'.repeat(MAX_COMMENT_LENGTH),
      '/trunk merge '.repeat(5000).slice(0, MAX_COMMENT_LENGTH),
      '/trunk merge\n'.repeat(5000),
      '> '.repeat(MAX_COMMENT_LENGTH / 2),
    ];
    for (const body of bodies) expect(['none', 'command', 'invalid']).toContain(parseComment(body).kind);
    // Many command lines: the first decides, the rest are counted.
    expect(parseComment('/trunk merge\n'.repeat(5000))).toMatchObject({ kind: 'command', ignored: 4999 });
  });
});
