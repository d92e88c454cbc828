// `recheck`: run the acceptance check again on this candidate's head (the `Re-run acceptance` button too).
import type { VerbModule } from '../types.ts';

export const recheckVerb: VerbModule = {
  name: 'recheck',
  help: {
    usage: 'recheck',
    description: "Run the acceptance check again on this candidate's head commit.",
    who: 'write, maintain or admin',
    example: 'recheck',
  },
  permission: 'write',
  where: 'candidate',
  changesState: true,
  run: (t, _args, services) => services.recheck(t),
};
