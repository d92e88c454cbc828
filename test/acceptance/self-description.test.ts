// Issue 24: a quote verifies a criterion only through what the code does. Text that restates the
// criterion (a log line, a constant, a table row, an i18n value, a test name, an assert message)
// verifies nothing whatever wraps it; identifiers that share the criterion's words are code and count;
// a source file is never prose because of its name or folder.
import { describe, expect, it } from 'vitest';
import { verifyCitation } from '../../src/acceptance/citations.ts';
import { KIND, partsOfQuote, textKinds } from '../../src/acceptance/comments.ts';
import { selfDescribes, stemWord } from '../../src/acceptance/quote-rules.ts';

/** Verifies `quote` as the model would cite it: the file holds the quote on a line of its own, among other code. */
const judge = (path: string, quote: string, criterion: string, text = `${quote}\n`) =>
  verifyCitation({ path, quote }, { files: [{ path, text }], patch: '' }, { criterion });

const CALENDAR = 'The home page shows a calendar';
const PRIORITY = 'The list is sorted by priority';

describe('restated criteria verify nothing, whatever wraps them', () => {
  it.each([
    ['src/app.ts', `console.info('feature complete: ${CALENDAR}');`, CALENDAR],
    ['src/app.ts', `console.log(\`AC1 met: ${CALENDAR.toLowerCase()}\`);`, CALENDAR],
    ['src/status.ts', `{ id: 'calendar', done: true, text: '${CALENDAR}' },`, CALENDAR],
    ['src/notes.ts', 'export const NOTE = "AC1 is met: the list is sorted by priority";', PRIORITY],
    ['src/notes.ts', 'export const NOTE = "AC1 is met";', PRIORITY],
    ['src/calendar.ts', `const calendar = '${CALENDAR}';`, CALENDAR],
    ['src/list.ts', 'logger.info(`tasks sorted by priority: ${tasks.length}`);', 'Tasks are sorted by priority'],
    [
      'src/list.ts',
      'log.info(`Retrying after ${retryAfter} seconds!`);',
      'A request is retried after the rate limit resets',
    ],
    ['test/home.test.ts', "it('shows the calendar', () => {", CALENDAR],
    ['test/list.test.ts', "assert.ok(true, 'the list is sorted by priority');", PRIORITY],
    ['export.py', 'print("feature complete: tasks can be exported as CSV")', 'Tasks can be exported as CSV'],
    ['main.go', 'fmt.Println("AC2 met: tasks can be exported as CSV")', 'Tasks can be exported as CSV'],
    ['locales/en.json', `"home.calendarNote": "${CALENDAR}"`, CALENDAR],
    ['locales/en.yml', `calendar_note: ${CALENDAR}`, CALENDAR],
    ['public/index.html', `<p>Feature complete: ${CALENDAR.toLowerCase()}</p>`, CALENDAR],
    ['src/Home.tsx', `<p>Feature complete: ${CALENDAR.toLowerCase()}</p>`, CALENDAR],
    ['public/index.html', "<h1>The page shows the heading 'Calendar'</h1>", "The page shows the heading 'Calendar'"],
    ['src/rules.js', 'description: "Disallow empty block statements",', 'Empty block statements are disallowed'],
    // A log or print call does nothing a behaviour criterion asks for, whatever its words.
    ['src/app.ts', "console.info('Month view ready');", CALENDAR],
    ['src/app.ts', "console.info('homePageShowsCalendar');", CALENDAR],
    // Prose that starts like a query is still prose.
    ['src/app.ts', "const NOTE = 'Update the list: it is sorted by priority';", PRIORITY],
  ])('%s: %s', (path, quote, criterion) => {
    expect(judge(path, quote, criterion)).toEqual({ ok: false, reason: 'restates-criterion' });
  });
});

