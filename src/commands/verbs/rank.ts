// `rank`: rank the siblings again from the recorded evidence (the `Re-rank` button too).
import type { VerbModule } from '../types.ts';

export const rankVerb: VerbModule = {
  name: 'rank',
  aliases: ['rerank', 're-rank'],
  help: {
    usage: 'rank',
    description: 'Rank the sibling candidates again from their recorded evidence.',
    who: 'write, maintain or admin',
    example: 'rank',
  },
  permission: 'write',
  where: 'either',
  changesState: true,
  run: (t, _args, services) => services.rank(t),
};
