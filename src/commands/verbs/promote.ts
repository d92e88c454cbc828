// `promote`: a person ships this candidate (approval gate or override). Its author needs admin.
import type { VerbModule } from '../types.ts';

export const promoteVerb: VerbModule = {
  name: 'promote',
  help: {
    usage: 'promote',
    description:
      'Ship this candidate: mark it ready and merge its head, closing its siblings as stale. On a candidate that lost a comparison, reopen it first: promote brings it back. A candidate a person rejected stays out.',
    who: 'write, maintain or admin; its author only as admin',
    example: 'promote',
  },
  permission: 'write',
  authorNeedsAdmin: true,
  where: 'candidate',
  changesState: true,
  run: (t, _args, services) => services.promote(t),
};
