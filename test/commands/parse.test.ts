// The slash-command parser as a table: what counts as a command and what never does.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/commands/parse.ts';

const P = '/arbiter';
type Row = [name: string, body: string, expected: { verb: string; args: string; line?: string } | null];

const table: Row[] = [
  ['bare verb', '/arbiter promote', { verb: 'promote', args: '', line: '/arbiter promote' }],
  ['verb after text on earlier lines', 'Looks good to me.\n\n/arbiter promote\nthanks', { verb: 'promote', args: '' }],
  ['up to three leading spaces', '   /arbiter status', { verb: 'status', args: '', line: '/arbiter status' }],
  ['four leading spaces is an indented code block', '    /arbiter promote', null],
  ['a leading tab is an indented code block', '\t/arbiter promote', null],
  ['indented block after a blank line', 'Run this:\n\n    /arbiter promote\n', null],
  ['upper-case prefix and verb', '/ARBITER PrOmOtE', { verb: 'promote', args: '' }],
  [
    'trailing text is the args',
    '/arbiter reject  misses the calendar view  ',
    { verb: 'reject', args: 'misses the calendar view', line: '/arbiter reject  misses the calendar view' },
  ],
  ['args keep their case', '/arbiter reject Breaks IE11', { verb: 'reject', args: 'Breaks IE11' }],
  ['tab between verb and args', '/arbiter explore\t3', { verb: 'explore', args: '3' }],
  ['CRLF line endings', 'hi\r\n/arbiter recheck\r\nbye', { verb: 'recheck', args: '', line: '/arbiter recheck' }],
  ['prefix alone', '/arbiter', { verb: '', args: '' }],
  ['prefix alone with trailing spaces', '/arbiter   ', { verb: '', args: '' }],
  ['unknown verb is still a command', '/arbiter frobnicate now', { verb: 'frobnicate', args: 'now' }],
  ['longer word is not the prefix', '/arbiterx promote', null],
  ['prefix glued to punctuation is not the prefix', '/arbiter:promote', null],
  ['prefix mid-line does nothing', 'please /arbiter promote', null],
  ['quoted line does nothing', '> /arbiter promote', null],
  ['nested quote does nothing', '> > /arbiter promote', null],
  ['quoted then real: the real one counts', '> /arbiter promote\n\n/arbiter status', { verb: 'status', args: '' }],
  [
    'two commands: the first counts',
    '/arbiter reject too slow\n/arbiter promote',
    { verb: 'reject', args: 'too slow' },
  ],
  ['backtick fence', '```\n/arbiter promote\n```', null],
  ['tilde fence', '~~~\n/arbiter promote\n~~~', null],
  ['fence with info string', '```sh\n/arbiter promote\n```', null],
  ['longer fence needs a long enough close', '````\n```\n/arbiter promote\n````', null],
  ['tilde fence is not closed by backticks', '~~~\n```\n/arbiter promote\n~~~', null],
  ['command after a closed fence counts', '```\n/arbiter promote\n```\n/arbiter status', { verb: 'status', args: '' }],
  ['command after a closed tilde fence counts', '~~~~\nx\n~~~~~\n/arbiter cancel', { verb: 'cancel', args: '' }],
  ['unclosed fence hides the rest', '```\nno end\n/arbiter promote', null],
  ['indented fence opener (3 spaces)', '   ```\n/arbiter promote\n   ```', null],
  ['inline code with backticks is no fence', '```a``` then\n/arbiter status', { verb: 'status', args: '' }],
  ['fence inside a list item', '- ```\n  /arbiter promote\n  ```\n', null],
  ['list item ends its fence when the text dedents', '- ```\n  code\n/arbiter status', { verb: 'status', args: '' }],
  ['HTML comment hides a command', '<!--\n/arbiter promote\n-->', null],
  ['one-line HTML comment hides nothing after it', '<!-- note -->\n/arbiter status', { verb: 'status', args: '' }],
  ['command after an HTML comment block counts', '<!--\nx\n-->\n/arbiter status', { verb: 'status', args: '' }],
  ['empty body', '', null],
  ['no command', 'LGTM, ship it', null],
];

describe('parseCommand', () => {
  it.each(table)('%s', (_name, body, expected) => {
    const got = parseCommand(body, P);
    if (expected === null) {
      expect(got).toBeNull();
      return;
    }
    expect(got).not.toBeNull();
    expect(got?.verb).toBe(expected.verb);
    expect(got?.args).toBe(expected.args);
    if (expected.line !== undefined) expect(got?.line).toBe(expected.line);
  });

  it('uses the configured prefix, not the default', () => {
    expect(parseCommand('/bot promote', '/bot')).toMatchObject({ verb: 'promote' });
    expect(parseCommand('/arbiter promote', '/bot')).toBeNull();
    expect(parseCommand('/bots promote', '/bot')).toBeNull();
    expect(parseCommand('/My-Bot rank', '/my-bot')).toMatchObject({ verb: 'rank' });
  });

  it('treats regex characters in the prefix literally', () => {
    expect(parseCommand('/a.b promote', '/a.b')).toMatchObject({ verb: 'promote' });
    expect(parseCommand('/axb promote', '/a.b')).toBeNull();
  });
});

describe('parseCommand on a 1 MB comment', () => {
  const MB = 1024 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(MB / unit.length));
  const cases: [string, string, string | null][] = [
    ['one long line of spaces then the prefix', `${' '.repeat(MB)}/arbiter promote`, null],
    ['a long unclosed fence line', `\`\`\`${'`'.repeat(MB)}\n/arbiter promote`, null],
    ['many quoted commands, then a real one', `${fill('> /arbiter promote\n')}/arbiter status`, 'status'],
    ['many short fences, then a real one', `${fill('```\n/arbiter promote\n```\n')}/arbiter rank`, 'rank'],
    ['the prefix repeated on one line', `/arbiter reject ${fill('/arbiter ')}`, 'reject'],
    ['many near-miss prefixes', fill('/arbiterx\n'), null],
    ['an HTML comment that never closes', `<!--${'-'.repeat(MB)}\n/arbiter promote`, null],
  ];
  it.each(cases)('%s', (_name, body, verb) => {
    expect(body.length).toBeGreaterThanOrEqual(MB);
    const got = parseCommand(body, P);
    expect(got?.verb ?? null).toBe(verb);
  });

  it('keeps a 1 MB reason as the args', () => {
    const reason = 'x'.repeat(MB);
    expect(parseCommand(`/arbiter reject ${reason}`, P)?.args).toBe(reason);
  });
});
