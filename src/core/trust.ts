// Who Arbiter acts for (DESIGN.md section 1, "Trust"), as pure rules over what the shell read:
// an account's repository permission (or why it could not be read), the trusted agents of the
// config, and whether a maintainer adopted the issue or admitted the pull request.
import { listedEntry, trustLine } from './agents.ts';

export type Permission = 'none' | 'read' | 'triage' | 'write' | 'maintain' | 'admin';

/**
 * What the collaborator-permission lookup gave: a role, or why there is none (never a yes).
 * `status` 404: GitHub knows no collaborator by that login, which is its answer for every bot.
 */
export type PermissionLookup = { ok: true; permission: Permission } | { ok: false; reason: string; status?: number };

export interface Account {
  login: string;
  isBot: boolean;
}

export interface TrustPolicy {
  /** `trust.agents`: known agents' names (`copilot`) or exact logins, each matched in all its forms. */
  agents: readonly string[];
  /** Arbiter's own login (`<slug>[bot]`). */
  appLogin: string;
}

export type Trust =
  | { trusted: true; why: 'app' | 'agent' | 'permission' }
  | {
      trusted: false;
      reason: string;
      lookupFailed: boolean;
      /** For an account GitHub gives no permission (a bot): the config line that would trust it. */
      trustWith?: string;
    };

/** Roles that may merge, so roles Arbiter acts for; the table is the rule. */
export const WRITES: Record<Permission, boolean> = {
  none: false,
  read: false,
  triage: false,
  write: true,
  maintain: true,
  admin: true,
};

/** The one bot test: GitHub's account type says so, or the login is an app's (`name[bot]`). */
export const isBotAccount = (account: { login: string; type?: string | null }): boolean =>
  account.type === 'Bot' || /\[bot\]$/i.test(account.login);

const sameLogin = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const describeRole = (permission: Permission): string => (permission === 'none' ? 'no access' : `${permission} access`);

/** True when the account is trusted without a permission lookup (Arbiter itself, a listed agent). */
export function trustedWithoutLookup(account: Account, policy: TrustPolicy): Trust | null {
  if (account.login !== '' && sameLogin(account.login, policy.appLogin)) return { trusted: true, why: 'app' };
  // A person whose login is an agent's name without `[bot]` is not that agent (`isBot`).
  if (account.login !== '' && listedEntry(policy.agents, account.login, account.isBot) !== null)
    return { trusted: true, why: 'agent' };
  return null;
}

/** Whether Arbiter acts for this account: Arbiter, a listed agent, or write, maintain or admin. */
export function trustOf(account: Account, lookup: PermissionLookup | null, policy: TrustPolicy): Trust {
  const known = trustedWithoutLookup(account, policy);
  if (known) return known;
  if (account.login === '')
    return { trusted: false, reason: 'the account is unknown (a deleted user)', lookupFailed: false };
  if (!lookup) return { trusted: false, reason: `@${account.login}'s permission was not read`, lookupFailed: true };
  if (!lookup.ok && lookup.status === 404)
    // GitHub answers 404 for every bot account: it is not a collaborator, only a listed agent.
    return {
      trusted: false,
      reason: `@${account.login} is not a listed agent (GitHub gives ${account.isBot ? 'a bot account' : 'this account'} no permission here)`,
      lookupFailed: false,
      trustWith: trustLine(account.login),
    };
  if (!lookup.ok)
    return {
      trusted: false,
      reason: `@${account.login}'s permission could not be read (${lookup.reason})`,
      lookupFailed: true,
    };
  if (WRITES[lookup.permission]) return { trusted: true, why: 'permission' };
  return {
    trusted: false,
    reason: `@${account.login} has no write access here (${describeRole(lookup.permission)})`,
    lookupFailed: false,
  };
}

export type Standing =
  { counts: true; via: string } | { counts: false; reason: string; lookupFailed: boolean; trustWith?: string };

