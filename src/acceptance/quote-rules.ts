// The word-level rules of citation checking: what makes a quote trivial, when a quote describes
// the work instead of doing it, and which criteria ask for a removal or are about documentation. Pure.
import type { QuoteParts } from './comments.ts';

/** Keywords and literals of common languages: never a name of the work. */
const KEYWORDS = new Set(
  [
    // JavaScript / TypeScript
    'as async await break case catch class const continue debugger default delete do else enum export extends',
    'false finally for from function get if implements import in instanceof interface let new null of package',
    'private protected public readonly return set static super switch this throw true try type typeof undefined',
    'var void while with yield declare namespace module keyof satisfies any unknown never object string number',
    'boolean symbol bigint',
    // Python, Ruby, shell, Go, Rust, C-family
    'def pass none elif lambda not and or is self cls raise except global nonlocal end begin rescue ensure unless',
    'until nil then fi esac done elsif func go defer chan map struct fn mut pub impl use mod match loop crate',
    'int char bool float double long short unsigned signed auto',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Keywords, literals and markup tag names of common languages: a quote made only of these
 * (and punctuation, one-letter names and numbers) says nothing about the work.
 */
const STOP_WORDS = new Set([
  ...KEYWORDS,
  ...[
    'html head body div span ul ol li br hr img script style link meta title section article main nav header',
    'footer table tr td th tbody thead tfoot form input button label template slot em strong code pre',
    'h1 h2 h3 h4 h5 h6',
  ]
    .join(' ')
    .split(' '),
]);

const WORDS = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Identifiers and words of a quote, in order. */
const wordsOf = (quote: string): string[] => quote.match(WORDS) ?? [];

/** A word that carries meaning: not a keyword, literal or tag name, at least 3 characters. */
const isContentWord = (w: string): boolean =>
  w.replace(/^\$+|\$+$/g, '').length >= 3 && !STOP_WORDS.has(w.toLowerCase());

/** Fewer non-whitespace characters than this and a quote is trivial unless it is a unique whole line. */
export const MIN_QUOTE_CHARS = 6;

/**
 * A quote that says nothing on its own: `}`, `return;`, `</div>`, `else {`, a lone keyword or
 * literal. Trivial when it has fewer than MIN_QUOTE_CHARS non-whitespace characters or no word
 * of at least 3 characters that is not a keyword, literal or tag name. Whether a non-trivial
 * quote is specific enough depends on the material (see citations.ts).
 */
export function isTrivialQuote(quote: string): boolean {
  if (quote.replace(/\s+/g, '').length < MIN_QUOTE_CHARS) return true;
  return !wordsOf(quote).some(isContentWord);
}

/** A lone keyword or literal with punctuation: `undefined`, `continue;`, `'-'`, `42,`. Never specific, even as a whole line. */
export function isLoneKeywordOrLiteral(quote: string): boolean {
  const tokens = quote.match(/[A-Za-z_$][A-Za-z0-9_$]*|\d+(?:\.\d+)?|'[^']*'|"[^"]*"|`[^`]*`/g) ?? [];
  if (tokens.length === 0) return true;
  if (tokens.length > 1) return false;
  return !/^[A-Za-z_$]/.test(tokens[0]!) || !isContentWord(tokens[0]!);
}

/** Words a self-describing candidate uses about its own work; never criterion words, and never what rescues a quote. */
const META_WORDS = new Set(
  'met meet meets criterion criteria acceptance implemented implements satisfied satisfies requirement requirements feature features complete completed done todo'
    .split(' ')
    .map((w) => stemWord(w)),
);
const PROSE_STOP = new Set(
  [
    'the and for you your with that this are can not its has have was from into when what which each every all any',
    'but also now will should must able one there their they them then than only more some such these those like via',
    'per over under after before does did been being were who how why where while out off own same other just very',
    'our ours yes let lets get gets got make makes made way ways use uses used using user users',
  ]
    .join(' ')
    .split(' '),
);

/** Light stem of one lower-case word: plurals, -ing, -ed and a final e dropped (`sorted`, `sorting`, `sorts` → `sort`). */
export function stemWord(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(ss|ll)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Content-word stems of a text: camelCase and snake_case split, stop words and words under 3 letters dropped. */
export const stems = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !PROSE_STOP.has(w) && !/^\d+$/.test(w))
    .map(stemWord);

/** Quoted text in a criterion ('Calendar', "No tasks yet", `--dry-run`): the words the work must show, not a restatement. */
const QUOTED = /(^|[\s(:])(['"`“‘])(.+?)(['"`”’])(?=$|[\s.,;:!?)])/g;

/** The criterion's own words, with its quoted text left out. */
const criterionWords = (criterion: string): Set<string> =>
  new Set(stems(criterion.replace(QUOTED, '$1 ')).filter((w) => !META_WORDS.has(w)));

/** Text that claims a criterion is met: "AC1 is met", "feature complete", "criterion 2 done", "requirement satisfied". */
const CLAIM =
  /\bAC\s*-?\d+\b|\b(?:criteri(?:on|a)|requirements?|feature|story|ticket)\s*(?:#?\d+\s*)?(?:(?:is|are|has been|have been|now)\s+)?(?:met|done|complete|completed|implemented|satisfied|fulfilled|passed)\b|\b(?:is|are|now|been)\s+(?:met|implemented|satisfied|fulfilled)\b/i;

/** A restating text holds at least this share of the criterion's own words (and at least two, or all when it has one). */
export const RESTATE_SHARE = 0.5;
/** For a criterion that asks for a message or visible text, the text is the work: only a near-copy of the criterion restates it. */
export const RESTATE_SHARE_OF_TEXT_CRITERION = 0.75;

/**
 * The criterion asks for a message or visible text: something is logged, printed, told, warned,
 * a message, heading, label or title, or an error that names, states or lists something.
 */
const ASKS_FOR_TEXT =
  /\b(?:logs|logged|logging|log (?:line|message|entry)|prints?|printed|warns?|warned|warning|tells?|told|says?|said|reads|messages?|notif(?:y|ies|ied|ication)|alerts?|explains?|explained|headings?|titles?|labels?|captions?|placeholders?|tooltips?|wording|texts?)\b|\berrors?\b[^.]*\b(?:names?|states?|includes?|shows?|mentions?|lists?|quotes?)\b/i;

/** The criterion is about tests: test names and assertions may be the work. */
const ABOUT_TESTS = /\b(?:tests?|tested|specs?|test suite|coverage)\b/i;

/** Calls whose arguments are only output: logs and prints. Their arguments (even `${…}` and `{ event }`) are the message. */
const OUTPUT_CALL =
  /(?:\b(?:console|logger|log|logging|fmt|print|println|printf|puts|echo|warn|info|debug|trace)\b(?:\s*\.\s*#?[A-Za-z_$][\w$]*)*)\s*\(/g;
/** Test words: wrappers, except for a criterion about tests, where the test is the work. */
const TEST_WORDS = new Set(['describe', 'it', 'test', 'expect', 'assert', 'should']);
/** Test declarations: their first argument is a name. */
const TEST_CALL =
  /(?<![.\w$])(?:t\s*\.\s*)?(?:describe|it|test|context|suite)(?:\s*\.\s*(?:only|skip|each))*\s*\((?=\s*['"`])/g;

/**
 * The argument spans `[open, close)` of the calls `call` matches in `source` (the quote with its
 * text), to the closing parenthesis in `code` (where text is blanked, so its parentheses do not count).
 */
function callArguments(code: string, call: RegExp, source = code): [number, number][] {
  const spans: [number, number][] = [];
  for (const m of source.matchAll(call)) {
    // A definition (`get log() {`, `function print(`) is not a call.
    if (/\b(?:get|set|function|def|func|fn)\s+[\w$.]*$/.test(code.slice(0, (m.index ?? 0) + 1))) continue;
    const open = (m.index ?? 0) + m[0].length;
    let depth = 1;
    let k = open;
    for (; k < code.length && depth > 0; k++) {
      if (code[k] === '(') depth++;
      else if (code[k] === ')') depth--;
    }
    spans.push([open, depth === 0 ? k - 1 : code.length]);
  }
  return spans;
}

const blank = (text: string, spans: [number, number][]): string =>
  spans.reduce((t, [a, b]) => t.slice(0, a) + ' '.repeat(Math.max(0, b - a)) + t.slice(b), text);

/** Code words that only carry text: a log, print, assert or test call, a message or note. They do not do the work. */
const WRAPPERS = new Set(
  [
    'console log logger logging info warn warning debug trace print println printf sprintf fmt puts echo',
    'assert expect describe it test should ok equal msg message messages note notes text description desc',
    'comment summary i18n translate',
  ]
    .join(' ')
    .split(' ')
    .map((w) => stemWord(w)),
);

/**
 * Stems of the names in a quote's code that may do the work: identifiers (not keywords, wrappers,
 * or names only bound to a value: `NOTE =`, `text:`), and names in quotes that are compared or
 * matched (`typeof data !== 'function'`, `case 'priority':`).
 */
function codeWords(code: string, testsAreWork = false): Set<string> {
  const out = new Set<string>();
  for (const m of code.matchAll(/(['"`])([^'"`\s]*)\1|[A-Za-z_$][\w$]*/g)) {
    const at = m.index ?? 0;
    const before = code.slice(0, at);
    const after = code.slice(at + m[0].length);
    if (m[1] !== undefined) {
      const compared = /(?:[=!]==?|\bcase|\bin)\s*$/.test(before) || /^\s*(?:[=!]==?|in\b)/.test(after);
      if (compared) for (const w of stems(m[2] ?? '')) out.add(w);
      continue;
    }
    // A name bound to a function (`leftLabel = (n) => …`, `= function`) is code that does something.
    const boundToFunction = /^\s*=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>)/.test(
      after,
    );
    if (
      (KEYWORDS.has(m[0]) && !ACTION_KEYWORDS.has(m[0])) ||
      (!boundToFunction && /^\s*(?::(?!:)|=(?![=>]))/.test(after))
    )
      continue;
    for (const w of stems(m[0]))
      if ((!WRAPPERS.has(w) || (testsAreWork && TEST_WORDS.has(w))) && !META_WORDS.has(w)) out.add(w);
  }
  return out;
}

/** Keywords that are actions a criterion may ask for ("throws", "returns", "deletes"). */
const ACTION_KEYWORDS = new Set(['throw', 'raise', 'return', 'delete', 'yield']);

/** Template slots in a message: `{{name}}`, `{0}`, `%s`, `%d`. They are filled by code, not words of the text. */
const PLACEHOLDER = /\{\{[^}]*\}\}|\{\w*\}|%[sdifjoO%]/g;

/** The criterion's quoted text, whitespace-normalised (matched case-insensitively). */
const quotedTexts = (criterion: string): string[] =>
  [...criterion.matchAll(QUOTED)].map((m) => (m[3] ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean);

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A quote that describes the work instead of doing it. Decided from the quote's parts (its code,
 * and its text: string literals, markup text, YAML values), not from the word share of the line.
 * Code words are identifiers other than keywords, log/print/assert/test wrappers and names only
 * bound to the text (`NOTE =`, `text:`); the arguments of log and print calls are message, not
 * code, and the `${…}` slots of a text are part of it: they never rescue a restating text.
 * - Text that claims a criterion is met ("AC1 is met", "feature complete") describes, unless the
 *   code shares a word with the criterion.
 * - Text that restates the criterion describes, unless the code shares a word with it. It restates
 *   when it holds at least half of the criterion's own words (at least two); the criterion's quoted
 *   text is left out of both (`'Calendar'` in "shows the heading 'Calendar'" is what the page must
 *   show). For a criterion that asks for a message or visible text (logged, told, a heading, a
 *   label…) only a near-copy restates it (three quarters of its words).
 * - For a criterion that does not ask for text, a quote with no code word describes when it is a
 *   log, print or test call (whatever its words), or text sharing a word with the criterion: a log
 *   line, a constant, a test name or a table row's text does nothing.
 * `console.info('feature complete: the home page shows a calendar')` and `{ id: 'calendar', done:
 * true, text: '<criterion>' }` describe; `list.sort(byPriority)`, `return task.dueDate;` and
 * `assert(Array.isArray(jobs), 'jobs argument should be an array')` do the work.
 */
export function selfDescribes(parts: QuoteParts, criterion: string): boolean {
  const want = criterionWords(criterion);
  const asksForText = ASKS_FOR_TEXT.test(criterion.replace(QUOTED, '$1 ')) || quotedTexts(criterion).length > 0;
  let text = parts.text.replace(PLACEHOLDER, ' ').replace(/\s+/g, ' ');
  for (const q of quotedTexts(criterion)) text = text.replace(new RegExp(escapeRegExp(q), 'gi'), ' ');
  const said = new Set(stems(text));
  const shared = [...want].filter((w) => said.has(w)).length;
  const merged = [...parts.code].map((c, i) => (c === ' ' ? (parts.slots[i] ?? ' ') : c)).join('');
  const aboutTests = ABOUT_TESTS.test(criterion);
  const source = [...merged].map((c, i) => (c === ' ' ? (parts.text[i] ?? ' ') : c)).join('');
  const spans = [
    ...callArguments(merged, OUTPUT_CALL),
    ...(aboutTests ? [] : callArguments(merged, TEST_CALL, source)),
  ];
  const doing = codeWords(blank(parts.code, spans), aboutTests);
  const filled = codeWords(blank(parts.slots, spans));
  const codeShares = [...doing].some((w) => want.has(w));
  if (CLAIM.test(parts.text)) return !codeShares;
  const share = asksForText ? RESTATE_SHARE_OF_TEXT_CRITERION : RESTATE_SHARE;
  if (want.size > 0 && shared >= Math.min(2, want.size) && shared / want.size >= share) return !codeShares;
  if (asksForText || doing.size > 0 || filled.size > 0) return false;
  // Nothing but text, or a log, print or test call: it does nothing the criterion asks for.
  return shared >= 1 || spans.length > 0;
}

// "Drop files onto the board" and "Delete button…" name features, not removals.
const REMOVAL_VERB =
  '(?:remove|delete(?! (?:button|key|icon|link|action|menu))|drop(?!.*\\b(?:onto|into|on to)\\b)|eliminate|strip(?: out)?|get rid of|deprecate)';
const REMOVAL_PATTERNS = [
  // An instruction: "Remove the banner", "Drop support for Node 16".
  new RegExp(`^\\s*(?:please\\s+)?${REMOVAL_VERB}\\b`, 'i'),
  // Something that stops: "The banner no longer shows", "no more tracking".
  /\bno\s+(?:longer|more)\b/i,
  // A statement that it went: "the legacy export is removed", "has been dropped" (not "can be removed").
  /\b(?<!can |could |may |might |to |will |able to )(?:is|are|be|been|gets?|got)\s+(?:removed|dropped|gone|eliminated|deleted from the (?:code|codebase|repository|project))\b/i,
];

/**
 * The criterion asks for something to go away: it opens with an instruction to remove, delete or
 * drop, says "no longer" / "no more", or says that something is (or has been) removed or dropped.
 * A criterion that asks for a feature that deletes ("A card can be deleted") is not a removal.
 */
export const asksForRemoval = (criterionText: string): boolean => REMOVAL_PATTERNS.some((p) => p.test(criterionText));

const DOCUMENTATION =
  /\b(readme|docs?|documentation|documented|documents?|changelog|change log|release notes|jsdoc|docstrings?|code comments?|contributing|license|licence|manual|man page|usage notes)\b/i;

/** The criterion is about documentation (it names README, docs, a changelog…): prose and comments may verify it. */
export const isDocumentationCriterion = (criterionText: string): boolean => DOCUMENTATION.test(criterionText);
