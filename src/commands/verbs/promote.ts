// `promote`: a person ships this candidate (approval gate or override). Its author needs admin.
import type { VerbModule } from '../types.ts';

export const promoteVerb: VerbModule = {
  name: 'promote',
  help: {
    usage: 'promote',
    description:
      'Ship this candidate: mark it ready and merge its verified head as a decision would (directly, by auto-merge once a required review is in, or through the merge queue), closing its siblings as stale. On a candidate that lost a comparison, reopen it first: promote brings it back (new commits are verified first). A candidate a person rejected stays out.',
    who: 'write, maintain or admin; its author only as admin',
    example: 'promote',
  },
  permission: 'write',
  authorNeedsAdmin: true,
  where: 'candidate',
  changesState: true,
  run: (t, _args, services) => services.promote(t),
};
