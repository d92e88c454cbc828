// `admit`: a maintainer vouches for a linked pull request whose author has no write access (a
// stranger's or a fork's), so it becomes a candidate and a sibling like any other.
import type { VerbModule } from '../types.ts';

export const admitVerb: VerbModule = {
  name: 'admit',
  pattern: /^$/,
  help: {
    usage: 'admit',
    description:
      "Admit this pull request as a candidate although its author has no write access here (a fork's or a stranger's): Arbiter then compares and may ship its code.",
    who: 'write, maintain or admin',
    example: 'admit',
  },
  permission: 'write',
  where: 'anywhere',
  changesState: true,
  run: (t, _args, services) => services.admit(t),
};
