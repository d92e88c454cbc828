// The sweep's prune of the applied-actions ledger, on PGlite and on PostgreSQL: a kept check event's
// keeping and taking, a verification's records and a run's storing of a Change's issue (each with
// the executor's claim of it) go once old enough; the same records of a recent run stay, and so does every record that is read later
// (a Change's acceptance claim, a round's actions, a mark, a head's first gate table).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  actionKey,
  acceptanceKey,
  autoMergeOnKey,
  branchRulesKey,
  changeActionKey,
  changeIssueKey,
  claimKey,
  dashboardRunKey,
  gateInProgressKey,
  keptCheckKey,
  verifyActionKey,
  waitingStaleKey,
  waitingTakenKey,
} from '../../src/core/keys.ts';
import { planUpkeep, RUN_RECORD_HOURS } from '../../src/core/plan/upkeep.ts';
import { DASHBOARD_RUN_PREFIXES } from '../../src/workflows/dashboard.ts';
import { executeUpkeep } from '../../src/workflows/execute-records.ts';
import { BACKENDS, openBackend, type OpenedBackend } from './backends.ts';

const REPO = 'acme/todo';
const NOW = '2026-03-02T12:00:00.000Z';
const HOUR = 3_600_000;
const before = (hours: number): string => new Date(Date.parse(NOW) - hours * HOUR).toISOString();
/** Just past the horizon of a run's records, and well within it. */
const OLD = before(RUN_RECORD_HOURS + 1);
const RECENT = before(2);

/** A key and the executor's claim of it: the two rows one applied action writes. */
const withClaim = (key: string): string[] => [key, claimKey(actionKey(key))];

const keptRecords = (at: string, token: string): string[] => [
  ...withClaim(keptCheckKey(REPO, 'abc123', at, token, 'keep')),
  ...withClaim(keptCheckKey(REPO, 'abc123', at, token, 'take')),
];
const issueRecords = (at: string, token: string): string[] => withClaim(changeIssueKey(REPO, 7, at, token, '9f8e'));
const verifyRecords = (at: string, token: string): string[] => [
  ...withClaim(verifyActionKey(REPO, 7, 12, 'abc123', at, token, 'gate:1a2b')),
  ...withClaim(verifyActionKey(REPO, 7, 12, 'abc123', at, token, 'acceptance:3c4d')),
  ...withClaim(verifyActionKey('acme/verify', 7, 12, 'def456', at, token, 'state:verified')),
];

describe.each(BACKENDS)('the sweep prune on %s', (backend) => {
  let b: OpenedBackend;
  beforeAll(async () => {
    b = await openBackend(backend, 'prune');
  });
  afterAll(async () => b?.dispose());
  beforeEach(async () => b.truncate());

  const record = async (keys: string[], at: string): Promise<void> => {
    for (const key of keys) await b.store.recordAppliedAction(key, { token: 'delivery:x' }, at);
  };
  const present = async (keys: string[]): Promise<string[]> => [...(await b.store.getAppliedActions(keys)).keys()];
  const prune = () => executeUpkeep(b, planUpkeep({ dashboardRuns: DASHBOARD_RUN_PREFIXES }, NOW));

  it('prunes the records of old runs on a head, and keeps those of recent runs', async () => {
    const runs = (at: string, token: string): string[] => [
      ...keptRecords(at, token),
      ...verifyRecords(at, token),
      ...issueRecords(at, token),
    ];
    const old = runs(OLD, 'delivery:old');
    const recent = runs(RECENT, 'delivery:new');
    await record(old, OLD);
    await record(recent, RECENT);
    await prune();
    expect(await present(old)).toEqual([]);
    expect((await present(recent)).sort()).toEqual([...recent].sort());
  });

  it('keeps every old record that a later run reads', async () => {
    const read = [
      // The one judgement of acceptance for a head: a head verified again reads it.
      claimKey(acceptanceKey(REPO, 12, 'abc123', 'crit1')),
      // A round's action on a moved head (`…/verify/moved/12`): a resumed round reads it.
      ...withClaim(changeActionKey(REPO, 7, 'main/r2', 'after', 'verify', 'moved', 12)),
      // A round on a base named `verify`, and one on a base named `issue`.
      changeActionKey(REPO, 7, 'verify', 'r1', 'select', 'state', 12),
      changeActionKey(REPO, 7, 'issue', 'r1', 'select', 'state', 12),
      gateInProgressKey(REPO, 12, 'abc123'),
      waitingStaleKey(REPO, 7, 'main'),
      autoMergeOnKey(REPO, 7, 'main'),
    ];
    await record(read, OLD);
    await prune();
    expect((await present(read)).sort()).toEqual([...read].sort());
  });

  it("prunes the dashboard's claims, the sweep's takes of a mark and a branch's rules after an hour", async () => {
    const hourly = [
      dashboardRunKey(REPO, 1000),
      claimKey(actionKey(dashboardRunKey(REPO, 1000))),
      ...withClaim(branchRulesKey(REPO, 'main', 5000)),
      ...withClaim(waitingTakenKey(REPO, 7, 'main', before(2), 'take')),
    ];
    const fresh = withClaim(waitingTakenKey(REPO, 7, 'main', before(0.5), 'take'));
    await record(hourly, before(2));
    await record(fresh, before(0.5));
    await prune();
    expect(await present(hourly)).toEqual([]);
    expect((await present(fresh)).sort()).toEqual([...fresh].sort());
  });

  it('prunes kept check events nobody took within a day', async () => {
    await b.store.keepCheckEvent(REPO, 'old', OLD);
    await b.store.keepCheckEvent(REPO, 'new', RECENT);
    await prune();
    expect(await b.store.listKeptCheckEvents(NOW, 10)).toEqual([{ repo: REPO, headSha: 'new' }]);
  });
});
