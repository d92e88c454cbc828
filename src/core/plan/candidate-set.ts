// A composite candidate's standing (DESIGN.md section 6, "Composite candidate"): from the members
// as GitHub shows them now, whether the set is still composing (a member listed in the first
// member's `Parts:` line has not opened, or does not name the set yet, or its title says its agent
// is still at work, as a composing single candidate's does), is not a candidate (a
// member's author is not trusted in its own repository, a member closed, the Change is not one),
// or is one candidate of the Change. Each open member gets `Arbiter / selection` saying which and
// why; the record keeps the standing. Pure: the view in, the plan out.
import type { Action } from '../actions.ts';
import { isComposing, mention } from '../agent-work.ts';
import {
  refText,
  sameRef,
  setHeadsKey,
  type MemberChanges,
  type PullRef,
  type SetLines,
  type SetRecord,
} from '../candidate-set.ts';
import { digest } from '../digest.ts';
import { candidateSetActionKey } from '../keys.ts';
import { gateTitle, renderGateTable } from '../render/check-text.ts';
import { notCandidateCheck, type Standing } from '../trust.ts';
import type { GateEvidence, ObservedCheck } from '../types.ts';

export interface SetMemberView {
  ref: PullRef;
  /** The pull request as read now; null when it does not exist (yet). */
  pull: {
    open: boolean;
    merged: boolean;
    headSha: string;
    author: string;
    /** What its body says of a set (null: nothing). */
    lines: SetLines | null;
    /** Closed by Arbiter as a round's loser (`arbiter:lost`). */
    lost?: boolean;
    /** Its labels, for the risk policy (absent: not read). */
    labels?: string[];
    /** Its title: a work-in-progress marker (`[WIP]`) says its agent is still at work (absent: not read). */
    title?: string;
  } | null;
  /** Its author's standing in the member's own repository, by today's rules (null: not read). */
  standing: Standing | null;
  /** The command prefix of the member's repository (for "admit it with …"). */
  prefix: string;
  /** The member head's gate, by its own repository's config and branch rules (null: not read). */
  gate?: GateEvidence | null;
  /** The member's base branch (its patch is read against it). */
  base?: string;
  /** The member head's checks, for criteria judged by a check (`(check: NAME)`). */
  checks?: ObservedCheck[];
}

export interface SetView {
  change: PullRef;
  /** Why the Change is not one Arbiter tracks, or null when it is. */
  untracked: string | null;
  name: string;
  /** The member whose body lists the parts, and the parts (null: no member listed them yet). */
  first: PullRef | null;
  parts: PullRef[] | null;
  /** Every member that announced itself so far. */
  seen: PullRef[];
  /** The parts when known (in order), else the members seen, each as read now. */
  members: SetMemberView[];
  /**
   * The set's acceptance evidence (one model call over every member) and how its check reads,
   * rendered by the acceptance renderer; absent: not judged yet (or not for these heads).
   */
  acceptance?: SetAcceptanceView | null;
  /**
   * Each member's changes for the risk policy (core/plan/set-risk.ts), read by the workflow once the
   * set could win; a member missing here was not read, and holds the set.
   */
  changes?: MemberChanges[];
}

export interface SetAcceptanceView {
  /** The members' heads it judged (setHeadsKey). */
  heads: string;
  evidence: NonNullable<SetRecord['acceptance']>['evidence'];
  shown: { conclusion: 'success' | 'neutral'; title: string; summary: string; text: string };
}

export type SetStanding =
  /** `working`: the members whose title says their agent is still at work (also in `waitingFor`). */
  | { state: 'composing'; reason: string; waitingFor: PullRef[]; working: PullRef[] }
  | { state: 'not-candidate'; reason: string; blocker: PullRef | null }
  | { state: 'candidate'; reason: string };

export interface SetPlan {
  standing: SetStanding;
  record: SetRecord;
  /** The actions of each repository (a member's check lives in its own), the Change's first. */
  byRepo: { repo: string; actions: Action[] }[];
}

const SELECTION = 'Arbiter / selection';

const namesThisSet = (view: SetView, lines: SetLines | null): boolean =>
  lines !== null && sameRef(lines.change, view.change) && lines.set === view.name;

const list = (refs: PullRef[]): string => refs.map(refText).join(', ');

