// The lookup table of verbs: each verb module registers itself here once, by name and aliases.
import type { VerbModule } from './types.ts';
import { makeHelpVerb } from './verbs/help.ts';
import { statusVerb } from './verbs/status.ts';
import { rankVerb } from './verbs/rank.ts';
import { recheckVerb } from './verbs/recheck.ts';
import { promoteVerb } from './verbs/promote.ts';
import { rejectVerb } from './verbs/reject.ts';
import { cancelVerb } from './verbs/cancel.ts';
import { exploreVerb } from './verbs/explore.ts';
import { admitVerb } from './verbs/admit.ts';
import { trackVerb } from './verbs/track.ts';
import { linkVerb } from './verbs/link.ts';

export const VERBS: readonly VerbModule[] = [
  makeHelpVerb(() => VERBS),
  statusVerb,
  rankVerb,
  recheckVerb,
  promoteVerb,
  rejectVerb,
  cancelVerb,
  exploreVerb,
  admitVerb,
  trackVerb,
  linkVerb,
];

const BY_NAME: ReadonlyMap<string, VerbModule> = new Map(
  VERBS.flatMap((v) => [v.name, ...(v.aliases ?? [])].map((key) => [key.toLowerCase(), v] as const)),
);

/** The verb registered under `name` or one of its aliases (case-insensitive); null when unknown. */
export const findVerb = (name: string): VerbModule | null => BY_NAME.get(name.toLowerCase()) ?? null;
