// Realistic CI (issue 28): most check events conclude checks nobody requires. Such an event,
// while a required check still runs, is recorded without reading GitHub; a required check's
// conclusion always reads and leads to the decision, however its deliveries are ordered, and an
// earlier delivery never leaves its read to a later one that may read nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { intakeCheckName, intakeSubject } from '../../src/core/check-subject.ts';
import { deliveryToken } from '../../src/core/keys.ts';
import { onCheckEvent } from '../../src/handlers/checks.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import type { FakeCheck } from '../support/fake-github.ts';
import { configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

const RUNNING: FakeCheck[] = [
  { name: 'test', conclusion: 'success' },
  { name: 'lint', conclusion: 'pending' },
  { name: 'docs', conclusion: 'pending' },
  { name: 'coverage', conclusion: 'pending' },
];
const DONE: FakeCheck[] = [
  { name: 'test', conclusion: 'success' },
  { name: 'lint', conclusion: 'success' },
  { name: 'docs', conclusion: 'success' },
  { name: 'coverage', conclusion: 'success' },
];
const groupReads = (world: World) => world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'));

/** One check run's `completed` delivery on a PR's head, recorded as the intake records it. */
function completed(world: World, id: string, pr: number, name: string, conclusion = 'success') {
  const payload = {
    action: 'completed',
    repository: { full_name: `${world.gh.owner}/${world.gh.repo}` },
    check_run: { name, head_sha: shaOf(pr), status: 'completed', conclusion, app: { slug: 'ci' } },
  };
  return { id, payload };
}

async function record(opened: OpenedBackend, world: World, events: ReturnType<typeof completed>[]) {
  await opened.store.recordDeliveries(
    events.map((e) => ({
      id: e.id,
      event: 'check_run',
      payload: e.payload,
      subject: intakeSubject('check_run', e.payload, world.gh.appSlug),
      check: intakeCheckName('check_run', e.payload, world.gh.appSlug),
    })),
  );
}

async function runJobs(opened: OpenedBackend, world: World, events: ReturnType<typeof completed>[]) {
  for (const e of events) {
    await onCheckEvent(world.ctx(deliveryToken(e.id)), e.payload, 'check_run');
    await opened.store.markDeliveryDone(e.id);
  }
}

const permutations = <T>(xs: T[]): T[][] =>
  xs.length <= 1
    ? [xs]
    : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));