/** The set's standing from its members as read now. */
export function setStanding(view: SetView): SetStanding {
  const change = refText(view.change);
  if (view.untracked !== null)
    return {
      state: 'not-candidate',
      reason: `${change} is not a Change Arbiter tracks (${view.untracked})`,
      blocker: null,
    };
  if (view.parts === null)
    return {
      state: 'composing',
      reason: `no member has listed the set's members yet (the first member's \`Parts:\` line)`,
      waitingFor: [],
      working: [],
    };
  for (const m of view.members) {
    if (m.pull !== null && !m.pull.open)
      return {
        state: 'not-candidate',
        reason: `member ${refText(m.ref)} is ${m.pull.merged ? 'merged on its own' : 'closed'}`,
        blocker: m.ref,
      };
    if (m.pull !== null && namesThisSet(view, m.pull.lines) && m.standing !== null && !m.standing.counts)
      return {
        state: 'not-candidate',
        // Trust is read in the member's own repository: "here" is that one.
        reason: `member ${refText(m.ref)}: ${m.standing.reason.replace(/ here\b/, ` in ${m.ref.repo}`)}`,
        blocker: m.ref,
      };
  }
  const missing = view.members.filter((m) => m.pull === null).map((m) => m.ref);
  const unnamed = view.members.filter((m) => m.pull !== null && !namesThisSet(view, m.pull.lines)).map((m) => m.ref);
  // An agent still at work on a member (a `[WIP]` title) holds the set as it holds a single candidate:
  // its interim heads are not judged (no model call) and the set is not compared until it is done.
  const atWork = view.members.filter(
    (m) => m.pull !== null && namesThisSet(view, m.pull.lines) && isComposing(m.pull.title ?? ''),
  );
  if (missing.length > 0 || unnamed.length > 0 || atWork.length > 0) {
    const why = [
      ...(missing.length ? [`${list(missing)} ${missing.length === 1 ? 'has' : 'have'} not opened`] : []),
      ...(unnamed.length
        ? [
            `${list(unnamed)} ${unnamed.length === 1 ? 'does' : 'do'} not name it (\`Candidate-for: ${change}\`, \`Candidate-set: ${view.name}\`)`,
          ]
        : []),
      ...atWork.map((m) => `${mention(m.pull?.author ?? '')} is still working on ${refText(m.ref)}`),
    ];
    const working = atWork.map((m) => m.ref);
    return { state: 'composing', reason: why.join('; '), waitingFor: [...missing, ...unnamed, ...working], working };
  }
  return {
    state: 'candidate',
    reason: `every member is open and names the set, and each author is trusted in its own repository`,
  };
}

/** A set's gate: every member's required checks, each by its own repository's config and rules. */
export interface SetGate {
  settled: boolean;
  promotable: boolean;
  reason: string;
  /** Passing checks over every member. */
  passing?: number;
}

/** The set's gate from its members' gates: one failed required check anywhere makes it unpromotable. */
export function setGate(members: SetMemberView[]): SetGate {
  const failed = members.filter((m) => m.gate?.settled === true && !m.gate.promotable);
  if (failed.length > 0)
    return {
      settled: true,
      promotable: false,
      reason: failed.map((m) => `member ${refText(m.ref)}: ${m.gate?.reason || 'not promotable'}`).join('; '),
    };
  const pending = members.filter((m) => m.gate?.settled !== true);
  if (pending.length > 0)
    return {
      settled: false,
      promotable: false,
      reason: `waiting for the required checks of ${list(pending.map((m) => m.ref))}`,
    };
  const passing = members.reduce((n, m) => n + (m.gate?.passingChecks ?? 0), 0);
  return { settled: true, promotable: true, reason: 'every required check of every member passed', passing };
}

