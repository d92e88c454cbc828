// `explore [N]`: ask for N (1 to 10) candidates with distinct approaches on this Change (portfolio search).
import { MAX_EXPLORE } from '../../core/portfolio.ts';
import type { VerbModule } from '../types.ts';

export { MAX_EXPLORE };

/** The optional N: absent → null; otherwise a whole number from 1 to MAX_EXPLORE. */
const EXPLORE_ARGS = /^(?:[1-9]|10)?$/;

export const exploreVerb: VerbModule = {
  name: 'explore',
  pattern: EXPLORE_ARGS,
  help: {
    usage: `explore [N]`,
    arguments: `N is a whole number from 1 to ${MAX_EXPLORE}`,
    description: `Request N (1 to ${MAX_EXPLORE}) candidates for this Change, each with a distinct configured approach.`,
    who: 'write, maintain or admin',
    example: 'explore 3',
  },
  permission: 'write',
  // On the Change issue, even before any candidate exists: that is when a person explores.
  where: 'issue',
  changesState: true,
  run: (t, args, services) => {
    const text = args.trim();
    return services.explore(t, text === '' ? null : Number.parseInt(text, 10));
  },
};
