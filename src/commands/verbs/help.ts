// `help`: the table of every registered verb, generated from the registry (help is data).
import type { VerbModule } from '../types.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** The markdown help for `verbs`, with `prefix` written in front of each usage and example. */
export function renderHelp(verbs: readonly VerbModule[], prefix: string): string {
  const rows = verbs.map(
    (v) =>
      `| \`${cell(`${prefix} ${v.help.usage}`)}\` | ${cell(v.help.description)} | ${cell(v.help.who)} | \`${cell(`${prefix} ${v.help.example}`)}\` |`,
  );
  return [
    'Arbiter commands (write one at the start of a line in a comment):',
    '',
    '| command | what it does | who | example |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The help verb reads the registry through `verbs` so the registry can include it. */
export const makeHelpVerb = (verbs: () => readonly VerbModule[]): VerbModule => ({
  name: 'help',
  help: {
    usage: 'help',
    description: 'Show this table of commands.',
    who: 'anyone',
    example: 'help',
  },
  permission: 'anyone',
  where: 'anywhere',
  changesState: false,
  run: async (_t, _args, services) => ({ ok: true, message: renderHelp(verbs(), services.prefix) }),
});
