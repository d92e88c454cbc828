// `cancel`: give up on the Change: every open candidate is closed. Works on the Change or a candidate.
import type { VerbModule } from '../types.ts';

export const cancelVerb: VerbModule = {
  name: 'cancel',
  help: {
    usage: 'cancel',
    description: 'Cancel the Change: close every open candidate and ship none.',
    who: 'write, maintain or admin',
    example: 'cancel',
  },
  permission: 'write',
  where: 'either',
  changesState: true,
  run: (t, _args, services) => services.cancel(t),
};
