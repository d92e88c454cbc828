// A composite candidate (DESIGN.md section 6, "Composite candidate"): one draft PR per component,
// in several repositories of one installation, that together are one candidate of a Change. Each
// member names the Change in full (`Candidate-for: owner/repo#42`) and its set
// (`Candidate-set: <name>`, the same on every member); the first member lists every member
// (`Parts: owner/api#7, owner/ui#9`). The lines are read as links are: text in block quotes,
// `<details>`, HTML comments and code never counts. Pure.
import { z } from 'zod';
import { linkableText } from './link.ts';
import { AcceptanceEvidence, RiskPolicy } from './types.ts';

/** A pull request (or issue) of some repository of the installation. */
export interface PullRef {
  /** `owner/name` */
  repo: string;
  number: number;
}

export const PullRefSchema = z.object({ repo: z.string(), number: z.number().int().positive() });

/** `owner/name#N`, as GitHub writes a cross-repository reference. */
export const refText = (ref: PullRef): string => `${ref.repo}#${ref.number}`;

export const sameRef = (a: PullRef, b: PullRef): boolean =>
  a.number === b.number && a.repo.toLowerCase() === b.repo.toLowerCase();

/** What a member's body says about its set. */
export interface SetLines {
  /** The Change, in full (a short `#N` means the member's own repository). */
  change: PullRef;
  /** The set's name. */
  set: string;
  /** The members, in order, when this body lists them (the first member's does). */
  parts: PullRef[] | null;
}

const REF = /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)?#(\d+)$/;
const CANDIDATE_FOR = /^[ \t]*candidate-for:[ \t]*(\S+)[ \t]*$/im;
const CANDIDATE_SET = /^[ \t]*candidate-set:[ \t]*([A-Za-z0-9_.-]{1,64})[ \t]*$/im;
const PARTS = /^[ \t]*parts:[ \t]*(.+)$/im;
/** At most this many members: a set is one candidate, not a portfolio. */
export const MAX_SET_MEMBERS = 10;

/** `owner/name#N` (or `#N`, in `here`), else null. */
export function parseRef(text: string, here: string): PullRef | null {
  const m = REF.exec(text.trim());
  if (!m) return null;
  const number = Number(m[2]);
  return number > 0 ? { repo: m[1] ?? here, number } : null;
}

/**
 * The set lines of a pull request's body in repository `here`, or null when it names no set (an
 * ordinary candidate, or none). A `Parts:` line that does not parse lists nothing.
 */
export function setLines(body: string | null | undefined, here: string): SetLines | null {
  if (!body) return null;
  const text = linkableText(body);
  const set = CANDIDATE_SET.exec(text)?.[1];
  const forText = CANDIDATE_FOR.exec(text)?.[1];
  if (set === undefined || forText === undefined) return null;
  const change = parseRef(forText, here);
  if (!change) return null;
  const partsText = PARTS.exec(text)?.[1];
  let parts: PullRef[] | null = null;
  if (partsText !== undefined) {
    const refs = partsText
      .split(/[\s,]+/)
      .filter((t) => t !== '')
      .map((t) => parseRef(t, here));
    const unique = refs.filter((r, i): r is PullRef => r !== null && refs.findIndex((o) => o && sameRef(o, r)) === i);
    if (refs.every((r) => r !== null) && unique.length >= 1 && unique.length <= MAX_SET_MEMBERS) parts = unique;
  }
  return { change, set, parts };
}

/** Whether a body names a set at all (a `Candidate-set:` line outside quotes and code). */
export const namesSet = (body: string | null | undefined): boolean =>
  Boolean(body && CANDIDATE_SET.test(linkableText(body)));

/**
 * What the risk policy reads of one member at one head, as a single candidate's evidence carries it
 * (changed paths and lines from its patch, its labels), and the policy of the member's own repository
 * (core/plan/set-risk.ts applies the stricter of it and the Change's).
 */
export const MemberChanges = z.object({
  /** `owner/name#N` */
  member: z.string(),
  headSha: z.string(),
  changedPaths: z.array(z.string()),
  changedLines: z.number().int().nonnegative(),
  labels: z.array(z.string()),
  policy: RiskPolicy,
});
export type MemberChanges = z.infer<typeof MemberChanges>;

/** What the store keeps of a set: the members listed by its first member, and its standing. */
export const SetRecord = z.object({
  change: PullRefSchema,
  name: z.string(),
  /** The member whose body lists the parts, and the parts in order (null: not seen yet). */
  first: PullRefSchema.nullable(),
  parts: z.array(PullRefSchema).nullable(),
  /** Members that announced themselves (any order), so a later `Parts:` finds them. */
  seen: z.array(PullRefSchema),
  state: z.enum(['composing', 'not-candidate', 'candidate']),
  reason: z.string(),
  /** Each member's head when the set was last planned (`owner/name#N` → sha). */
  heads: z.record(z.string(), z.string()),
  /** The set's gate when last planned: every member's required checks by its own repository's rules. */
  gate: z
    .object({
      settled: z.boolean(),
      promotable: z.boolean(),
      reason: z.string(),
      /** Passing checks over every member (absent on records from before sets were ranked). */
      passing: z.number().int().optional(),
    })
    .optional(),
  /**
   * The set's acceptance evidence: one model call over every member's patch and files, for the
   * members' heads `heads` (setHeadsKey) it judged.
   */
  acceptance: z.object({ heads: z.string(), evidence: AcceptanceEvidence }).optional(),
  /**
   * Each member's changes for the risk policy, read once the set could win (a candidate whose gate
   * passed); absent on records from before a set's risk was assessed, or while it could not win.
   */
  changes: z.array(MemberChanges).optional(),
  /**
   * The members whose title says their agent is still at work (`owner/name#N`), when that is all the
   * composing set waits for: its hold on the round then runs from `headsAt`, as a composing single
   * candidate's runs from its head (absent: none, or the set waits for a member to open too).
   */
  working: z.array(z.string()).optional(),
  /** When the set was first recorded, and when its members' heads last changed (a hold on the round runs from them). */
  since: z.string().optional(),
  headsAt: z.string().optional(),
});
export type SetRecord = z.infer<typeof SetRecord>;

/** The members' heads as one key (`owner/name#N@sha`, sorted): acceptance evidence holds for these heads only. */
export const setHeadsKey = (heads: Record<string, string>): string =>
  Object.entries(heads)
    .map(([ref, sha]) => `${ref.toLowerCase()}@${sha}`)
    .sort()
    .join(',');

/** The set's acceptance evidence for its heads now, or null (not judged, or judged on other heads). */
export const setAcceptance = (record: SetRecord): AcceptanceEvidence | null =>
  record.acceptance !== undefined && record.acceptance.heads === setHeadsKey(record.heads)
    ? record.acceptance.evidence
    : null;
