// The action buttons on `Arbiter / selection` and the verb each one runs. GitHub allows at most
// three, with label ≤ 20, description ≤ 40 and identifier ≤ 20 characters.
export interface CheckRunButton {
  label: string;
  identifier: string;
  description: string;
}

export const SELECTION_BUTTONS: readonly CheckRunButton[] = [
  { label: 'Promote', identifier: 'promote', description: 'Ship this candidate (write access)' },
  { label: 'Re-run acceptance', identifier: 'recheck', description: 'Check the criteria again on this head' },
  { label: 'Re-rank', identifier: 'rerank', description: 'Rank the siblings again' },
];

/** Button identifier → verb name; the verb then goes through the same rules as a comment. */
const BUTTON_VERBS: Readonly<Record<string, string>> = {
  promote: 'promote',
  recheck: 'recheck',
  rerank: 'rank',
};

export const verbForButton = (identifier: string): string | null =>
  Object.hasOwn(BUTTON_VERBS, identifier) ? BUTTON_VERBS[identifier] : null;
