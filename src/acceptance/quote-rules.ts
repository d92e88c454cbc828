// The word-level rules of citation checking: what makes a quote trivial, when a quote restates
// its criterion, and which criteria ask for a removal or are about documentation. Pure.

/**
 * Keywords, literals and markup tag names of common languages: a quote made only of these
 * (and punctuation, one-letter names and numbers) says nothing about the work.
 */
const STOP_WORDS = new Set(
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
    // markup
    'html head body div span ul ol li br hr img script style link meta title section article main nav header',
    'footer table tr td th tbody thead tfoot form input button label template slot em strong code pre',
    'h1 h2 h3 h4 h5 h6',
  ]
    .join(' ')
    .split(' '),
);

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

/** Words a self-describing candidate uses about its own work ("AC1 is met", "criterion done"). */
const META_WORDS = new Set([
  'met',
  'meets',
  'criterion',
  'criteria',
  'acceptance',
  'implemented',
  'implements',
  'satisfied',
  'satisfies',
  'done',
  'todo',
  'requirement',
  'feature',
]);
const PROSE_STOP = new Set([
  'the',
  'and',
  'for',
  'you',
  'your',
  'with',
  'that',
  'this',
  'are',
  'can',
  'not',
  'its',
  'has',
  'have',
  'was',
  'from',
  'into',
  'when',
  'what',
  'which',
  'each',
  'every',
  'all',
  'any',
  'but',
  'also',
  'now',
  'will',
  'should',
  'must',
  'able',
  'one',
]);

/** Lower-case word stems: camelCase and snake_case split, a plural `s` and `ing`/`ed`/`es` endings dropped. */
const stems = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !PROSE_STOP.has(w))
    .map((w) => w.replace(/(ing|ed|es|s)$/, '') || w);

/** Share of a quote's words that must come from its criterion (or be self-describing) to restate it. */
export const RESTATE_SHARE = 0.75;
/** A restatement shares at least this many words with the criterion. */
const RESTATE_MIN_SHARED = 3;

/**
 * A quote that restates the criterion instead of doing it: at least three of its distinct words occur in
 * the criterion text, and at least three quarters of its distinct words are criterion words or words about
 * the work itself (`AC1`, met, implemented…). `'Search ignores case'` against "The search ignores
 * upper and lower case" restates it; `todo.toLocaleLowerCase().includes(wanted)` does not.
 */
export function restatesCriterion(quote: string, criterion: string): boolean {
  const want = new Set(stems(criterion));
  const words = [...new Set(stems(quote).filter((w) => !/^ac\d+$/.test(w)))];
  if (words.length === 0) return false;
  const shared = words.filter((w) => want.has(w)).length;
  const meta = words.filter((w) => !want.has(w) && META_WORDS.has(w)).length;
  return shared >= RESTATE_MIN_SHARED && (shared + meta) / words.length >= RESTATE_SHARE;
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