/** The `Arbiter / selection` content of one open member. */
function memberCheck(
  view: SetView,
  standing: SetStanding,
  member: SetMemberView,
  gate: SetGate,
): { status: 'in_progress' | 'completed'; conclusion?: 'neutral'; title: string; summary: string } {
  const change = refText(view.change);
  const members = view.parts ?? view.seen;
  const roster = members
    .map((r, i) => `${i + 1}. ${refText(r)}${sameRef(r, member.ref) ? ' (this pull request)' : ''}`)
    .join('\n');
  const about = `This pull request is a member of the set \`${view.name}\`, one candidate of ${change} made of linked pull requests in several repositories.\n\nMembers (the first member's \`Parts:\` line):\n\n${roster || '(not listed yet)'}`;
  if (standing.state === 'composing')
    return {
      status: 'in_progress',
      title: `Composing: set ${view.name} for ${change} waits: ${standing.reason}`.slice(0, 250),
      summary: `${about}\n\nThe set is composing: ${standing.reason}. It becomes a candidate once every member has opened and names the set, and no member's title says its agent is still at work (\`[WIP]\`, \`WIP:\`, \`Draft:\`); until then it is not judged or compared.`,
    };
  if (standing.state === 'not-candidate') {
    const own = standing.blocker !== null && sameRef(standing.blocker, member.ref);
    if (own && member.standing !== null && !member.standing.counts && member.pull !== null) {
      const text = notCandidateCheck({
        login: member.pull.author,
        reason: member.standing.reason,
        lookupFailed: member.standing.lookupFailed,
        prefix: member.prefix,
        change: view.change.number,
        ...(member.standing.trustWith ? { trustWith: member.standing.trustWith } : {}),
      });
      return {
        status: 'completed',
        conclusion: 'neutral',
        title: `${text.title} (set ${view.name} for ${change} is not a candidate)`.slice(0, 250),
        summary: `${about}\n\nThe set is not a candidate while this member's author is not trusted in ${member.ref.repo}: ${text.summary}`,
      };
    }
    return {
      status: 'completed',
      conclusion: 'neutral',
      title: `Not a candidate: set ${view.name} for ${change}: ${standing.reason}`.slice(0, 250),
      summary: `${about}\n\nThe set is not a candidate of ${change}: ${standing.reason}. Every member must be open and its author trusted in its own repository (write access, a listed agent, or admitted by a maintainer there).`,
    };
  }
  const gateWords = gate.promotable
    ? 'gate passed in every member'
    : gate.settled
      ? `unpromotable: ${gate.reason}`
      : `waiting for evidence (${gate.reason})`;
  return {
    status: 'in_progress',
    title: `Candidate for ${change}: set ${view.name} (${members.length} members), ${gateWords}`.slice(0, 250),
    summary: `${about}\n\nThe set is one candidate of ${change}: ${standing.reason}.\n\nGate of the set (each member by its own repository's \`gate.required\` and branch rules): ${gate.settled ? (gate.promotable ? 'promotable' : 'unpromotable') : 'not settled'}: ${gate.reason}.`,
  };
}

/** The heads of the open members that name this set (`owner/name#N` → sha), as the record keeps them. */
export function headsOf(view: SetView): Record<string, string> {
  const heads: Record<string, string> = {};
  for (const m of view.members)
    if (m.pull !== null && m.pull.open && (m.pull.lines === null || namesThisSet(view, m.pull.lines)))
      heads[refText(m.ref)] = m.pull.headSha;
  return heads;
}

/** Whether the set is judged now: a candidate whose every member's required checks passed (an unpromotable set is not worth a call). */
export const setWantsAcceptance = (view: SetView): boolean =>
  setStanding(view).state === 'candidate' && setGate(view.members).promotable;

/** The opening of a member's `Arbiter / acceptance` check: the evidence is the set's, judged once over every member. */
function setJudgedWords(view: SetView, ref: PullRef): string {
  const members = (view.parts ?? view.seen).map((r) =>
    sameRef(r, ref) ? `${refText(r)} (this pull request)` : refText(r),
  );
  return `Judged as part of the set \`${view.name}\`, one candidate of ${refText(view.change)}: one acceptance check over the patches and files of every member (${members.join(', ')}), each path prefixed by its repository (\`owner/name:path\`). A citation counts only in the member whose repository it names.`;
}

