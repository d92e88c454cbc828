// Every key builder's output, pinned to the exact string the code before src/core/keys.ts built
// (the template it replaced is quoted beside each): a running deployment's stored rows and queued
// jobs are matched by these strings, so none may change.
import { describe, expect, it } from 'vitest';
import * as keys from '../../src/core/keys.ts';

const REPO = 'acme/widgets';
const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('key builders', () => {
  it.each([
    // new in issue 17: the subject of a check event's delivery (handlers/checks.ts)
    [keys.checkSubjectKey(REPO, SHA), `check-events:acme/widgets@${SHA}`],
    // select.ts: `${ctx.key}#${view.change.number}@${base.base}/r${view.round.number}/claim-repair`
    [keys.roundActKey(REPO, 7, 'main', 2, 'claim-repair'), 'acme/widgets#7@main/r2/claim-repair'],
    // new in issue 17: a group whose waiting lists are behind (workflows/select.ts, sweep.ts)
    [keys.waitingStaleKey(REPO, 7, 'main'), 'waiting-stale:acme/widgets#7@main'],
    // new in issue 26: the sweep's take of that mark, a run's marking of an auto-merge, a run's storing of an issue
    [keys.waitingTakenKey(REPO, 7, 'main', 'T', 'take'), 'waiting-taken:acme/widgets#7@main/T/take'],
    [
      keys.autoMergeMarkKey('acme/widgets#7/main/r1/auto', 'T', 'delivery:1'),
      'acme/widgets#7/main/r1/auto/mark/T/delivery:1',
    ],
    [keys.changeIssueKey(REPO, 7, 'T', 'delivery:1', 'd1'), 'acme/widgets#7/issue/T/delivery:1/d1'],
    // new in issue 30: a composing head whose hold on its round ran out (workflows/sweep.ts)
    [keys.composeTimeoutKey(REPO, 9, SHA), `compose-timeout:acme/widgets#9@${SHA}`],
    // new in issue 26: the sweep's take of a head's kept check events (core/plan/sweep.ts)
    [
      keys.keptTakenKey(REPO, SHA, '2026-01-02T03:04:05.000Z'),
      `kept-taken:acme/widgets@${SHA}/2026-01-02T03:04:05.000Z`,
    ],
    // new in issue 25: a round's view re-rendered for a state it reached (core/plan/views.ts)
    [keys.viewKey(REPO, 7, 'main', 2, 'merged@abc', 'comparison'), 'view:acme/widgets#7@main/r2/merged@abc/comparison'],
    // new in issue 26: an event or a replacement planned on a ledger fact (core/plan/trust.ts)
    [
      keys.factActKey(keys.trustAdoptedKey(REPO, 7), 'event', 'f00d', '2026-01-02T03:04:05.000Z'),
      'trust:adopted:acme/widgets#7/event/f00d/2026-01-02T03:04:05.000Z',
    ],
    // new in issue 26: a take of model calls from a Change's budget, never stored (workflows/acceptance.ts)
    [keys.modelBudgetKey(REPO, 7, '2026-01-02'), 'acme/widgets#7/model-budget/2026-01-02'],
    // `claim:${key}` (workflows/context.ts)
    [keys.claimKey('acme/widgets#7/merge'), 'claim:acme/widgets#7/merge'],
    // `action:${action.key}` (workflows/execute.ts)
    [keys.actionKey('acme/widgets#7@main/r2/close/9'), 'action:acme/widgets#7@main/r2/close/9'],
    // `round-done:${round.id}` (workflows/select.ts, portfolio-wide.ts)
    [keys.roundDoneKey(42), 'round-done:42'],
    // `repair:${ctx.key}#${action.change}` (workflows/execute.ts, select.ts)
    [keys.repairKey(REPO, 7), 'repair:acme/widgets#7'],
    // `repair:${change}` (the repair request's comment marker, core/plan)
    [keys.repairMarker(7), 'repair:7'],
    // `repair-expired:${ctx.key}#${change}@${repair.at}` (workflows/sweep.ts)
    [
      keys.repairExpiredKey(REPO, 7, '2026-01-02T03:04:05.000Z'),
      'repair-expired:acme/widgets#7@2026-01-02T03:04:05.000Z',
    ],
    // `repair-by-rejection:${ctx.key}#${change}` (workflows/repair-trigger.ts)
    [keys.repairByRejectionKey(REPO, 7), 'repair-by-rejection:acme/widgets#7'],
    // `trust:adopted:${ctx.key}#${issue}` (workflows/trust.ts)
    [keys.trustAdoptedKey(REPO, 7), 'trust:adopted:acme/widgets#7'],
    // `trust:admitted:${ctx.key}#${pr}` (workflows/trust.ts)
    [keys.trustAdmittedKey(REPO, 9), 'trust:admitted:acme/widgets#9'],
    // `${admittedKey(ctx, pr)}@${headSha}>${change ?? 'none'}` (workflows/trust.ts)
    [keys.trustAdmittedHeadKey(REPO, 9, SHA, 7), `trust:admitted:acme/widgets#9@${SHA}>7`],
    [keys.trustAdmittedHeadKey(REPO, 9, SHA, null), `trust:admitted:acme/widgets#9@${SHA}>none`],
    // `trust:selection-label:${ctx.key}#${pr}` (workflows/trust.ts)
    [keys.trustSelectionLabelKey(REPO, 9), 'trust:selection-label:acme/widgets#9'],
    [keys.trustLinkedKey(REPO, 9), 'trust:linked:acme/widgets#9'],
    // `head-config:${ctx.key}@${candidate.headSha}` (workflows/trust.ts)
    [keys.headConfigKey(REPO, SHA), `head-config:acme/widgets@${SHA}`],
    // `dashboard:${ctx.key}` (workflows/dashboard.ts) and `dashboard:${job.id}` (jobs/dashboard-job.ts)
    [keys.dashboardIssueKey(REPO), 'dashboard:acme/widgets'],
    [keys.dashboardJobToken('5f0c6d1e-job'), 'dashboard:5f0c6d1e-job'],
    // `${'dashboard-run:'}${ctx.key}@${minute}` (workflows/dashboard.ts)
    [keys.dashboardRunKey(REPO, 29_000_001), 'dashboard-run:acme/widgets@29000001'],
    // `dashboard-open:${ctx.key}@${Math.floor(now / OPEN_WINDOW_MS)}` (workflows/dashboard.ts)
    [keys.dashboardOpenKey(REPO, 2_900_000), 'dashboard-open:acme/widgets@2900000'],
    // The dashboard issue's writes as plan actions (core/plan/dashboard.ts): an edit is pruned with its minute.
    [keys.dashboardOpenedKey(REPO, 2_900_000), 'dashboard-open:acme/widgets@2900000/open'],
    [keys.dashboardEditKey(REPO, 29_000_001, 'ab12cd34'), 'dashboard-run:acme/widgets@29000001/edit/ab12cd34'],
    // `sweep:${now.toISOString()}` and `sweep:${c.repo}#${c.change}@${c.base}/r${round.number}` (workflows/sweep.ts)
    [keys.sweepToken('2026-01-02T03:04:05.000Z'), 'sweep:2026-01-02T03:04:05.000Z'],
    [keys.sweepRoundToken(REPO, 7, 'main', 3), 'sweep:acme/widgets#7@main/r3'],
    // `delivery:${id}` (workflows/context.ts)
    [keys.deliveryToken('d-1'), 'delivery:d-1'],
    // `gate-in-progress:${ctx.key}#${pr}@${candidate.headSha}` (workflows/verify.ts)
    [keys.gateInProgressKey(REPO, 9, SHA), `gate-in-progress:acme/widgets#9@${SHA}`],
    // `acceptance:${ctx.key}#${pr}@${sha}/${criteriaHash(change)}${opts.recheck ? `/recheck:${opts.recheck}` : ''}`
    [keys.acceptanceKey(REPO, 9, SHA, 'c0ffee'), `acceptance:acme/widgets#9@${SHA}/c0ffee`],
    [keys.acceptanceKey(REPO, 9, SHA, 'c0ffee', ''), `acceptance:acme/widgets#9@${SHA}/c0ffee`],
    [keys.acceptanceKey(REPO, 9, SHA, 'c0ffee', '123'), `acceptance:acme/widgets#9@${SHA}/c0ffee/recheck:123`],
    // `combined:${ctx.key}#${change}` (workflows/combine.ts) and `combined:${p.change}` (core/combine.ts marker)
    [keys.combinedRecordKey(REPO, 7), 'combined:acme/widgets#7'],
    [keys.combinedMarker(7), 'combined:7'],
    // A Change's combine and its build's steps (core/combine.ts, core/plan/combine-build.ts): as the build's store rows before its steps were actions
    [keys.combineKey(REPO, 7), 'acme/widgets#7/combine'],
    [keys.combineStepKey(REPO, 7, 'branch'), 'acme/widgets#7/combine/step/branch'],
    [keys.combineStepKey(REPO, 7, 'merge/12'), 'acme/widgets#7/combine/step/merge/12'],
    // A composite candidate's record and its plans' actions (workflows/candidate-set*.ts, core/plan/candidate-set.ts)
    [keys.candidateSetKey(REPO, 7, 'search'), 'candidate-set:acme/widgets#7/search'],
    [keys.candidateSetActionKey(REPO, 7, 'search', 'record/x'), 'candidate-set:acme/widgets#7/search>record/x'],
    [keys.candidateSetHeadKey(REPO, SHA), `candidate-set:acme/widgets@${SHA}`],
    [keys.candidateSetsOfChangePrefix(REPO, 7), 'candidate-set:acme/widgets#7/'],
    [keys.candidateSetsPrefix(), 'candidate-set:'],
    [
      keys.candidateSetAcceptanceKey(REPO, 7, 'search', `acme/api#7@${SHA},acme/ui#9@${SHA}`, 'c0ffee'),
      `candidate-set:acme/widgets#7/search>acceptance/c0ffee@acme/api#7@${SHA},acme/ui#9@${SHA}`,
    ],
    // A linked pull request that is not a candidate, named in its Change's comparison (workflows/not-compared.ts)
    [keys.notComparedKey(REPO, 7, 21), 'not-compared:acme/widgets#7/21'],
    [keys.notComparedPrefix(REPO, 7), 'not-compared:acme/widgets#7/'],
    [
      keys.candidateSetHoldTimeoutKey(REPO, 7, 'search', '2026-01-01T00:00:00.000Z'),
      'candidate-set:acme/widgets#7/search>hold-timeout@2026-01-01T00:00:00.000Z',
    ],
    // `check-id:${ctx.key}:${check.headSha}:${check.name}` and its siblings (workflows/execute.ts)
    [keys.checkIdKey(REPO, SHA, 'Arbiter / selection'), `check-id:acme/widgets:${SHA}:Arbiter / selection`],
    [
      keys.checkContentKey(REPO, SHA, 'Arbiter / selection', 'ab12'),
      `check-content:acme/widgets:${SHA}:Arbiter / selection:ab12`,
    ],
    // new with a check's content written again after it changed back (workflows/execute-checks.ts)
    [keys.checkShownKey(REPO, SHA, 'Arbiter / gate'), `check-shown:acme/widgets:${SHA}:Arbiter / gate`],
    [
      keys.checkNextKey(REPO, SHA, 'Arbiter / gate', 'first', 'ab12'),
      `check-next:acme/widgets:${SHA}:Arbiter / gate:first>ab12`,
    ],
    [keys.checkCreateKey(REPO, SHA, 'Arbiter / gate'), `check-create:acme/widgets:${SHA}:Arbiter / gate`],
    [
      keys.verifyActionKey(REPO, 7, 12, 'abc', 'T', 'delivery:d1', 'gate'),
      'acme/widgets#7/verify/12@abc/T/delivery:d1/gate',
    ],
    [
      keys.recordingActionKey(REPO, 7, 12, 'abc', 'T', 'delivery:d1', 'candidate'),
      'acme/widgets#7/recorded/12@abc/T/delivery:d1/candidate',
    ],
    [keys.rerunActionKey('acme/widgets#7/p1/rerun/31/r2'), 'acme/widgets#7/p1/rerun/31/r2/run'],
    [
      keys.checkWriteKey(REPO, SHA, 'Arbiter / gate', '0a1b2c3d'),
      `check-write:acme/widgets:${SHA}:Arbiter / gate:0a1b2c3d`,
    ],
    // `merge-retry:${action.key}:${i + 1}` (workflows/execute.ts)
    [keys.mergeRetryKey('acme/widgets#7@main/r2/merge', 2), 'merge-retry:acme/widgets#7@main/r2/merge:2'],
    // `branch-rules:${ctx.key}:${branch}:${window}` (workflows/branch-rules.ts)
    [keys.branchRulesKey(REPO, 'release/1.x', 4_830_000), 'branch-rules:acme/widgets:release/1.x:4830000'],
    // new with the auto-merge withdrawal: the auto-merge Arbiter enabled in a group (workflows/auto-merge-off.ts)
    [keys.autoMergeOnKey(REPO, 7, 'main'), 'auto-merge-on:acme/widgets#7@main'],
    // by PR and the head updated from (was `branch-updated:${repo}#${pr}`, which never let a later head be updated)
    [keys.branchUpdatedKey(REPO, 9, SHA), `branch-updated:acme/widgets#9@${SHA}`],
    // `reverify:${ctx.key}#${pr}@${sha}` (workflows/promote.ts)
    [keys.reverifyKey(REPO, 9, SHA), `reverify:acme/widgets#9@${SHA}`],
    // issue 26: the shapes of plans' action keys and comment markers, each as the template it replaced built
    // `${repo}#${change}` (workflows/sweep.ts, replay/stored.ts, store/budget-store.ts)
    [keys.changeId(REPO, 7), 'acme/widgets#7'],
    // `${c.repo}#${c.change}@${c.base}` (workflows/sweep.ts)
    [keys.groupId(REPO, 7, 'main'), 'acme/widgets#7@main'],
    // `${ctx.key}#${change.number}/late/${pull.number}@${pull.headSha}/${s}` (workflows/late-sibling.ts)
    [keys.changeActionKey(REPO, 7, 'late', `12@${SHA}`, 'close'), `acme/widgets#7/late/12@${SHA}/close`],
    // `${repo}#${change}/${input.base}/r${round}/repair-timeout/${s}` (core/plan/sweep.ts)
    [
      keys.changeActionKey(REPO, 7, 'main', 'r2', 'repair-timeout', 'note'),
      'acme/widgets#7/main/r2/repair-timeout/note',
    ],
    // `${ctx.key}#${change}/p${portfolio}/empty` (workflows/portfolio-sweep.ts)
    [keys.changeActionKey(REPO, 7, 'p3', 'empty'), 'acme/widgets#7/p3/empty'],
    // new in issue 26: an action of the sweep's time-out of a head (core/plan/sibling-timeout.ts)
    [
      keys.siblingTimeoutKey(REPO, 7, 9, SHA, '2026-01-02T03:04:05.000Z', 'state'),
      `acme/widgets#7/timeout/9@${SHA}/2026-01-02T03:04:05.000Z/state`,
    ],
    // `${ctx.key}#${change.number}/p${p.number}/request/${s.slot}` (workflows/portfolio.ts)
    [keys.portfolioActionKey(REPO, 7, 2, 'request', '7-2-1'), 'acme/widgets#7/p2/request/7-2-1'],
    // `none-left:${candidate.change}:${candidate.base}` (workflows/people.ts)
    [keys.markerKey('none-left', 7, 'main'), 'none-left:7:main'],
    // `rejected:${pr}` (core/plan/person.ts)
    [keys.markerKey('rejected', 12), 'rejected:12'],
  ])('%s', (built, expected) => {
    expect(built).toBe(expected);
  });

  it('reads the delivery back out of a token as /^delivery:(.+)$/ did', () => {
    expect(keys.deliveryOfToken('delivery:d-1')).toBe('d-1');
    expect(keys.deliveryOfToken('delivery:')).toBeNull();
    expect(keys.deliveryOfToken('sweep:2026-01-02T03:04:05.000Z')).toBeNull();
    expect(keys.deliveryOfToken('dashboard:delivery:x')).toBeNull();
  });

  it('tells a sweep token from the others', () => {
    expect(keys.isSweepToken(keys.sweepToken('2026-01-02T03:04:05.000Z'))).toBe(true);
    expect(keys.isSweepToken(keys.sweepRoundToken(REPO, 7, 'main', 3))).toBe(true);
    expect(keys.isSweepToken(keys.deliveryToken('d-1'))).toBe(false);
  });

  it('the dashboard runs the sweep prunes share one prefix', () => {
    expect(keys.dashboardRunKey(REPO, 1).startsWith(keys.KEY_NAMESPACES.dashboardRun)).toBe(true);
    expect(keys.dashboardEditKey(REPO, 1, 'x').startsWith(keys.KEY_NAMESPACES.dashboardRun)).toBe(true);
    expect(keys.KEY_NAMESPACES.dashboardRun).toBe('dashboard-run:');
  });

  it('the run records the sweep prunes by pattern are those of one run, never a round’s', () => {
    const verify = new RegExp(keys.VERIFY_RUN_RECORDS);
    const run = keys.verifyActionKey(REPO, 7, 12, SHA, '2026-01-02T03:04:05.000Z', 'delivery:1', 'gate:ab');
    expect(verify.test(run)).toBe(true);
    expect(verify.test(keys.claimKey(keys.actionKey(run)))).toBe(true);
    expect(verify.test(keys.changeActionKey(REPO, 7, 'main/r2', 'after', 'verify', 'moved', 12))).toBe(false);
    expect(verify.test(keys.changeActionKey(REPO, 7, 'verify', 'r1', 'select'))).toBe(false);
    const issue = new RegExp(keys.CHANGE_ISSUE_RECORDS);
    expect(issue.test(keys.changeIssueKey(REPO, 7, '2026-01-02T03:04:05.000Z', 'delivery:1', 'd1'))).toBe(true);
    expect(issue.test(keys.changeActionKey(REPO, 7, 'issue', 'r1', 'select'))).toBe(false);
  });
});
