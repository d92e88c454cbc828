// Who may run which verb: pure rules over the verb module, the user's repository role,
// authorship of the candidate and whether the user is a bot.
import { isBotAccount, WRITES } from '../core/trust.ts';
import { findVerb } from './registry.ts';
import type { Permission, VerbModule } from './types.ts';

export type MayRun = { ok: true } | { ok: false; reason: string };

export interface Asker {
  permission: Permission;
  /** The user opened the candidate the command is about. */
  isAuthor: boolean;
  isBot: boolean;
}

/** Roles that may change state: the trust rules' table (write, maintain, admin). */
const CAN_WRITE: Record<Permission, boolean> = WRITES;

const describeRole = (permission: Permission): string => (permission === 'none' ? 'no access' : `${permission} access`);

export type VerbRule = Pick<VerbModule, 'name' | 'permission' | 'authorNeedsAdmin'>;

/** Whether `asker` may run `verb` (a registered name or alias, or the verb module itself). */
export function mayRun(verb: string | VerbRule, asker: Asker): MayRun {
  if (typeof verb === 'string') {
    const found = findVerb(verb);
    if (!found) return { ok: false, reason: `\`${verb}\` is not an Arbiter command.` };
    return mayRun(found, asker);
  }
  if (asker.isBot) return { ok: false, reason: 'commands from bots are not accepted.' };
  if (verb.permission === 'write' && !CAN_WRITE[asker.permission]) {
    return {
      ok: false,
      reason: `\`${verb.name}\` needs write, maintain or admin access to this repository; you have ${describeRole(asker.permission)}.`,
    };
  }
  if (verb.authorNeedsAdmin && asker.isAuthor && asker.permission !== 'admin') {
    return {
      ok: false,
      reason: `the author of a candidate cannot \`${verb.name}\` it unless they are an admin; another maintainer has to.`,
    };
  }
  return { ok: true };
}

/** GitHub App and bot accounts end in `[bot]`; the flag from the payload is trusted too. */
export const looksLikeBot = (user: string, flagged: boolean): boolean =>
  isBotAccount({ login: user, type: flagged ? 'Bot' : null });
