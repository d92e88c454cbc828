// A fake CommandServices that records every call as a readable string (`promote #12 by alice`,
// `reply #12: …`, `react +1`), so tests are tables that assert on side effects.
import type {
  CandidateInfo,
  CommandServices,
  CommandTarget,
  Permission,
  VerbResult,
} from '../../src/commands/types.ts';

export interface FakeWorld {
  prefix?: string;
  /** Role per user; unknown users have no access. */
  permissions?: Record<string, Permission>;
  /** Candidate PRs by number. */
  candidates?: Record<number, CandidateInfo>;
  /** Change issue numbers. */
  changes?: number[];
  /** What a state-changing or status call answers; default `{ ok: true, message: '<verb> done' }`. */
  results?: Partial<Record<StateVerb | 'status', VerbResult>>;
}

export type StateVerb = 'rank' | 'recheck' | 'promote' | 'reject' | 'cancel' | 'explore' | 'admit' | 'track' | 'link';
export const STATE_CHANGING: readonly StateVerb[] = [
  'rank',
  'recheck',
  'promote',
  'reject',
  'cancel',
  'explore',
  'admit',
  'track',
  'link',
];

export interface FakeServices extends CommandServices {
  calls: string[];
  /** Calls that change state (a refusal must leave this empty). */
  stateCalls(): string[];
}

export function fakeServices(world: FakeWorld = {}): FakeServices {
  const calls: string[] = [];
  const resultOf = (verb: StateVerb | 'status'): VerbResult =>
    world.results?.[verb] ?? { ok: true, message: `${verb} done` };
  const act =
    (verb: StateVerb | 'status') =>
    async (t: CommandTarget): Promise<VerbResult> => {
      calls.push(`${verb} #${t.issueNumber} by ${t.user}`);
      return resultOf(verb);
    };
  return {
    calls,
    stateCalls: () => calls.filter((c) => STATE_CHANGING.some((v) => c.startsWith(`${v} #`))),
    prefix: world.prefix ?? '/arbiter',
    async permission(user) {
      calls.push(`permission ${user}`);
      return world.permissions?.[user] ?? 'none';
    },
    async candidate(n) {
      calls.push(`candidate #${n}`);
      return world.candidates?.[n] ?? null;
    },
    async isChange(n) {
      calls.push(`isChange #${n}`);
      return (world.changes ?? []).includes(n);
    },
    async changeIssue(n) {
      calls.push(`changeIssue #${n}`);
      return (world.changes ?? []).includes(n);
    },
    status: act('status'),
    rank: act('rank'),
    recheck: act('recheck'),
    promote: act('promote'),
    cancel: act('cancel'),
    admit: act('admit'),
    track: act('track'),
    async reject(t, reason) {
      calls.push(`reject #${t.issueNumber} by ${t.user}: ${reason}`);
      return resultOf('reject');
    },
    async link(t, change) {
      calls.push(`link #${t.issueNumber} by ${t.user}: #${change}`);
      return resultOf('link');
    },
    async explore(t, n) {
      calls.push(`explore #${t.issueNumber} by ${t.user}: ${n ?? 'default'}`);
      return resultOf('explore');
    },
    async reply(t, body) {
      calls.push(`reply #${t.issueNumber}: ${body}`);
    },
    async react(_t, content) {
      calls.push(`react ${content}`);
    },
  };
}

/** A comment target on `issueNumber` by `user`; override any field. */
export const comment = (body: string, over: Partial<CommandTarget> = {}): CommandTarget => ({
  owner: 'acme',
  repo: 'widgets',
  installationId: 7,
  issueNumber: 12,
  isPullRequest: true,
  user: 'alice',
  userIsBot: false,
  commentId: 1001,
  commentBody: body,
  source: 'comment',
  ...over,
});

/** A button click on `issueNumber` by `user`. */
export const click = (over: Partial<CommandTarget> = {}): CommandTarget => ({
  ...comment('', over),
  commentId: null,
  commentBody: null,
  source: 'button',
  ...over,
});
