// `track`: a maintainer adopts an issue opened by an account without write access, so it becomes
// a Change (as the `trust.changeLabel` label does).
import type { VerbModule } from '../types.ts';

export const trackVerb: VerbModule = {
  name: 'track',
  pattern: /^$/,
  help: {
    usage: 'track',
    description:
      'Adopt this issue as a Change although its author has no write access here: its acceptance criteria count and its linked pull requests can become candidates.',
    who: 'write, maintain or admin',
    example: 'track',
  },
  permission: 'write',
  where: 'anywhere',
  changesState: true,
  run: (t, _args, services) => services.track(t),
};