describe('check events of checks nobody requires', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-check-reads');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  /** #100 still runs `lint` (required); its siblings settled. */
  async function group(config = configOf({ gate: { required: ['test', 'lint'] } })): Promise<World> {
    const world = makeWorld({ store: opened.store, config });
    await seedGroup(world, {
      criteria: [],
      siblings: [
        { pr: 100, checks: RUNNING, acceptance: null },
        { pr: 101, checks: DONE },
        { pr: 102, checks: DONE },
      ],
    });
    return world;
  }
  const decided = async (world: World) =>
    (await opened.store.currentRound(world.ctx('x').key, 42, 'main', 'now')).decision !== null;

  it('one that concludes while a required check runs reads nothing and writes nothing', async () => {
    const world = await group();
    world.gh.pull(100).checks = [...RUNNING.slice(0, 2), { name: 'docs', conclusion: 'success' }, RUNNING[3]];
    const events = [completed(world, 'docs', 100, 'docs')];
    await record(opened, world, events);
    await runJobs(opened, world, events);
    expect(world.gh.reads).toEqual([]);
    expect(world.gh.writes).toEqual([]);
    expect((await opened.store.getCandidate(world.ctx('x').key, 100))?.state).toBe('verifying');
  });

  it('the required check’s conclusion reads and decides, in every order of the deliveries', async () => {
    for (const order of permutations(['lint', 'docs', 'coverage'])) {
      await opened.truncate();
      const world = await group();
      world.gh.pull(100).checks = DONE;
      // All three pending at once, received in this order (ids sort so): each job sees those after it as later.
      const events = order.map((name, i) => completed(world, `${i}:${name}`, 100, name));
      await record(opened, world, events);
      await runJobs(opened, world, events);
      // Never left to a later delivery of a check nobody requires: `lint` read (once), and decided.
      expect(groupReads(world).length, order.join(', ')).toBeGreaterThanOrEqual(1);
      expect(await decided(world), order.join(', ')).toBe(true);
      expect((await opened.store.getCandidate(world.ctx('x').key, 100))?.state, order.join(', ')).not.toBe('verifying');
    }
  });

  it('a delivery of a required check still leaves its read to a later one that reads', async () => {
    const world = await group(configOf({ gate: { required: ['test', 'lint', 'coverage'] } }));
    world.gh.pull(100).checks = DONE;
    const events = [completed(world, 'e1', 100, 'lint'), completed(world, 'e2', 100, 'coverage')];
    await record(opened, world, events);
    await runJobs(opened, world, events);
    expect(groupReads(world)).toHaveLength(1);
    expect(await decided(world)).toBe(true);
  });

  it('once every required check concluded, one nobody requires reads nothing; the sibling’s still decides', async () => {
    const world = makeWorld({ store: opened.store, config: configOf({ gate: { required: ['test', 'lint'] } }) });
    await seedGroup(world, {
      criteria: [],
      siblings: [
        { pr: 100, checks: RUNNING, acceptance: null },
        { pr: 101, checks: RUNNING, acceptance: null },
      ],
    });
    // `lint` passed on #100 and was read (#101 still runs, so nothing is decided); `docs` then concludes.
    world.gh.pull(100).checks = [...DONE.slice(0, 2), ...RUNNING.slice(2)];
    const lint = [completed(world, 'lint', 100, 'lint')];
    await record(opened, world, lint);
    await runJobs(opened, world, lint);
    expect(await decided(world)).toBe(false);
    world.gh.resetRecord();
    world.gh.pull(100).checks = [...DONE.slice(0, 3), RUNNING[3]];
    const docs = [completed(world, 'docs', 100, 'docs')];
    await record(opened, world, docs);
    await runJobs(opened, world, docs);
    // #100's gate settled when `lint` was read, and that read ran its selection step: `docs` changes
    // only the count of passing checks, which the selection reads fresh.
    expect(groupReads(world)).toHaveLength(0);
    world.gh.pull(101).checks = DONE;
    const last = [completed(world, 'lint-101', 101, 'lint')];
    await record(opened, world, last);
    await runJobs(opened, world, last);
    expect(groupReads(world)).toHaveLength(1);
    expect(await decided(world)).toBe(true);
  });

  it('the branch’s rules require checks too; with neither config nor rules every check reads', async () => {
    const ruled = await group(configOf({ gate: { required: [] } }));
    ruled.gh.branch.required = ['test', 'lint'];
    // The stored gates were computed without rules: recompute them as the app would have.
    await opened.truncate();
    const world = makeWorld({ store: opened.store, gh: ruled.gh, config: configOf({ gate: { required: [] } }) });
    await seedGroup(world, {
      criteria: [],
      siblings: [
        { pr: 100, checks: RUNNING, acceptance: null },
        { pr: 101, checks: DONE },
      ],
    });
    const docs = [completed(world, 'docs', 100, 'docs')];
    await record(opened, world, docs);
    await runJobs(opened, world, docs);
    expect(groupReads(world)).toEqual([]);

    await opened.truncate();
    const every = makeWorld({ store: opened.store, config: configOf({ gate: { required: [] } }) });
    every.gh.branch.required = null;
    await seedGroup(every, { criteria: [], siblings: [{ pr: 100, checks: RUNNING, acceptance: null }] });
    const again = [completed(every, 'docs-2', 100, 'docs')];
    await record(opened, every, again);
    await runJobs(opened, every, again);
    expect(every.gh.reads.length).toBeGreaterThan(0);
  });
});