/** A Change: an issue a trusted account opened, or one a trusted account adopted (label or `track`). */
export function changeStanding(author: Trust, adoptedBy: string | null): Standing {
  if (author.trusted) return { counts: true, via: 'opened by a trusted account' };
  if (adoptedBy !== null) return { counts: true, via: `adopted by @${adoptedBy}` };
  return { counts: false, reason: author.reason, lookupFailed: author.lookupFailed };
}

/** A candidate: a linked PR whose author is trusted, or one a trusted account admitted. Forks alike. */
export function candidateStanding(author: Trust, admittedBy: string | null): Standing {
  if (author.trusted) return { counts: true, via: 'opened by a trusted account' };
  if (admittedBy !== null) return { counts: true, via: `admitted by @${admittedBy}` };
  return {
    counts: false,
    reason: author.reason,
    lookupFailed: author.lookupFailed,
    ...(author.trustWith ? { trustWith: author.trustWith } : {}),
  };
}

/**
 * A person's act (approving review, promote, a button, a rejection): only a human with write
 * access or more. A bot's act never counts, whatever its permission; a failed lookup is a no.
 */
export function personActCounts(
  account: Account,
  lookup: PermissionLookup | null,
): { counts: boolean; reason: string } {
  if (account.isBot) return { counts: false, reason: `@${account.login} is a bot; only a person's act counts` };
  if (!lookup || !lookup.ok) return { counts: false, reason: `@${account.login}'s permission could not be read` };
  if (!WRITES[lookup.permission])
    return { counts: false, reason: `@${account.login} has ${describeRole(lookup.permission)}; it takes write access` };
  return { counts: true, reason: '' };
}

/** A Change's body edit re-parses its criteria only when the editor is trusted. */
export function editChangesCriteria(editor: Trust): boolean {
  return editor.trusted;
}

/** Title and summary of the one neutral `Arbiter / selection` check of a linked PR that is not a candidate. */
export function notCandidateCheck(input: {
  login: string;
  reason: string;
  lookupFailed: boolean;
  prefix: string;
  change: number;
  /** The config line that would trust the author (an unlisted bot). */
  trustWith?: string;
}): {
  title: string;
  summary: string;
} {
  const admit = `a maintainer can admit it with \`${input.prefix} admit\``;
  if (input.trustWith) {
    return {
      title: `Not a candidate: @${input.login} is not a listed agent; add \`${input.trustWith}\` to trust it`,
      summary: `This pull request links #${input.change}, but ${input.reason}. GitHub gives bot accounts no repository permission, so Arbiter trusts an agent only when \`.github/arbiter.yml\` lists it: add \`${input.trustWith}\` (docs/agents.md lists the agents Arbiter knows by name). Until then it is not a sibling, holds no round and is never closed by Arbiter; ${admit} (each new head needs its own admission).`,
    };
  }
  if (input.lookupFailed) {
    return {
      title: `Not a candidate yet: @${input.login}'s permission could not be read`,
      summary: `This pull request links #${input.change}, but ${input.reason}, and a failed lookup is never a yes. Arbiter tries again on the pull request's next event; ${admit}.`,
    };
  }
  return {
    title: `Not a candidate: @${input.login} has no write access here; ${admit}`,
    summary: `This pull request links #${input.change}, but ${input.reason}. Arbiter compares only candidates from accounts that could merge them themselves, or ones a maintainer admitted: it is not a sibling, holds no round and is never closed by Arbiter. ${admit[0]!.toUpperCase()}${admit.slice(1)}.`,
  };
}

/** The check of a linked PR whose Change Arbiter does not track (an untrusted account's issue). */
export function untrackedChangeCheck(input: { change: number; reason: string; prefix: string }): {
  title: string;
  summary: string;
} {
  return {
    title: `Not a candidate: #${input.change} is not a Change Arbiter tracks`,
    summary: `#${input.change} was opened by an account Arbiter does not act for (${input.reason}). A maintainer can adopt it with \`${input.prefix} track\` on the issue; this pull request is recorded on its next event after that.`,
  };
}
