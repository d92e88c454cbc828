// `link #N`: a maintainer links this pull request to the Change #N at once, for an agent whose
// pull request names no issue (Codex cloud, Devin, Cursor) or one linked in the sidebar.
import type { VerbModule } from '../types.ts';

export const linkVerb: VerbModule = {
  name: 'link',
  pattern: /^#?\d+$/,
  help: {
    usage: 'link #N',
    description:
      'Link this pull request to the Change #N now, as a link in the Development sidebar or a `Candidate-for: #N` line would: it becomes a candidate if its author is trusted (a listed agent, or write access) or admitted.',
    who: 'write, maintain or admin',
    example: 'link #42',
  },
  permission: 'write',
  where: 'anywhere',
  changesState: true,
  run: (t, args, services) => services.link(t, Number(args.replace('#', ''))),
};