describe('check events of required checks that pass while another has not reported', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-check-reads-required');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  const REQUIRED = configOf({ gate: { required: ['test', 'lint', 'coverage'] } });
  const PENDING: FakeCheck[] = DONE.map((c) => ({ ...c, conclusion: 'pending' }));
  const decided = async (world: World) =>
    (await opened.store.currentRound(world.ctx('x').key, 42, 'main', 'now')).decision !== null;

  /** #100 still runs all three required checks; its siblings settled. */
  async function group(): Promise<World> {
    const world = makeWorld({ store: opened.store, config: REQUIRED });
    await seedGroup(world, {
      criteria: [],
      siblings: [
        { pr: 100, checks: PENDING, acceptance: null },
        { pr: 101, checks: DONE },
        { pr: 102, checks: DONE },
      ],
    });
    return world;
  }

  it('each reads nothing until the last one is delivered, in every order; that one reads and decides', async () => {
    for (const order of permutations(['test', 'lint', 'coverage'])) {
      await opened.truncate();
      const world = await group();
      // Delivered one at a time, minutes apart: each job runs before the next check concludes.
      const reads: number[] = [];
      for (const [i, name] of order.entries()) {
        const done = new Set(order.slice(0, i + 1));
        world.gh.pull(100).checks = DONE.map((c) => (done.has(c.name) ? c : { ...c, conclusion: 'pending' }));
        world.gh.resetRecord();
        const event = [completed(world, `${i}:${name}`, 100, name)];
        await record(opened, world, event);
        await runJobs(opened, world, event);
        reads.push(groupReads(world).length);
      }
      expect(reads, order.join(', ')).toEqual([0, 0, 1]);
      expect(await decided(world), order.join(', ')).toBe(true);
    }
  });

  it('the last of a head’s required checks leaves its read to no sibling’s pass that waits in turn', async () => {
    const world = makeWorld({ store: opened.store, config: REQUIRED });
    await seedGroup(world, {
      criteria: [],
      siblings: [
        { pr: 100, checks: PENDING, acceptance: null },
        { pr: 101, checks: PENDING, acceptance: null },
      ],
    });
    // #100's test and lint came and read nothing (coverage had sent nothing yet).
    world.gh.pull(100).checks = DONE.map((c) => (c.name === 'coverage' ? { ...c, conclusion: 'pending' } : c));
    const early = [completed(world, 'a:test', 100, 'test'), completed(world, 'b:lint', 100, 'lint')];
    for (const e of early) {
      await record(opened, world, [e]);
      await runJobs(opened, world, [e]);
    }
    expect(groupReads(world)).toHaveLength(0);
    // #100's coverage, the last of its three, then #101's test (its lint and coverage still to come):
    // both pending at once, #100's job first.
    world.gh.pull(100).checks = DONE;
    world.gh.pull(101).checks = DONE.map((c) => (c.name === 'test' ? c : { ...c, conclusion: 'pending' }));
    const last = completed(world, 'c:coverage', 100, 'coverage');
    const sibling = completed(world, 'd:test', 101, 'test');
    await record(opened, world, [last, sibling]);
    await runJobs(opened, world, [last]);
    // #100 read and settled at once, not left to #101's test, which waits for #101's lint.
    expect(groupReads(world)).toHaveLength(1);
    expect((await opened.store.getCandidate(world.ctx('x').key, 100))?.state).not.toBe('verifying');
    await runJobs(opened, world, [sibling]);
    expect(groupReads(world)).toHaveLength(1);
  });

  it('a failure reads at once, though others have not reported, and leaves its read to no later pass', async () => {
    const world = await group();
    world.gh.pull(100).checks = DONE.map((c) =>
      c.name === 'test' ? { ...c, conclusion: 'failure' } : c.name === 'lint' ? c : { ...c, conclusion: 'pending' },
    );
    // test failed, then lint passed; both pending at once: the failure does not wait for lint's job.
    const events = [completed(world, 'a:test', 100, 'test', 'failure'), completed(world, 'b:lint', 100, 'lint')];
    await record(opened, world, events);
    await runJobs(opened, world, events.slice(0, 1));
    expect(groupReads(world).length).toBe(1);
    // Settled as failed, and the group decided without it (it lost).
    expect((await opened.store.getCandidate(world.ctx('x').key, 100))?.state).toBe('rejected');
    expect(await decided(world)).toBe(true);
  });
});
