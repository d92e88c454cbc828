// The verb each `Arbiter / selection` button runs (the buttons themselves: src/core/buttons.ts).
export type { CheckRunButton } from '../core/actions.ts';
export { SELECTION_BUTTONS } from '../core/buttons.ts';

/** Button identifier → verb name; the verb then goes through the same rules as a comment. */
const BUTTON_VERBS: Readonly<Record<string, string>> = {
  promote: 'promote',
  recheck: 'recheck',
  rerank: 'rank',
};

export const verbForButton = (identifier: string): string | null =>
  Object.hasOwn(BUTTON_VERBS, identifier) ? BUTTON_VERBS[identifier] : null;
