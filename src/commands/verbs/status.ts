// `status`: where a candidate or a Change stands (evidence, waiting list, decision). Read-only.
import type { VerbModule } from '../types.ts';

export const statusVerb: VerbModule = {
  name: 'status',
  help: {
    usage: 'status',
    description: 'Show where this candidate or Change stands: evidence, siblings still verifying, the decision.',
    who: 'anyone',
    example: 'status',
  },
  permission: 'anyone',
  where: 'either',
  changesState: false,
  run: (t, _args, services) => services.status(t),
};
