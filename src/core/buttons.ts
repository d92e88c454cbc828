// The action buttons on `Arbiter / selection`. GitHub allows at most three, with label ≤ 20,
// description ≤ 40 and identifier ≤ 20 characters. Which verb each one runs is src/commands/buttons.ts.
import type { CheckRunButton } from './check-run.ts';

export const SELECTION_BUTTONS: readonly CheckRunButton[] = [
  { label: 'Promote', identifier: 'promote', description: 'Ship this candidate (write access)' },
  { label: 'Re-run acceptance', identifier: 'recheck', description: 'Check the criteria again on this head' },
  { label: 'Re-rank', identifier: 'rerank', description: 'Rank the siblings again' },
];
