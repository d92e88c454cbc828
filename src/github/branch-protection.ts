// A branch's rules as GitHub states them in two places: rulesets (`GET /rules/branches/{b}`) and
// classic branch protection (`GET /branches/{b}` → `protection.required_status_checks`). Both
// apply at once on GitHub, so Arbiter requires the union. Pure: the gateway does the reads.
import { z } from 'zod';
import type { BranchRules } from './port.ts';

const Rule = z.object({ type: z.string(), parameters: z.record(z.string(), z.unknown()).optional() });
const RulesetCheck = z.object({ context: z.string(), integration_id: z.number().nullable().optional() });
const ClassicChecks = z.object({
  protected: z.boolean().optional(),
  protection: z
    .object({
      enabled: z.boolean().optional(),
      required_status_checks: z
        .object({
          enforcement_level: z.string().optional(),
          contexts: z.array(z.string()).optional(),
          checks: z.array(z.object({ context: z.string(), app_id: z.number().nullable().optional() })).optional(),
          strict: z.boolean().optional(),
        })
        .nullable()
        .optional(),
    })
    .nullable()
    .optional(),
});

/** `name`, or `name@<app id>` when a rule pins the app that must report it (gate.ts reads both forms). */
const pinned = (context: string, app: number | null | undefined): string =>
  typeof app === 'number' && app > 0 ? `${context}@${app}` : context;

export function mergeBranchRules(rulesets: unknown, classic: unknown): BranchRules {
  const parsed = z.array(Rule).safeParse(rulesets);
  const list = parsed.success ? parsed.data : [];
  const required: string[] = [];
  let strict = false;
  for (const rule of list.filter((r) => r.type === 'required_status_checks')) {
    const checks = z
      .array(RulesetCheck)
      .catch([])
      .parse(rule.parameters?.required_status_checks ?? []);
    required.push(...checks.map((c) => pinned(c.context, c.integration_id)));
    if (rule.parameters?.strict_required_status_checks_policy === true) strict = true;
  }
  const reviews = list
    .filter((r) => r.type === 'pull_request')
    .map((r) =>
      z
        .number()
        .catch(0)
        .parse(r.parameters?.required_approving_review_count ?? 0),
    );
  const branch = ClassicChecks.safeParse(classic);
  const checks = branch.success ? branch.data.protection?.required_status_checks : null;
  const enforced =
    branch.success && branch.data.protection?.enabled !== false && checks && checks.enforcement_level !== 'off';
  if (enforced && checks) {
    // `checks` names the app where one is pinned; `contexts` lists the same names without it.
    const named = new Set((checks.checks ?? []).map((c) => c.context));
    required.push(...(checks.checks ?? []).map((c) => pinned(c.context, c.app_id)));
    required.push(...(checks.contexts ?? []).filter((c) => !named.has(c)));
    if (checks.strict === true) strict = true;
  }
  const unique = [...new Set(required)];
  return {
    required: unique.length > 0 ? unique : null,
    requiredReviews: Math.max(0, ...reviews),
    mergeQueue: list.some((r) => r.type === 'merge_queue'),
    strict,
  };
}
