// Outcome planning (DESIGN.md section 6): ranking, judge, evidence and policy in; a verdict (verdict.ts)
// and the list of actions that carry it out. Pure: no I/O, no clock (time is passed in).
import { renderRankingTable, renderReceiptText } from '../render/check-text.ts';
import { renderHumanGate } from '../render/human-gate.ts';
import { renderComparisonComment, type ComparisonRow } from '../render/markdown.ts';
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { judgeSentence, winnerSummary } from '../reasons.ts';
import type { RankedCandidate } from '../types.ts';
import { selectionConfigOf, type Receipt, type SelectionInputs, type SelectionReceipt } from '../receipt.ts';
import type { SelectionPlan } from '../plan-schema.ts';
import { describePlan } from '../replay-lines.ts';
import { byPr, decide, mergePathOf, type SelectionInput } from './verdict.ts';
import { pathWords, promotion } from './merge-path.ts';
import { outcomeText, reasonsFor } from './outcome-text.ts';

export { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { repairMarker } from '../keys.ts';

export type { SelectionDisplay } from '../receipt.ts';
export type { SelectionPlan, Verdict } from '../plan-schema.ts';

export { decide, type SelectionInput } from './verdict.ts';

/**
 * Turns a verdict into receipts, comments, check runs, closures, labels and the promotion. The
 * selection receipt keeps the inputs and one line per planned action, so it can be replayed.
 */
export function planSelection(input: SelectionInput): SelectionPlan {
  const plan = planOutcome(input);
  const { ranking: _ranking, ...given } = input;
  // Kept in PR order: the plan does not depend on the order siblings came in, nor does its receipt.
  const inputs: SelectionInputs = {
    ...given,
    siblings: [...given.siblings].sort((a, b) => a.pr - b.pr),
    drafts: [...given.drafts].sort((a, b) => a - b),
    config: selectionConfigOf(input.config),
  };
  const receipt: SelectionReceipt = {
    ...plan.receipt,
    data: { ...plan.receipt.data, inputs, outcome: describePlan(plan) },
  };
  const key = `${input.repo}#${input.change.number}@${input.base}/r${input.round}/receipt/selection`;
  return { ...plan, receipt, actions: [{ kind: 'receipt', key, receipt }, ...plan.actions] };
}

function planOutcome(input: SelectionInput): SelectionPlan {
  const verdict = decide(input);
  const { repo, change, round, ranking, config } = input;
  // Each base branch is its own group with its own rounds: its actions are its own too.
  const k = (suffix: string): string => `${repo}#${change.number}@${input.base}/r${round}/${suffix}`;
  const evidence = byPr(input.siblings);
  const shadow = config.mode === 'shadow';
  const ranked = new Map<number, RankedCandidate>(ranking.ordered.map((c) => [c.pr, c]));
  const reasons = reasonsFor(input, verdict, ranked);
  const losers = verdict.losers;
  const receipt: SelectionReceipt = {
    kind: 'CANDIDATE_SELECTION',
    repo,
    change: change.number,
    round,
    at: input.now,
    data: {
      verdict: verdict.kind,
      winner: verdict.kind === 'ship' ? verdict.winner : verdict.kind === 'human' ? verdict.winner : null,
      repairTarget: verdict.kind === 'repair' ? verdict.target : null,
      beforePerson: verdict.kind === 'human' ? verdict.before : [],
      losers: losers.map((pr) => ({ pr, reason: reasons.get(pr) })),
      ranking: ranking.ordered.map(({ pr, rank, promotable, met, gaps, score, passing }) => ({
        pr,
        rank,
        promotable,
        met,
        gaps,
        score,
        passing,
      })),
      judge: input.judge
        ? {
            comparison: input.judge.comparison,
            winner: input.judge.winner,
            reason: input.judge.reason,
            source: input.judge.source,
            evidence: input.judge.evidence,
          }
        : null,
      risk: verdict.kind === 'ship' ? { risk: verdict.risk.risk, reasons: verdict.risk.reasons } : null,
      diagnostics: input.diagnostics,
      mode: config.mode,
    },
  };
  const path = verdict.kind === 'ship' ? mergePathOf(input, verdict.winner) : null;
  const headline =
    verdict.kind === 'ship'
      ? `#${verdict.winner} wins: ${winnerSummary(ranked.get(verdict.winner)!, change.criteria.length)}. ${pathWords(path!, shadow)} (${verdict.risk.risk} risk).`
      : verdict.kind === 'repair'
        ? `#${verdict.target} is the best candidate; ${shadow ? 'Arbiter would ask for one repair' : 'a repair is requested'}: ${verdict.objective}.`
        : verdict.why;
  // Kept in the receipt, so the next round's comparison can list this one below it.
  receipt.data.headline = headline;
  const notes: string[] = input.judge && input.judge.comparison !== 'not-compared' ? [judgeSentence(input.judge)] : [];
  notes.push(...(input.notes ?? []));
  const display = input.display ?? {};
  const repoUrl = display.repoUrl ?? null;
  const rows: ComparisonRow[] = ranking.ordered.map((c) => ({
    evidence: evidence.get(c.pr)!,
    rank: c.rank,
    outcome: outcomeText(verdict, c.pr, reasons, shadow, path),
    title: display.titles?.[c.pr],
  }));
  // One comparison per group: candidates on another base branch are compared (and commented) alone.
  const marker = `comparison:${change.number}@${input.base}`;
  const comparison = (key: string, title: string, lines: ComparisonRow[]): Action => ({
    kind: 'comment',
    key: k(key),
    issue: change.number,
    marker,
    body: renderComparisonComment({
      change: change.number,
      round,
      headline: title,
      notes,
      criteria: change.criteria,
      rows: lines,
      receipt,
      shadow,
      repoUrl,
      earlier: display.earlier,
    }).replace(markerFor(`comparison:${change.number}`), markerFor(marker)),
  });
  const actions: Action[] = [comparison('comparison', headline, rows)];
  // For a ship verdict the losers close only after the merge succeeded (executeDecision).
  const lost: Action[] = [];
  const text = [renderRankingTable(ranking, repoUrl), '', renderReceiptText(receipt)].join('\n');
  const comparisonUrl = repoUrl ? `${repoUrl}/issues/${change.number}` : undefined;
  type Conclusion = 'success' | 'neutral' | 'action_required';
  const selectionRun = (
    pr: number,
    conclusion: Conclusion,
    title: string,
    summary: string,
    buttons = false,
  ): Action => ({
    kind: 'check-run',
    key: k(`check/selection/${pr}`),
    pr,
    headSha: evidence.get(pr)!.headSha,
    name: 'Arbiter / selection',
    status: 'completed',
    conclusion,
    title,
    summary,
    text,
    buttons: buttons ? input.buttons : undefined,
    // GitHub shows an action_required run only with a details_url: the comparison on the Change.
    ...(conclusion === 'action_required' && comparisonUrl ? { detailsUrl: comparisonUrl } : {}),
  });
  for (const pr of losers) {
    const reason = reasons.get(pr)!;
    const would = shadow ? 'Shadow mode: Arbiter would close this candidate. ' : '';
    // The title is the head of the reason: "Lost to #13" (before its ", which …" or ": …").
    lost.push(selectionRun(pr, 'neutral', reason.split(/[:,]/)[0], reason));
    lost.push({
      kind: 'comment',
      key: k(`note/${pr}`),
      issue: pr,
      marker: `note:${pr}:r${round}`,
      body: `${markerFor(`note:${pr}:r${round}`)}\n${would}${reason} See the comparison on #${change.number}.`,
    });
    // Labelled lost and closed in one action (one write where the executor holds the PR's labels).
    const remove = evidence.get(pr)!.labels.includes(LABEL_AWAITING) ? [LABEL_AWAITING] : [];
    lost.push({ kind: 'close', key: k(`close/${pr}`), pr, relabel: { add: [LABEL_LOST], remove } });
    lost.push({ kind: 'set-state', key: k(`state/${pr}`), pr, state: 'rejected', reason });
  }
  if (verdict.kind !== 'ship') actions.push(...lost);
  if (verdict.kind === 'ship') {
    const w = verdict.winner;
    // The winner's check is written once, with the merge's answer: "Selected: shipped" after the
    // merge (first of `afterShip`, which the claimant's retry or the sweep finishes should it die),
    // else the answer's own check (after-merge.ts), which carries this ranking text too. Shadow
    // mode merges nothing: its verdict is the check.
    if (shadow) actions.push(selectionRun(w, 'success', 'Shadow: would ship', headline));
    const shipped: Action[] = shadow
      ? []
      : [
          {
            ...selectionRun(w, 'success', 'Selected: shipped', `${headline}\n\n#${w} was merged.`),
            key: k(`check/shipped/${w}`),
          },
        ];
    if (evidence.get(w)!.labels.includes(LABEL_AWAITING))
      actions.push({ kind: 'unlabel', key: k(`unlabel/${w}`), issue: w, label: LABEL_AWAITING });
    actions.push({ kind: 'set-state', key: k(`state/${w}`), pr: w, state: 'selected', reason: headline });
    if (input.drafts.includes(w)) actions.push({ kind: 'mark-ready', key: k(`ready/${w}`), pr: w });
    const sha = evidence.get(w)!.headSha;
    actions.push(...promotion(path!, w, sha, k, input.reviewers));
    const open = losers.map((n) => `#${n}`).join(', ');
    const stay =
      losers.length > 0 ? ` ${open} ${losers.length === 1 ? 'stays' : 'stay'} open until a person decides.` : '';
    const refusedRows = rows.map((r) =>
      losers.includes(r.evidence.pr)
        ? { ...r, outcome: `open: ${r.outcome}` }
        : r.evidence.pr === w
          ? { ...r, outcome: 'merge refused: awaiting a person' }
          : r,
    );
    const refused = comparison(
      'comparison/refused',
      `#${w} won, but GitHub did not merge it: a person must act.${stay}`,
      refusedRows,
    );
    const waiting = losers.map((pr) => ({
      ...selectionRun(
        pr,
        'neutral',
        `Open: #${w} was not merged`,
        `#${w} won, but GitHub did not merge it; this candidate stays open until a person decides.`,
      ),
      key: k(`check/refused/${pr}`),
    }));
    // A strict branch: the winner may be behind its base, and then its branch is updated first.
    const strict = input.merge?.[String(w)]?.strict === true && !shadow;
    const updatedRows = rows.map((r) =>
      losers.includes(r.evidence.pr)
        ? { ...r, outcome: `open: ${r.outcome}` }
        : r.evidence.pr === w
          ? { ...r, outcome: 'waits for its updated branch to be verified' }
          : r,
    );
    const updated = comparison(
      'comparison/updated',
      `#${w} won, but its branch was behind ${input.base}, which must be up to date before merging. Arbiter updated the branch once; nothing merges until the new head is verified (round ${round + 1}).${stay}`,
      updatedRows,
    );
    return {
      verdict,
      receipt,
      actions,
      afterShip: [...shipped, ...lost],
      onRefused: [refused, ...waiting],
      ...(strict ? { onUpdated: [updated] } : {}),
    };
  } else if (verdict.kind === 'repair') {
    const t = verdict.target;
    const e = evidence.get(t)!;
    const reason =
      verdict.unmet.length > 0 ? `not met: ${verdict.unmet.map((c) => `${c.id} ${c.text}`).join('; ')}` : e.gate.reason;
    const repairReceipt: Receipt = {
      kind: 'ACCEPTANCE_REPAIR',
      repo,
      change: change.number,
      round,
      at: input.now,
      data: {
        candidate: t,
        headSha: e.headSha,
        objective: verdict.objective,
        unmet: verdict.unmet.map((c) => c.id),
        trigger: 'selection',
      },
    };
    const asked = shadow
      ? `Shadow mode: Arbiter would ask for one more attempt (${reason}); nothing was dispatched.`
      : `Arbiter asked for one more attempt (${reason}). A push to this branch or a new candidate for #${change.number} opens the next round.`;
    actions.push(
      selectionRun(
        t,
        'neutral',
        shadow ? 'Shadow: would ask for a repair' : 'Repair requested',
        `${headline}\n\n${asked}`,
        true,
      ),
    );
    actions.push({ kind: 'receipt', key: k(`receipt/repair`), receipt: repairReceipt });
    actions.push({
      kind: 'set-state',
      key: k(`state/${t}`),
      pr: t,
      state: 'selected',
      reason: `repair requested: ${verdict.objective}`,
    });
    actions.push({
      kind: 'dispatch',
      key: k(`repair`),
      eventType: 'arbiter.repair',
      payload: {
        change: change.number,
        candidate: t,
        base: input.base,
        head_sha: e.headSha,
        objective: verdict.objective,
        criteria: verdict.unmet.map((c) => ({ id: c.id, text: c.text })),
        reason,
        round,
      },
    });
    actions.push({
      kind: 'comment',
      key: k(`repair-note`),
      issue: change.number,
      marker: repairMarker(change.number),
      body: shadow
        ? `${markerFor(repairMarker(change.number))}\nShadow mode: Arbiter would ask for one repair of #${t} (objective: ${verdict.objective}); nothing was dispatched and the Change's one repair is still unused.`
        : `${markerFor(repairMarker(change.number))}\nArbiter requested one repair of #${t} (objective: ${verdict.objective}). If nothing arrives within ${Math.round(config.repair.timeout / 60)} minutes, the change goes to a person.`,
    });
  } else {
    const { users, teams } = input.reviewers;
    // Mentions notify: only the people whose review is requested, and nobody in shadow mode.
    const mentions = shadow ? [] : [...users.map((u) => `@${u}`), ...teams.map((t) => `@${repo.split('/')[0]}/${t}`)];
    for (const pr of verdict.before) {
      const gate = renderHumanGate({
        marker: `gate:${pr}:r${round}`,
        pr,
        winner: verdict.winner,
        candidates: verdict.before,
        change: change.number,
        title: display.titles?.[pr],
        why: verdict.why,
        criteria: change.criteria,
        evidence: evidence.get(pr),
        prefix: config.commands.prefix,
        mentions,
        losers,
        repoUrl,
        shadow,
      });
      // While a person must act the run asks for action (not a green success), wherever GitHub shows it.
      const conclusion: Conclusion = comparisonUrl ? 'action_required' : 'neutral';
      actions.push(
        selectionRun(
          pr,
          conclusion,
          verdict.winner === pr ? 'Selected: awaiting approval' : 'A person must choose',
          gate.split('\n').slice(1).join('\n').trim(),
          true,
        ),
      );
      actions.push({ kind: 'label', key: k(`label-awaiting/${pr}`), issue: pr, labels: [LABEL_AWAITING] });
      if (input.reviewers.users.length + input.reviewers.teams.length > 0) {
        actions.push({
          kind: 'request-review',
          key: k(`review/${pr}`),
          pr,
          reviewers: input.reviewers.users,
          teams: input.reviewers.teams,
        });
      }
      actions.push({
        kind: 'comment',
        key: k(`gate-note/${pr}`),
        issue: pr,
        marker: `gate:${pr}:r${round}`,
        body: gate,
      });
      actions.push({ kind: 'set-state', key: k(`state/${pr}`), pr, state: 'selected', reason: verdict.why });
    }
    actions.push({
      kind: 'receipt',
      key: k('receipt/human'),
      receipt: {
        kind: 'HUMAN_GATE',
        repo,
        change: change.number,
        round,
        at: input.now,
        data: { candidates: verdict.before, winner: verdict.winner, why: verdict.why },
      },
    });
  }
  // Shadow mode is applied by the executor (src/core/shadow.ts); the wording above says "would".
  return { verdict, receipt, actions };
}
