// Renders docs/commands.md from the verb registry (pure): each command with what it does, who
// may run it, where, an example, and the check-run buttons. A test keeps the page up to date.
import { SELECTION_BUTTONS, verbForButton } from './buttons.ts';
import { VERBS } from './registry.ts';
import type { VerbModule, VerbWhere } from './types.ts';

const DEFAULT_PREFIX = '/arbiter';

const WHERE_WORDS: Record<VerbWhere, string> = {
  candidate: 'on a candidate pull request',
  change: 'on a Change (the issue)',
  either: 'on a candidate pull request or on its Change',
  anywhere: 'on any issue or pull request',
  issue: 'on an issue that is or becomes a Change (it need not have a candidate yet)',
};

function section(v: VerbModule): string {
  const aliases = v.aliases?.length ? `\n- Also: ${v.aliases.map((a) => `\`${DEFAULT_PREFIX} ${a}\``).join(', ')}` : '';
  return [
    `## \`${DEFAULT_PREFIX} ${v.help.usage}\``,
    '',
    v.help.description,
    '',
    ...(v.help.arguments ? [`- Arguments: ${v.help.arguments}`] : []),
    `- Who: ${v.help.who}`,
    `- Where: ${WHERE_WORDS[v.where]}`,
    `- Changes state: ${v.changesState ? 'yes' : 'no'}${aliases}`,
    `- Example: \`${DEFAULT_PREFIX} ${v.help.example}\``,
  ].join('\n');
}

export function renderCommandsDoc(verbs: readonly VerbModule[] = VERBS): string {
  const buttons = SELECTION_BUTTONS.map(
    (b) =>
      `| **${b.label}** | ${b.description} | \`${DEFAULT_PREFIX} ${verbForButton(b.identifier) ?? b.identifier}\` |`,
  );
  return [
    '<!-- Generated from src/commands/registry.ts by `npx tsx scripts/gen-commands-doc.ts`; test/commands/doc.test.ts keeps it up to date. -->',
    '# Commands',
    '',
    `Write a command at the start of a line in a comment (a quoted \`> ${DEFAULT_PREFIX} …\` does nothing).`,
    `The prefix is \`${DEFAULT_PREFIX}\` unless \`commands.prefix\` in \`.github/arbiter.yml\` says otherwise`,
    '([configuration](configuration.md)). Arbiter checks who asked before anything else, and answers a',
    'refused command with the reason, quoting it.',
    '',
    '| command | what it does | who |',
    '| --- | --- | --- |',
    ...verbs.map(
      (v) => `| \`${DEFAULT_PREFIX} ${v.help.usage}\` | ${v.help.description.replace(/\|/g, '\\|')} | ${v.help.who} |`,
    ),
    '',
    ...verbs.flatMap((v) => [section(v), '']),
    '## Buttons',
    '',
    'The `Arbiter / selection` check run of a candidate that waits for a person carries these buttons;',
    'each runs its command, under the same rules as a comment. A finished run has none.',
    '',
    '| button | what it does | same as |',
    '| --- | --- | --- |',
    ...buttons,
    '',
  ].join('\n');
}