describe('code verifies, even when its names share the criterion’s words', () => {
  it.each([
    ['src/list.ts', 'list.sort(byPriority);', PRIORITY],
    ['src/task.ts', 'return task.dueDate;', 'Each task shows its due date'],
    ['src/todo.ts', 'return [...tasks].sort((a, b) => b.priority - a.priority);', 'Tasks are sorted by priority'],
    ['src/Todo.tsx', '<span className="due">{task.dueDate}</span>', 'Each task shows its due date'],
    ['src/notes.js', 'export const sortByPriority = (tasks) => [...tasks].sort(byPriority);', PRIORITY],
    // A name bound to a function whose result carries the words is code (dashboard-two-changes.yml's quote).
    [
      'src/count.ts',
      'export const leftLabel = (n: number): string => `${n} todos left`;',
      'The page shows how many todos are left',
    ],
    ['docs/app.js', 'root.append(monthGrid(month));', 'The home page shows a calendar of the current month'],
    ['src/Toolbar.tsx', "<button onClick={() => setSort('priority')}>Sort by priority</button>", PRIORITY],
    // The code does the check; the message beside it is the error the user sees.
    [
      'src/jobs.js',
      "assert(Array.isArray(jobs), 'jobs argument should be an array')",
      'insert() takes an array of jobs',
    ],
    [
      'src/send.js',
      "assert(typeof data !== 'function', 'send() cannot accept a function as the payload')",
      'Sending a function as a payload is refused',
    ],
    ['src/counter.js', "throw new Error('It is not possible to decrease a counter');", 'Decreasing a counter throws'],
    // A message the criterion asks for is the work; its quoted text is what must be shown.
    ['public/index.html', '<h1>Calendar</h1>', "The page shows the heading 'Calendar'"],
    ['src/rules.js', 'missingSemi: "Missing semicolon.",', "A missing semicolon is reported as 'Missing semicolon.'"],
    [
      'src/setup.js',
      'log.info("Probot has been set up, please restart the server!");',
      'After setup the user is told to restart the server',
    ],
    [
      'src/server.js',
      'log.info(`Listening on http://${host}:${port}`);',
      'On start the server logs the address and port it listens on',
    ],
    // Values built into a message are code doing it.
    [
      'src/en.js',
      'return `Too big: expected ${issue.origin} to be ${issue.maximum}`;',
      'The too-big error names the origin and the maximum',
    ],
    // Names in quotes (token types, routes, keys) are names, not prose.
    ['src/syntax.js', "effects.enter('taskListCheckValueChecked');", 'A task list item marked with x is checked'],
    [
      'src/endpoints.js',
      'addLabels: ["POST /repos/{owner}/{repo}/issues/{issue_number}/labels"],',
      'Labels can be added to an issue',
    ],
    ['flatted.py', 'return isinstance(value, (list, tuple))', 'Lists and tuples both count as arrays'],
    ['flatted.go', 'if tag := field.Tag.Get("json"); tag != "" {', 'Struct fields use their json tag as the name'],
    // A query in a string is code.
    ['src/db.ts', "return db.query('SELECT * FROM tasks ORDER BY priority DESC');", 'Tasks are ordered by priority'],
    // Code beside a log line, a method named log, a regular expression's test(), a local test().
    ['src/app.ts', "renderMonth(root); console.info('Month view ready');", CALENDAR],
    ['src/probot.js', 'get log() {', 'A Probot instance exposes its log'],
    ['src/errors.js', 'if (/[^ ]/.test(lineStr)) {', 'Blank lines are skipped in error excerpts'],
    ['src/lexer.js', 'while (!test(ch)) ch = next();', 'The lexer reads until the test matches'],
  ])('%s: %s', (path, quote, criterion) => {
    expect(judge(path, quote, criterion)).toMatchObject({ ok: true, side: 'head' });
  });

  it('a feature in src/todo.ts verifies, while a TODO file (no code extension) stays prose', () => {
    const code = 'export function sortByPriority(tasks: Task[]): Task[] {\n  return [...tasks].sort(byPriority);\n}\n';
    expect(judge('src/todo.ts', 'return [...tasks].sort(byPriority);', PRIORITY, code)).toMatchObject({ ok: true });
    expect(judge('TODO', 'The list is sorted by priority.', PRIORITY)).toEqual({ ok: false, reason: 'prose-file' });
    expect(judge('docs/notes.md', 'The list is sorted by priority.', PRIORITY)).toEqual({
      ok: false,
      reason: 'prose-file',
    });
  });
});

describe('the parts of a quote', () => {
  const kindsOf = (path: string, text: string, fragment: string): number[] => {
    const at = text.indexOf(fragment);
    return [...new Set(Array.from(textKinds(path, text).slice(at, at + fragment.length)))];
  };
  it.each([
    ['a.ts', "log('Sort by priority');", 'Sort by priority', KIND.text],
    ['a.ts', "enter('taskListCheck');", 'taskListCheck', KIND.name],
    ['a.ts', 'fetch("GET /repos/{owner}/{repo}");', 'GET /repos/{owner}/{repo}', KIND.name],
    ['a.ts', 'log(`sorted ${list.length} tasks`);', 'list.length', KIND.interpolation],
    ['a.html', '<h1 title="Big calendar">Calendar</h1>', 'Calendar<', KIND.text],
    ['a.html', '<h1 title="Big calendar">Calendar</h1>', 'Big calendar', KIND.text],
    ['a.html', '<h1 title="Big calendar">Calendar</h1>', 'h1 title', KIND.code],
    ['a.tsx', '<li className="due">Due soon</li>', 'Due soon', KIND.text],
    ['a.ts', 'const x: Array<string> | undefined = y;', 'undefined', KIND.code],
    ['a.yml', 'id: home\ntitle: The home page\n', 'The home page', KIND.text],
    ['a.yml', 'id: home\ntitle: The home page\n', 'home', KIND.name],
    ['a.py', 'x = 1  # a note', '# a note', KIND.comment],
  ])('%s: %s → %s is kind %s', (path, text, fragment, kind) => {
    const f = fragment.endsWith('<') ? fragment.slice(0, -1) : fragment;
    expect(kindsOf(path, text, f)).toEqual([kind]);
  });

  it('stems fold plurals and tenses', () => {
    expect(['sorted', 'sorting', 'sorts', 'sort'].map(stemWord)).toEqual(['sort', 'sort', 'sort', 'sort']);
    expect(['priorities', 'priority'].map(stemWord)).toEqual(['priority', 'priority']);
    expect(['dates', 'date', 'retried', 'retrying'].map(stemWord)).toEqual(['dat', 'dat', 'retry', 'retry']);
  });

  it('a criterion about tests may be met by a test', () => {
    const quote = "it('sorts the list by priority', () => expect(sortByPriority(list)).toEqual(sorted));";
    expect(selfDescribes(partsOfQuote('list.test.ts', quote), 'A test covers sorting the list by priority')).toBe(
      false,
    );
    expect(selfDescribes(partsOfQuote('list.test.ts', "it('sorts the list by priority', () => {"), PRIORITY)).toBe(
      true,
    );
  });
});