/** The plan for a set: every open member's check, and the record. */
export function planCandidateSet(view: SetView): SetPlan {
  const standing = setStanding(view);
  const gate = setGate(view.members);
  const key = (what: string) => candidateSetActionKey(view.change.repo, view.change.number, view.name, what);
  const heads: Record<string, string> = {};
  const byRepo = new Map<string, Action[]>([[view.change.repo.toLowerCase(), []]]);
  const repoNames = new Map<string, string>([[view.change.repo.toLowerCase(), view.change.repo]]);
  // Evidence judged on other heads is not this set's any more (a member pushed since).
  const judged = view.acceptance && view.acceptance.heads === setHeadsKey(headsOf(view)) ? view.acceptance : null;
  // A set that lost its round (Arbiter closed a member as lost) keeps its members' "Lost to" checks.
  const lost = view.members.some((m) => m.pull?.lost === true && !m.pull.open);
  for (const member of view.members) {
    const pull = member.pull;
    if (pull === null || !pull.open) continue;
    // A PR that names another set or Change is not this set's to speak for.
    if (pull.lines !== null && !namesThisSet(view, pull.lines)) continue;
    heads[refText(member.ref)] = pull.headSha;
    if (lost) continue;
    const check = memberCheck(view, standing, member, gate);
    const repoKey = member.ref.repo.toLowerCase();
    repoNames.set(repoKey, member.ref.repo);
    const blocker = standing.state === 'not-candidate' && standing.blocker ? refText(standing.blocker) : '-';
    const actions = byRepo.get(repoKey) ?? [];
    actions.push({
      kind: 'check-run',
      key: key(`check/${refText(member.ref)}@${pull.headSha}/${standing.state}/${blocker}/${check.title}`),
      pr: member.ref.number,
      headSha: pull.headSha,
      name: SELECTION,
      ...check,
    });
    // The member's own gate, as a lone candidate's: once a required check concluded.
    const own = member.gate;
    if (standing.state === 'candidate' && own && own.required.some((r) => r.outcome === 'pass' || r.outcome === 'fail'))
      actions.push({
        kind: 'check-run',
        key: key(`gate/${refText(member.ref)}@${pull.headSha}/${gateTitle(own)}/${own.settled}`),
        pr: member.ref.number,
        headSha: pull.headSha,
        name: 'Arbiter / gate',
        status: own.settled ? 'completed' : 'in_progress',
        ...(own.settled ? { conclusion: own.promotable ? ('success' as const) : ('failure' as const) } : {}),
        title: gateTitle(own),
        summary: renderGateTable(own),
      });
    if (standing.state === 'candidate' && judged !== null)
      actions.push({
        kind: 'check-run',
        key: key(`acceptance/${refText(member.ref)}@${pull.headSha}/${judged.shown.title}`),
        pr: member.ref.number,
        headSha: pull.headSha,
        name: 'Arbiter / acceptance',
        status: 'completed',
        conclusion: judged.shown.conclusion,
        title: `Set ${view.name}: ${judged.shown.title}`.slice(0, 250),
        summary: `${setJudgedWords(view, member.ref)}\n\n${judged.shown.summary}`,
        ...(judged.shown.text ? { text: judged.shown.text } : {}),
      });
    byRepo.set(repoKey, actions);
  }
  // Changes read at a head the member has left are not its changes any more.
  const changes = (view.changes ?? []).filter((c) => heads[c.member] === c.headSha);
  const record: SetRecord = {
    change: view.change,
    name: view.name,
    first: view.first,
    parts: view.parts,
    seen: view.seen,
    state: standing.state,
    reason: standing.reason,
    heads,
    gate,
    ...(judged ? { acceptance: { heads: judged.heads, evidence: judged.evidence } } : {}),
    ...(changes.length > 0 ? { changes } : {}),
    // Composing for nothing but its agents' work: the hold runs from its members' last heads (set-hold.ts).
    ...(standing.state === 'composing' &&
    standing.working.length > 0 &&
    standing.waitingFor.length === standing.working.length
      ? { working: standing.working.map(refText) }
      : {}),
  };
  const recordWhat = `record/${standing.state}/${gate.settled}/${gate.promotable}/${list(view.seen)}/${Object.entries(
    heads,
  )
    .map(([r, sha]) => `${r}@${sha}`)
    .join(',')}/${judged ? `judged/${judged.evidence.status}` : 'unjudged'}/changes:${digest(changes)}`;
  byRepo.get(view.change.repo.toLowerCase())!.unshift({ kind: 'record-set', key: key(recordWhat), record });
  return {
    standing,
    record,
    byRepo: [...byRepo.entries()].map(([repoKey, actions]) => ({ repo: repoNames.get(repoKey)!, actions })),
  };
}
