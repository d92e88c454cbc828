// `npm run bench -- --only=citations`, second half: the citation rule over bench/citation-pairs.json,
// criterion/quote pairs drawn from installed packages (and the stories of issue 24), each labelled
// "verify" or "self-description" before the rule was written. Prints the false-reject rate (a pair
// that should verify is refused) and the false-accept rate (a self-description verifies).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { verifyCitation, type CitationFailure } from '../src/acceptance/citations.ts';
import { isDocumentationCriterion } from '../src/acceptance/quote-rules.ts';

const Pair = z.object({
  pkg: z.string().optional(),
  file: z.string().optional(),
  citedAs: z.string().optional(),
  line: z.number().int().optional(),
  written: z.literal(true).optional(),
  /** 2, 3: written after the rule, labelled before it was run on them (held out; see the file's `about`). */
  batch: z.union([z.literal(2), z.literal(3)]).optional(),
  path: z.string().optional(),
  text: z.string().optional(),
  form: z.string(),
  expect: z.enum(['verify', 'self-description']),
  criterion: z.string().min(1),
  quote: z.string().min(1),
});
export type CitationPair = z.infer<typeof Pair>;

const PAIRS_FILE = fileURLToPath(new URL('./citation-pairs.json', import.meta.url));

/** The labelled pairs. Throws on a malformed file (a bench on a broken corpus measures nothing). */
export function loadCitationPairs(file = PAIRS_FILE): CitationPair[] {
  return z.object({ about: z.string(), pairs: z.array(Pair) }).parse(JSON.parse(readFileSync(file, 'utf8'))).pairs;
}

/** The material of one pair: the installed package file (cited as `citedAs` when given), or the written text. */
function materialOf(p: CitationPair): { path: string; text: string } | null {
  if (p.written) return p.path !== undefined && p.text !== undefined ? { path: p.path, text: p.text } : null;
  if (!p.pkg || !p.file) return null;
  try {
    const text = readFileSync(fileURLToPath(new URL(`../node_modules/${p.pkg}/${p.file}`, import.meta.url)), 'utf8');
    return { path: p.citedAs ?? `${p.pkg}/${p.file}`, text };
  } catch {
    return null; // a package not installed, or a file a newer version moved: counted as missing
  }
}

export interface PairsBench {
  pairs: number;
  missing: number;
  shouldVerify: number;
  falseRejects: number;
  selfDescriptions: number;
  falseAccepts: number;
  /** Refusals of pairs that should verify: `form path: reason: quote`. */
  rejectExamples: string[];
  /** Self-descriptions that verified. */
  acceptExamples: string[];
}

/** Judges every pair the way the acceptance check does (run.ts): criterion text, prose allowed for documentation criteria. */
export function benchCitationPairs(pairs: CitationPair[] = loadCitationPairs()): PairsBench {
  const r: PairsBench = {
    pairs: pairs.length,
    missing: 0,
    shouldVerify: 0,
    falseRejects: 0,
    selfDescriptions: 0,
    falseAccepts: 0,
    rejectExamples: [],
    acceptExamples: [],
  };
  for (const p of pairs) {
    const file = materialOf(p);
    if (!file) {
      r.missing += 1;
      continue;
    }
    const got = verifyCitation(
      { path: file.path, quote: p.quote },
      { files: [file], patch: '' },
      {
        criterion: p.criterion,
        allowProse: isDocumentationCriterion(p.criterion),
      },
    );
    const where = `${p.form} ${file.path}`;
    if (p.expect === 'verify') {
      r.shouldVerify += 1;
      if (!got.ok) {
        r.falseRejects += 1;
        r.rejectExamples.push(`${where}: ${(got as { reason: CitationFailure }).reason}: ${p.quote.slice(0, 90)}`);
      }
    } else {
      r.selfDescriptions += 1;
      if (got.ok) {
        r.falseAccepts += 1;
        r.acceptExamples.push(`${where}: ${p.quote.slice(0, 90)} — "${p.criterion}"`);
      }
    }
  }
  return r;
}

const pct = (n: number, of: number): string => (of === 0 ? '0.00' : ((100 * n) / of).toFixed(2));

/** `citation pairs: N (V should verify, S self-descriptions): false rejects R of V (P %), false accepts A of S (Q %)` */
export const citationPairsLine = (r: PairsBench): string =>
  `citation pairs: ${r.pairs - r.missing} (${r.shouldVerify} should verify, ${r.selfDescriptions} self-descriptions): ` +
  `false rejects ${r.falseRejects} of ${r.shouldVerify} (${pct(r.falseRejects, r.shouldVerify)} %), ` +
  `false accepts ${r.falseAccepts} of ${r.selfDescriptions} (${pct(r.falseAccepts, r.selfDescriptions)} %)` +
  (r.missing > 0 ? `; ${r.missing} pairs missing their file` : '');
