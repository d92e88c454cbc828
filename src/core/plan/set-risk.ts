// A candidate set's risk (DESIGN.md section 6, "Composite candidate"): the risk policy applied to each
// member's changes at the head the set was judged on (its changed paths, lines and labels, as a single
// candidate's evidence carries them), each path named with its repository. The set's risk is the
// highest of its members'; it ships by itself only when no member's risk holds it. Pure.
import { refText, type MemberChanges, type SetRecord } from '../candidate-set.ts';
import { assessRisk, higherRisk } from '../policy.ts';
import type { Risk, RiskPolicy } from '../types.ts';

export interface SetRisk {
  /** The highest risk of any member, by either policy that applies to it. */
  risk: Risk;
  /** One entry per rule that raised a member's risk ("member acme/ui#9: high: changes `acme/ui: .github/workflows/ci.yml`"). */
  reasons: string[];
  /** Why the policy holds the set back, one clause for the comparison; null when it may ship. */
  held: string | null;
}

const sameRepo = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The member's changes at the head the set was judged on, or null when they were not read for it. */
export function changesAt(record: SetRecord, member: string): MemberChanges | null {
  const head = record.heads[member];
  return record.changes?.find((c) => c.member.toLowerCase() === member.toLowerCase() && c.headSha === head) ?? null;
}

/**
 * The set's risk under `policy`, the Change's (its repository's config decides the round). A member
 * in another repository is also held by that repository's own policy: its maintainers wrote rules for
 * their own files (their workflows, their `CODEOWNERS`), and Arbiter merges into their repository, so
 * each member gets the stricter of the two: its risk is the higher of both assessments, and it ships
 * only where both policies let that risk ship (the Change's through the set's risk, the highest). A
 * member whose changes were not read at its head holds the set: the policy cannot clear what it did
 * not see.
 */
export function assessSetRisk(record: SetRecord, policy: RiskPolicy): SetRisk {
  let risk: Risk = 'low';
  const reasons: string[] = [];
  const ownHeld: string[] = [];
  const unread: string[] = [];
  for (const ref of record.parts ?? record.seen) {
    const name = refText(ref);
    const changes = changesAt(record, name);
    if (changes === null) {
      unread.push(name);
      continue;
    }
    const named = (path: string): string => `${ref.repo}: ${path}`;
    const byChange = assessRisk(policy, changes, named);
    const own = sameRepo(ref.repo, record.change.repo) ? null : assessRisk(changes.policy, changes, named);
    const mine = [
      ...byChange.reasons.map((r) => `member ${name}: ${r}`),
      ...(own?.reasons ?? [])
        .filter((r) => !byChange.reasons.includes(r))
        .map((r) => `member ${name}, by the policy of ${ref.repo}: ${r}`),
    ];
    const memberRisk = higherRisk(byChange.risk, own?.risk ?? 'low');
    risk = higherRisk(risk, memberRisk);
    reasons.push(...mine);
    if (own !== null && !changes.policy.autoShip.includes(memberRisk))
      ownHeld.push(
        `${name} is ${memberRisk} risk${inParens(mine)}, which the policy of ${ref.repo} does not ship without a person`,
      );
  }
  // The Change's policy holding the set names every member's reasons; a member's own policy, its own.
  const clauses = policy.autoShip.includes(risk)
    ? ownHeld
    : [`the set is ${risk} risk${inParens(reasons)}, which the policy does not ship without a person`];
  if (unread.length > 0)
    clauses.push(
      `the changes of ${unread.join(', ')} at ${unread.length === 1 ? 'its' : 'their'} verified head were not read, so the risk policy could not be applied to ${unread.length === 1 ? 'it' : 'them'}`,
    );
  return { risk, reasons, held: clauses.length > 0 ? clauses.join('; ') : null };
}

const inParens = (reasons: readonly string[]): string => (reasons.length > 0 ? ` (${reasons.join('; ')})` : '');
