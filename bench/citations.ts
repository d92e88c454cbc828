// `npm run bench -- --only=citations`: the citation rule over real source files of installed
// packages (code nobody here wrote). Every whole line of 8+ non-whitespace characters that occurs
// once in its file must verify; a fixed list of meaningless quotes must not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyCitation, type CitationFailure } from '../src/acceptance/citations.ts';

/** Files of installed dependencies, by package and path inside it: JS, type declarations, CSS, HTML. */
export const CORPUS: { pkg: string; files: string[] }[] = [
  {
    pkg: 'probot',
    files: [
      'lib/context.js',
      'lib/context.d.ts',
      'lib/create-probot.js',
      'lib/manifest-creation.js',
      'lib/probot.js',
      'lib/run.js',
      'lib/server/server.js',
      'lib/apps/setup.js',
      'lib/views/setup.js',
      'lib/views/probot.js',
      'lib/types.d.ts',
      'static/primer.css',
    ],
  },
  {
    pkg: 'pg-boss',
    files: [
      'src/attorney.js',
      'src/boss.js',
      'src/contractor.js',
      'src/db.js',
      'src/manager.js',
      'src/plans.js',
      'src/timekeeper.js',
      'src/tools.js',
    ],
  },
  {
    pkg: 'yaml',
    files: [
      'dist/compose/composer.js',
      'dist/compose/resolve-block-scalar.js',
      'dist/compose/resolve-flow-scalar.js',
      'dist/doc/Document.js',
      'dist/doc/Document.d.ts',
      'dist/errors.js',
      'dist/parse/lexer.js',
      'dist/stringify/stringifyString.js',
    ],
  },
  {
    pkg: 'yaml',
    files: [
      'dist/parse/parser.js',
      'dist/parse/cst-visit.js',
      'dist/stringify/stringify.js',
      'dist/stringify/foldFlowLines.js',
    ],
  },
  { pkg: '@octokit/rest', files: ['dist-src/index.js', 'dist-types/index.d.ts'] },
  { pkg: 'pino', files: ['index.html'] },
  { pkg: 'tslib', files: ['tslib.html', 'tslib.es6.html'] },
];

/** Quotes that say nothing about the work; each is placed once in a file and must be refused. */
export const TRIVIAL_QUOTES = [
  '}',
  '};',
  '});',
  ')',
  ']',
  '{',
  'return;',
  'return',
  'break;',
  'continue;',
  'else {',
  '} else {',
  'try {',
  'true',
  'false',
  'null',
  'undefined',
  '0',
  '1',
  "''",
  '""',
  'export',
  'import',
  'const',
  'let',
  'async',
  'await',
  'this',
  'new',
  'function',
  '</div>',
  '<div>',
  '</li>',
  '</ul>',
  '<br>',
  '</p>',
  '</span>',
  '</body>',
  '</html>',
  '<body>',
  '*/',
  '/*',
  '//',
  '#',
  '---',
  ';',
  ',',
  'i++',
  'x = 1',
  'fi',
  'end',
  'pass',
  'done',
  'self',
  'def',
  'if (a)',
  'a = b;',
  "'-'",
  '42,',
  'default:',
];

const NON_WS_MIN = 8;
/** A line that is plainly a comment in itself: refusing it as text about the work is right, so it is not in the corpus. */
const COMMENT_LINE = /^\s*(\/\/|\/\*|\*|#|<!--|-->|"""|''')/;
const BEHAVIOUR = 'The feature works as the request describes';

/** Naive and independent of the rule: the offset lies after a block-comment opener not yet closed. */
const insideBlockComment = (text: string, at: number): boolean => {
  const open = Math.max(text.lastIndexOf('/*', at), text.lastIndexOf('<!--', at));
  const close = Math.max(text.lastIndexOf('*/', at), text.lastIndexOf('-->', at));
  return open > close;
};

export interface CitationBench {
  files: number;
  uniqueLines: number;
  falseRejects: number;
  reasons: Partial<Record<CitationFailure, number>>;
  examples: string[];
  trivialAccepted: number;
  trivialTotal: number;
  trivialExamples: string[];
}

const norm = (t: string): string => t.replace(/\s+/g, ' ').trim();

function readCorpus(): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const { pkg, files } of CORPUS) {
    const root = fileURLToPath(new URL(`../node_modules/${pkg}/`, import.meta.url));
    for (const f of files) {
      try {
        out.push({ path: `${pkg}/${f}`, text: readFileSync(join(root, f), 'utf8') });
      } catch {
        // a package not installed, or a file a newer version moved: left out (the count of files says so)
      }
    }
  }
  return out;
}

/** Runs the rule over the corpus and the trivial list. Pure apart from reading the corpus files. */
export function benchCitations(): CitationBench {
  const corpus = readCorpus();
  let uniqueLines = 0;
  let falseRejects = 0;
  const reasons: Partial<Record<CitationFailure, number>> = {};
  const examples: string[] = [];
  for (const file of corpus) {
    const material = { files: [file], patch: '' };
    const lines = file.text.split('\n');
    const counts = new Map<string, number>();
    for (const l of lines) counts.set(norm(l), (counts.get(norm(l)) ?? 0) + 1);
    let offset = 0;
    for (const line of lines) {
      const at = offset;
      offset += line.length + 1;
      const n = norm(line);
      if (n.replace(/ /g, '').length < NON_WS_MIN || counts.get(n) !== 1) continue;
      if (COMMENT_LINE.test(line) || insideBlockComment(file.text, at)) continue;
      uniqueLines += 1;
      const got = verifyCitation({ path: file.path, quote: line }, material, { criterion: BEHAVIOUR });
      if (got.ok) continue;
      falseRejects += 1;
      reasons[got.reason] = (reasons[got.reason] ?? 0) + 1;
      if (process.env.SHOW_ALL || examples.length < 10)
        examples.push(`${file.path}: ${got.reason}: ${n.slice(0, 100)}`);
    }
  }
  let trivialAccepted = 0;
  const trivialExamples: string[] = [];
  for (const quote of TRIVIAL_QUOTES) {
    const text = `export function handle(request) {\n  const answer = compute(request.body);\n  ${quote}\n  send(answer);\n`;
    if (
      verifyCitation({ path: 'src/handler.js', quote }, { files: [{ path: 'src/handler.js', text }], patch: '' }).ok
    ) {
      trivialAccepted += 1;
      trivialExamples.push(quote);
    }
  }
  return {
    files: corpus.length,
    uniqueLines,
    falseRejects,
    reasons,
    examples,
    trivialAccepted,
    trivialTotal: TRIVIAL_QUOTES.length,
    trivialExamples,
  };
}

/** `citation corpus: N unique lines, false rejects R (P %); trivial accepted T of M` */
export const citationCorpusLine = (r: CitationBench): string =>
  `citation corpus: ${r.uniqueLines} unique lines, false rejects ${r.falseRejects} (${r.uniqueLines === 0 ? '0.00' : ((100 * r.falseRejects) / r.uniqueLines).toFixed(2)} %); ` +
  `trivial accepted ${r.trivialAccepted} of ${r.trivialTotal}`;
