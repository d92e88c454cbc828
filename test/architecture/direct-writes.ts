// The writes a workflow or handler makes itself instead of through a plan: a call of a GitHub port
// write method (on `gh`, `ctx.gh`, `gh.branches`, …), of a store write (any store method that is
// not a read), or of a write helper the executor and the context export. Read with the TypeScript
// parser; names, not types, decide (the port and the store are always reached by these names).
import ts from 'typescript';

/** The port's writes (src/github/port.ts and config/port.ts). */
export const PORT_WRITES = new Set([
  'addLabels',
  'removeLabel',
  'closePull',
  'closeWithLabels',
  'markReady',
  'merge',
  'enableAutoMerge',
  'updateBranch',
  'requestReviewers',
  'dispatch',
  'react',
  'writeCheckRun',
  'upsertComment',
  'redeliver',
  'rerun',
  'createBranch',
  'deleteBranch',
  'mergeIntoBranch',
  'openDraftPull',
  'open',
  'editBody',
  'createConfigRun',
  'updateConfigRun',
]);

/** A store method is a read when its name says so; every other one writes. */
const STORE_READ =
  /^(get|list|read|current|has|is|known|latest|configProblems|portfolioDispatches|yieldsToLaterDelivery)/;

/** Helpers that write for their caller (the executor's and the context's). */
export const WRITE_HELPERS = new Set(['writeCheck', 'writeReply', 'claim', 'claimOnce']);

const isPort = (e: ts.Expression): boolean =>
  (ts.isIdentifier(e) && e.text === 'gh') ||
  (ts.isPropertyAccessExpression(e) &&
    (e.name.text === 'gh' ||
      (e.name.text === 'branches' && isPort(e.expression)) ||
      (e.name.text === 'ownIssues' && isPort(e.expression)) ||
      (e.name.text === 'portfolio' && isPort(e.expression))));
const isStore = (e: ts.Expression): boolean =>
  (ts.isIdentifier(e) && e.text === 'store') || (ts.isPropertyAccessExpression(e) && e.name.text === 'store');

/** `file:line: call` of each direct write in the file `name` whose text is `text`. */
export function directWrites(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const write =
        (ts.isIdentifier(callee) && WRITE_HELPERS.has(callee.text)) ||
        (ts.isPropertyAccessExpression(callee) &&
          ((isPort(callee.expression) && PORT_WRITES.has(callee.name.text)) ||
            (isStore(callee.expression) && !STORE_READ.test(callee.name.text))));
      if (write) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${name}:${line}: ${callee.getText(source)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
