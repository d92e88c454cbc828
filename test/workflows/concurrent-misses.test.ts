// Three jobs of one process that miss a cache at once (the candidates of a Change opened
// together) share one GitHub read: an account's permission, a branch's rules, and the Change
// issue recorded by its first candidates. Each job still answers its own pull request.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { branchRulesOf } from '../../src/workflows/branch-rules.ts';
import { trackedChange } from '../../src/workflows/changes.ts';
import { lookupPermission } from '../../src/workflows/trust.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld } from '../support/selection-world.ts';

const pull = (number: number) => ({
  number,
  draft: true,
  state: 'open',
  body: 'Closes #42',
  base: 'main',
  headSha: String(number % 10).repeat(40),
  author: 'agent',
  labels: [],
});

describe('concurrent cache misses in one process', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-misses');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('read a permission and a branch rule once', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    world.gh.permissions.set('maintainer', 'admin');
    const jobs = ['a', 'b', 'c'].map((t) => world.ctx(t));
    const perms = await Promise.all(jobs.map((ctx) => lookupPermission(ctx, 'maintainer')));
    expect(perms).toEqual(Array(3).fill({ ok: true, permission: 'admin' }));
    await Promise.all(jobs.map((ctx) => branchRulesOf(ctx, 'main')));
    expect(world.gh.reads.filter((r) => r === 'permission maintainer')).toHaveLength(1);
    expect(world.gh.reads.filter((r) => r === 'branch rules main')).toHaveLength(1);
  });

  it('a failed permission read reaches every waiter, and the next miss reads again', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    world.gh.failingPermissions.add('flaky');
    const jobs = ['a', 'b'].map((t) => world.ctx(t));
    const perms = await Promise.all(jobs.map((ctx) => lookupPermission(ctx, 'flaky')));
    expect(perms.map((p) => p.ok)).toEqual([false, false]);
    world.gh.failingPermissions.delete('flaky');
    expect(await lookupPermission(world.ctx('c'), 'flaky')).toMatchObject({ ok: true });
    expect(world.gh.reads.filter((r) => r === 'permission flaky')).toHaveLength(2);
  });

  it("record the Change from one read of its issue and of its author's permission", async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    world.gh.permissions.set('requester', 'write');
    world.gh.issues.set(42, {
      title: 'Kanban',
      body: '## Acceptance criteria\n- [ ] AC1 a list\n',
      state: 'open',
      author: 'requester',
    });
    const changes = await Promise.all([1, 2, 3].map((i) => trackedChange(world.ctx(`j${i}`), 42, pull(20 + i))));
    expect(changes.map((c) => c?.number)).toEqual([42, 42, 42]);
    expect(world.gh.reads.filter((r) => r === 'issue #42')).toHaveLength(1);
    expect(world.gh.reads.filter((r) => r === 'permission requester')).toHaveLength(1);
  });

  it('an untracked issue: one read, and each linking PR gets its own neutral check', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    world.gh.issues.set(42, { title: 'Kanban', body: '', state: 'open', author: 'stranger' });
    const changes = await Promise.all([1, 2].map((i) => trackedChange(world.ctx(`j${i}`), 42, pull(20 + i))));
    expect(changes).toEqual([null, null]);
    expect(world.gh.reads.filter((r) => r === 'issue #42')).toHaveLength(1);
    const checks = world.gh.applied().filter((w) => w.includes('Arbiter / selection'));
    expect(checks.map((w) => /#(\w{7})/.exec(w)?.[1]).sort()).toEqual(['1111111', '2222222']);
  });
});
