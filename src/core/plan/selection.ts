// Outcome planning (DESIGN.md section 6): ranking, judge, evidence and policy in; a verdict (verdict.ts)
// and the list of actions that carry it out. Pure: no I/O, no clock (time is passed in).
import { renderRankingTable, renderReceiptText } from '../render/check-text.ts';
import type { ComparisonRow } from '../render/markdown.ts';
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { winnerSummary } from '../reasons.ts';
import type { RankedCandidate } from '../types.ts';
import { selectionConfigOf, type Receipt, type SelectionInputs, type SelectionReceipt } from '../receipt.ts';
import type { SelectionPlan, Verdict } from '../plan-schema.ts';
import { describePlan } from '../replay-lines.ts';
import { byPr, decide, mergePathOf, type SelectionInput } from './verdict.ts';
import { pathWords, promotion } from './merge-path.ts';
import { bringBackWords, outcomeText, reasonsFor } from './outcome-text.ts';
import { humanGateReceipt, planHumanGate } from './human-gate.ts';
import { comparisonBody, comparisonMarker, comparisonRows } from './comparison.ts';
import { heldSources, heldWords } from '../combine.ts';
import { setRows, setsInRound, setTableRows, withSets, type SetRows } from './set-round.ts';

export { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { repairMarker } from '../keys.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';

export type { SelectionDisplay } from '../receipt.ts';
export type { SelectionPlan, Verdict } from '../plan-schema.ts';

export { decide, type SelectionInput } from './verdict.ts';

/**
 * Turns a verdict into receipts, comments, check runs, closures, labels and the promotion. The
 * selection receipt keeps the inputs and one line per planned action, so it can be replayed.
 */
/**
 * A person's decision as shadow mode says it: nothing ships on an approval there, so the live
 * words "Approve to ship it" would promise what cannot happen.
 */
function personWhy(config: ModeConfig, why: string): string {
  const asked = why.replace(/ Approve to ship it( as it is)? or cancel the change\.$/, '');
  return inMode(config, {
    live: why,
    shadow: `Shadow mode: a person would decide. ${asked} In live mode an approval would ship it; in shadow mode nothing ships.`,
  });
}

export function planSelection(input: SelectionInput): SelectionPlan {
  // The Change's candidate sets: their lines in the comparison, their rows in the receipt, their actions.
  const sets = setsInRound(input);
  const planned = planOutcome(
    { ...input, notes: [...(input.notes ?? []), ...sets.notes] },
    (v) => setRows(sets, v),
    sets.ships,
  );
  const plan = withSets(planned, input, sets);
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

/**
 * `setShips`: a set of other repositories wins and ships by itself. No pull request of this
 * repository wins, so the verdict holds no winner (a person's kind, with nobody before a person),
 * but nobody is asked: its receipt says ship, and no person's gate is put up (core/plan/set-win.ts).
 */
function planOutcome(input: SelectionInput, setRowsOf: (verdict: Verdict) => SetRows, setShips = false): SelectionPlan {
  const verdict = decide(input);
  const setRows = setRowsOf(verdict);
  const { repo, change, round, ranking, config } = input;
  // Each base branch is its own group with its own rounds: its actions are its own too.
  const k = (suffix: string): string => `${repo}#${change.number}@${input.base}/r${round}/${suffix}`;
  const evidence = byPr(input.siblings);
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
      verdict: setShips ? 'ship' : verdict.kind,
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
      ...(setRows.length > 0 ? { sets: setRows } : {}),
    },
  };
  const path = verdict.kind === 'ship' ? mergePathOf(input, verdict.winner) : null;
  const headline =
    verdict.kind === 'ship'
      ? `#${verdict.winner} wins: ${winnerSummary(ranked.get(verdict.winner)!, change.criteria.length)}. ${pathWords(path!, config)} (${verdict.risk.risk} risk).`
      : verdict.kind === 'repair'
        ? `#${verdict.target} is the best candidate; ${inMode(config, { live: 'a repair is requested', shadow: 'Arbiter would ask for one repair' })}: ${verdict.objective}.`
        : personWhy(config, verdict.why);
  // Kept in the receipt, so the next round's comparison can list this one below it.
  receipt.data.headline = headline;
  const display = input.display ?? {};
  const repoUrl = display.repoUrl ?? null;
  const chosen = verdict.kind === 'ship' ? verdict.winner : verdict.kind === 'repair' ? verdict.target : verdict.winner;
  const rows: ComparisonRow[] = comparisonRows(
    input,
    ranking,
    (pr) => outcomeText(verdict, pr, reasons, config, path),
    chosen,
  );
  const marker = comparisonMarker(change.number, input.base);
  const comparison = (key: string, title: string, lines: ComparisonRow[]): Action => ({
    kind: 'comment',
    key: k(key),
    issue: change.number,
    marker,
    body: comparisonBody(input, receipt, title, lines),
  });
  const actions: Action[] = [comparison('comparison', headline, rows)];
  // For a ship verdict the losers close only after the merge succeeded (executeDecision).
  const lost: Action[] = [];
  const setTable = setTableRows(setRows, ranking);
  const text = [renderRankingTable(ranking, repoUrl, setTable), '', renderReceiptText(receipt)].join('\n');
  const comparisonUrl = repoUrl ? `${repoUrl}/issues/${change.number}` : undefined;
  type Conclusion = 'success' | 'neutral' | 'action_required';
  // The chosen candidate, else (a tie before a person) the first of the tied.
  const receiptHolder = chosen ?? (verdict.kind === 'human' ? verdict.before[0] : null);
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
    // The receipt is folded into one check only, the chosen candidate's (every sibling's check links the comparison).
    text: pr === receiptHolder ? text : undefined,
    buttons: buttons ? input.buttons : undefined,
    // Every selection check links the comparison on the Change (GitHub shows an action_required run only with one).
    ...(comparisonUrl ? { detailsUrl: comparisonUrl } : {}),
  });
  const held = verdict.kind === 'human' ? heldSources(input.combined, verdict.before) : [];
  for (const pr of losers) {
    const reason = reasons.get(pr)!;
    if (held.includes(pr) && input.combined) {
      // Open, with its Promote button: a person may still choose it over the combined candidate.
      const { summary } = heldWords(input.combined.pr, pr, input.combined.sources, config.commands.prefix);
      lost.push(selectionRun(pr, 'neutral', reason.split(':')[0], summary, true), {
        kind: 'comment',
        key: k(`note/${pr}`),
        issue: pr,
        marker: `note:${pr}:r${round}`,
        body: `${markerFor(`note:${pr}:r${round}`)}\n${summary} See the comparison on #${change.number}.`,
      });
      continue;
    }
    const would = inMode(config, { live: '', shadow: 'Shadow mode: Arbiter would close this candidate. ' });
    // Every closed loser's comment ends with how to bring it back (a ship verdict's close after its merge).
    const shipped = verdict.kind === 'ship' ? verdict.winner : null;
    const back = inMode(config, {
      live: ` ${bringBackWords(config.commands.prefix, change.number, shipped)}`,
      shadow: '',
    });
    // The title is the head of the reason: "Lost to #13" (before its ", which …" or ": …").
    lost.push(selectionRun(pr, 'neutral', reason.split(/[:,]/)[0], reason));
    lost.push({
      kind: 'comment',
      key: k(`note/${pr}`),
      issue: pr,
      marker: `note:${pr}:r${round}`,
      body: `${markerFor(`note:${pr}:r${round}`)}\n${would}${reason} See the comparison on #${change.number}.${back}`,
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
    // mode merges nothing: the filter keeps the merge back, and `afterShip` follows at once, its
    // check saying what would ship.
    const shipped: Action[] = [
      {
        ...selectionRun(
          w,
          'success',
          inMode(config, { live: 'Selected: shipped', shadow: 'Shadow: would ship' }),
          inMode(config, { live: `${headline}\n\n#${w} was merged.`, shadow: headline }),
        ),
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
    // A strict branch: the winner may be behind its base, and then its branch is updated first
    // (shadow mode updates nothing: the filter keeps the update back, and no answer follows).
    const strict = input.merge?.[String(w)]?.strict === true;
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
      verdict.unmet.length > 0
        ? `not met: ${verdict.unmet.map((c) => `${c.id} ${c.text}${c.check ? ` (its check \`${c.check}\` did not pass)` : ''}`).join('; ')}`
        : e.gate.reason;
    // A criterion judged by a check is repaired by making that check pass: the note names it.
    const byCheck = verdict.unmet.filter((c) => c.check);
    const checkWords =
      byCheck.length > 0
        ? ` ${byCheck.map((c) => `${c.id} is judged by the check \`${c.check}\`, which did not pass on #${t}`).join('; ')}.`
        : '';
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
    const asked = inMode(config, {
      live: `Arbiter asked for one more attempt (${reason}). A push to this branch or a new candidate for #${change.number} opens the next round.`,
      shadow: `Shadow mode: Arbiter would ask for one more attempt (${reason}); nothing was dispatched.`,
    });
    actions.push(
      selectionRun(
        t,
        'neutral',
        inMode(config, { live: 'Repair requested', shadow: 'Shadow: would ask for a repair' }),
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
      body: `${markerFor(repairMarker(change.number))}\n${inMode(config, {
        live: `Arbiter requested one repair of #${t} (objective: ${verdict.objective}).${checkWords} If nothing arrives within ${Math.round(config.repair.timeout / 60)} minutes, the change goes to a person.`,
        shadow: `Shadow mode: Arbiter would ask for one repair of #${t} (objective: ${verdict.objective}); nothing was dispatched and the Change's one repair is still unused.`,
      })}`,
    });
  } else if (!setShips) {
    actions.push(
      ...planHumanGate({
        repo,
        change,
        base: input.base,
        before: verdict.before,
        winner: verdict.winner,
        why: personWhy(config, verdict.why),
        evidence,
        heads: new Map([...evidence].map(([pr, e]) => [pr, e.headSha])),
        titles: display.titles,
        repoUrl,
        prefix: config.commands.prefix,
        reviewers: input.reviewers,
        config,
        losers,
        buttons: input.buttons,
        text,
        key: k,
      }),
    );
    for (const pr of verdict.before)
      actions.push({ kind: 'set-state', key: k(`state/${pr}`), pr, state: 'selected', reason: verdict.why });
    actions.push(
      humanGateReceipt(
        k('receipt/human'),
        { repo, change: change.number, round, now: input.now },
        { candidates: verdict.before, winner: verdict.winner, why: verdict.why },
      ),
    );
  }
  // Shadow mode is applied by the executor (src/core/shadow.ts); the wording above says "would".
  return { verdict, receipt, actions };
}
