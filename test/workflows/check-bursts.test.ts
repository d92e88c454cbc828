// A burst of check events (CI reports each run and suite on its own): of the deliveries still
// pending on one head, or on the heads of one small group, only the last reads GitHub. A small
// group settles in that one run, with one read and no waiting lists; a large one costs a read per
// head, not per event.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { intakeSubject } from '../../src/core/check-subject.ts';
import { deliveryToken } from '../../src/core/keys.ts';
import { onCheckEvent } from '../../src/handlers/checks.ts';
import { GROUP_VERIFY_MAX } from '../../src/workflows/flow.ts';
import { KEPT_HEAD_GRACE_SECONDS, verifyKeptHeads } from '../../src/workflows/sweep.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

const PENDING = [{ name: 'test', conclusion: 'pending' as const }];

interface Event {
  id: string;
  name: 'check_run' | 'check_suite';
  payload: Record<string, unknown>;
}

/** CI passes on every head: a check run and its suite complete, two deliveries per head, recorded at once. */
async function ciPassesEverywhere(opened: OpenedBackend, world: World, prs: number[]): Promise<Event[]> {
  const repository = { full_name: `${world.gh.owner}/${world.gh.repo}` };
  const events: Event[] = [];
  for (const pr of prs) {
    world.gh.pull(pr).checks = [{ name: 'test', conclusion: 'success' }];
    const sha = shaOf(pr);
    events.push(
      {
        id: `run-${pr}`,
        name: 'check_run',
        payload: {
          action: 'completed',
          repository,
          check_run: { name: 'test', head_sha: sha, status: 'completed', app: { slug: 'ci' } },
        },
      },
      {
        id: `suite-${pr}`,
        name: 'check_suite',
        payload: { action: 'completed', repository, check_suite: { head_sha: sha, app: { slug: 'ci' } } },
      },
    );
  }
  await opened.store.recordDeliveries(
    events.map((e) => ({
      id: e.id,
      event: e.name,
      payload: e.payload,
      subject: intakeSubject(e.name, e.payload, world.gh.appSlug),
    })),
  );
  return events;
}

/** Each delivery's job, one after the other, as the workers take them. */
async function runJobs(opened: OpenedBackend, world: World, events: Event[]): Promise<void> {
  for (const e of events) {
    await onCheckEvent(world.ctx(deliveryToken(e.id)), e.payload, e.name);
    await opened.store.markDeliveryDone(e.id);
  }
}

describe('check events that land together', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-check-bursts');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('a small group: one read of the group, every sibling settled, no waiting list', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    const prs = [100, 101, 102];
    await seedGroup(world, { criteria: [], siblings: prs.map((pr) => ({ pr, checks: PENDING, acceptance: null })) });
    const events = await ciPassesEverywhere(opened, world, prs);
    world.gh.resetRecord();
    await runJobs(opened, world, events);
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toEqual([
      'graphql ArbiterGroup #100,#101,#102',
    ]);
    for (const pr of prs)
      expect((await opened.store.getCandidate(world.ctx('x').key, pr))?.state).not.toBe('verifying');
    expect(world.gh.writes.filter((w) => w.includes('Waiting on'))).toEqual([]);
    // The one run that read decided the round.
    expect((await opened.store.currentRound(world.ctx('x').key, 42, 'main', 'now')).decision).not.toBeNull();
  });

  it(`a group larger than ${GROUP_VERIFY_MAX}: one read per head, not per event`, async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    const prs = Array.from({ length: GROUP_VERIFY_MAX + 1 }, (_, i) => 200 + i);
    await seedGroup(world, { criteria: [], siblings: prs.map((pr) => ({ pr, checks: PENDING, acceptance: null })) });
    const events = await ciPassesEverywhere(opened, world, prs);
    world.gh.resetRecord();
    await runJobs(opened, world, events);
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toHaveLength(prs.length);
    for (const pr of prs)
      expect((await opened.store.getCandidate(world.ctx('x').key, pr))?.state).not.toBe('verifying');
  });

  it('a head left to a sibling that then leaves the group is kept, and the sweep verifies it', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    const key = `${world.gh.owner}/${world.gh.repo}`;
    await seedGroup(world, {
      criteria: [],
      siblings: [100, 101].map((pr) => ({ pr, checks: PENDING, acceptance: null })),
    });
    // CI passes on #100, then a check concludes on #101: #100's last job leaves its head to #101's.
    const events = await ciPassesEverywhere(opened, world, [100, 101]);
    world.gh.resetRecord();
    await runJobs(opened, world, events.slice(0, 2));
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toEqual([]);
    // #101 leaves the group (withdrawn) before its events' jobs run: they verify #101 alone.
    await opened.store.setCandidateState(key, 101, 'withdrawn', 'closed by @maintainer');
    await runJobs(opened, world, events.slice(2));
    expect((await opened.store.getCandidate(key, 100))?.state).toBe('verifying');
    // The sweep a minute on verifies the head nobody did.
    world.clock.advance(KEPT_HEAD_GRACE_SECONDS * 1000 + 1000);
    await verifyKeptHeads(world.deps, world.clock.now(), async () => world.ctx('sweep:kept'));
    // Settled, and (its sibling gone) decided alone.
    expect((await opened.store.getCandidate(key, 100))?.state).toBe('selected');
    expect(world.gh.checkOn(100, 'Arbiter / gate')?.conclusion).toBe('success');
    // Taken: a second sweep has nothing to do.
    world.gh.resetRecord();
    await verifyKeptHeads(world.deps, world.clock.now(), async () => world.ctx('sweep:kept-2'));
    expect(world.gh.reads).toEqual([]);
  });

  it('a check queued or started asks for nothing', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    await seedGroup(world, { criteria: [], siblings: [{ pr: 300, checks: PENDING, acceptance: null }] });
    const payload = {
      action: 'created',
      repository: { full_name: `${world.gh.owner}/${world.gh.repo}` },
      check_run: { name: 'test', head_sha: shaOf(300), status: 'queued', app: { slug: 'ci' } },
    };
    await onCheckEvent(world.ctx(deliveryToken('queued')), payload, 'check_run');
    expect(world.gh.reads).toEqual([]);
    expect(world.gh.writes).toEqual([]);
  });
});
