// `reject REASON`: a person rejects this candidate; the reason is required (it can start a repair).
import type { VerbModule } from '../types.ts';

export const rejectVerb: VerbModule = {
  name: 'reject',
  pattern: /\S/,
  help: {
    usage: 'reject REASON',
    arguments: 'REASON is any text: what the candidate misses',
    description: 'Reject this candidate with a reason (required); a gated winner may get one repair attempt.',
    who: 'write, maintain or admin',
    example: 'reject the calendar view is missing',
  },
  permission: 'write',
  where: 'candidate',
  changesState: true,
  run: (t, args, services) => services.reject(t, args.trim()),
};
