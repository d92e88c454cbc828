// The words every view uses for a criterion's result, in one table: the comparison's matrix and
// legend, the acceptance check, the human gate, the loss reasons, the dashboard, and the docs
// (docs/acceptance.md shows this table; test/docs/vocabulary.test.ts holds it to this one).
import type { CriterionStatus } from '../types.ts';

export interface StatusWords {
  icon: string;
  /** The word a person reads: "met", "not met", "unclear", "for a person", "not judged". */
  word: string;
  /** What it means, in one clause. */
  meaning: string;
}

export const STATUS_WORDS: Record<CriterionStatus, StatusWords> = {
  met: { icon: '✅', word: 'met', meaning: 'a quote Arbiter verified in the code shows it, or its check passed' },
  not_met: { icon: '❌', word: 'not met', meaning: 'the change does not do this' },
  unclear: { icon: '❔', word: 'unclear', meaning: 'the evidence does not settle it either way' },
  uncheckable: {
    icon: '⚪',
    word: 'for a person',
    meaning: 'cannot be checked from the code; a person or a check has to look',
  },
  gap: {
    icon: '⚠️',
    word: 'not judged',
    meaning: 'the model failed or its budget ran out; nothing was decided',
  },
};

/** The order the words are listed in. */
export const STATUS_ORDER: CriterionStatus[] = ['met', 'not_met', 'unclear', 'uncheckable', 'gap'];

export const statusWord = (s: CriterionStatus): string => STATUS_WORDS[s].word;

/** "✅ met" */
export const statusLabel = (s: CriterionStatus): string => `${STATUS_WORDS[s].icon} ${STATUS_WORDS[s].word}`;

/** "Not met (the change does not do this)" */
export const statusExplained = (s: CriterionStatus): string => {
  const { word, meaning } = STATUS_WORDS[s];
  return `${word[0].toUpperCase()}${word.slice(1)} (${meaning})`;
};

export const STATUS_ICON: Record<CriterionStatus, string> = {
  met: STATUS_WORDS.met.icon,
  not_met: STATUS_WORDS.not_met.icon,
  unclear: STATUS_WORDS.unclear.icon,
  uncheckable: STATUS_WORDS.uncheckable.icon,
  gap: STATUS_WORDS.gap.icon,
};

/** "✅ met · ❌ not met · ❔ unclear · ⚪ for a person · ⚠️ not judged" */
export const LEGEND = STATUS_ORDER.map(statusLabel).join(' · ');

/** "3 not judged", "1 for a person": a count of criteria with one result. */
export const countWord = (n: number, s: CriterionStatus): string => `${n} ${STATUS_WORDS[s].word}`;
