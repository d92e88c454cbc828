// Group commit over a fake commit that records its groups as strings: what arrives during a
// commit waits for the next one, a lone item is never held back, a failed group is committed item
// by item so only a bad item fails, and every item is answered once whatever the arrival pattern.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createGroupCommit } from '../../src/jobs/group-commit.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A commit that records each group and holds it until released (one gate per commit, in order). */
function recordingCommit(o: { failing?: (items: string[]) => boolean } = {}) {
  const groups: string[] = [];
  const gates: (() => void)[] = [];
  let open = 0;
  let mostOpen = 0;
  let held = true;
  const commit = async (items: string[]) => {
    groups.push(items.join(','));
    open++;
    mostOpen = Math.max(mostOpen, open);
    try {
      if (held) await new Promise<void>((resolve) => gates.push(resolve));
      if (o.failing?.(items)) throw new Error(`commit of ${items.join(',')} failed`);
      return items.map((i) => `ok:${i}`);
    } finally {
      open--;
    }
  };
  return {
    commit,
    groups,
    mostOpen: () => mostOpen,
    /** Lets the oldest held commit finish. */
    async releaseOne() {
      for (let i = 0; i < 50 && gates.length === 0; i++) await turn();
      gates.shift()?.();
      await turn();
    },
    /** From now on commits finish at once. */
    releaseAll() {
      held = false;
      for (const g of gates.splice(0)) g();
    },
  };
}

describe('group commit', () => {
  it('commits a lone item by itself, without a timer', async () => {
    // Timers never fire here: a commit that waited for one would never happen.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    try {
      const c = recordingCommit();
      c.releaseAll();
      const gc = createGroupCommit(c.commit, { maxGroup: 10 });
      expect(await gc.submit('a')).toBe('ok:a');
      expect(c.groups).toEqual(['a']);
      expect(gc.stats()).toEqual({ groups: 1, items: 1, largest: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('commits items that arrive while a commit is in flight together, in the next group', async () => {
    const c = recordingCommit();
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    const first = gc.submit('a');
    await turn();
    await turn();
    expect(c.groups).toEqual(['a']); // in flight
    const rest = ['b', 'c', 'd'].map((x) => gc.submit(x));
    await c.releaseOne();
    await c.releaseOne();
    expect(await first).toBe('ok:a');
    expect(await Promise.all(rest)).toEqual(['ok:b', 'ok:c', 'ok:d']);
    expect(c.groups).toEqual(['a', 'b,c,d']);
    expect(gc.stats()).toEqual({ groups: 2, items: 4, largest: 3 });
  });

  it('puts items submitted in the same turn of the event loop into one group', async () => {
    const c = recordingCommit();
    c.releaseAll();
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    expect(await Promise.all(['a', 'b', 'c'].map((x) => gc.submit(x)))).toEqual(['ok:a', 'ok:b', 'ok:c']);
    expect(c.groups).toEqual(['a,b,c']);
  });

  it('puts items submitted by separate callbacks of one turn (requests read together) into one group', async () => {
    const c = recordingCommit();
    c.releaseAll();
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    const answers = await new Promise<Promise<string>[]>((resolve) => {
      const out: Promise<string>[] = [];
      for (const x of ['a', 'b', 'c']) setImmediate(() => out.push(gc.submit(x)));
      setImmediate(() => resolve(out));
    });
    expect(await Promise.all(answers)).toEqual(['ok:a', 'ok:b', 'ok:c']);
    expect(c.groups).toEqual(['a,b,c']);
  });

  it('never puts more than maxGroup items in one commit', async () => {
    const c = recordingCommit();
    const gc = createGroupCommit(c.commit, { maxGroup: 3 });
    const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((x) => gc.submit(x));
    c.releaseAll();
    await Promise.all(all);
    expect(c.groups).toEqual(['a,b,c', 'd,e,f', 'g']);
  });

  it('commits the items of a failed group one by one, so only a bad item fails, and commits the next group as usual', async () => {
    const c = recordingCommit({ failing: (items) => items.includes('b') });
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    const first = ['a', 'b', 'c'].map((x) =>
      gc.submit(x).then(
        (v) => v,
        (e: unknown) => `rejected: ${(e as Error).message}`,
      ),
    );
    c.releaseAll();
    expect(await Promise.all(first)).toEqual(['ok:a', 'rejected: commit of b failed', 'ok:c']);
    expect(await gc.submit('d')).toBe('ok:d');
    expect(c.groups).toEqual(['a,b,c', 'a', 'b', 'c', 'd']);
  });

  it('rejects every item when each one fails on its own too (the database is down)', async () => {
    let down = true;
    const c = recordingCommit({ failing: () => down });
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    const doomed = ['a', 'b'].map((x) =>
      gc.submit(x).then(
        (v) => v,
        (e: unknown) => `rejected: ${(e as Error).message}`,
      ),
    );
    c.releaseAll();
    expect(await Promise.all(doomed)).toEqual(['rejected: commit of a failed', 'rejected: commit of b failed']);
    down = false;
    expect(await Promise.all(['a', 'b'].map((x) => gc.submit(x)))).toEqual(['ok:a', 'ok:b']);
  });

  it('rejects a group whose commit answers the wrong number of outcomes', async () => {
    const gc = createGroupCommit(async (items: string[]) => items.slice(1), { maxGroup: 10 });
    // The group answers one outcome for two items; alone, each answers none: both are refused.
    const answers = await Promise.allSettled([gc.submit('a'), gc.submit('b')]);
    expect(answers.map((a) => (a.status === 'rejected' ? (a.reason as Error).message : a.value))).toEqual([
      'a group commit answered no outcome for its one item',
      'a group commit answered no outcome for its one item',
    ]);
  });

  it('keeps at most inFlight commits open at once', async () => {
    const c = recordingCommit();
    const gc = createGroupCommit(c.commit, { maxGroup: 2, inFlight: 2 });
    const first = gc.submit('a');
    await turn();
    const second = gc.submit('b');
    await turn();
    const rest = ['c', 'd', 'e'].map((x) => gc.submit(x));
    await turn();
    await turn();
    expect(c.groups).toEqual(['a', 'b']); // two open, the rest wait
    c.releaseAll();
    await Promise.all([first, second, ...rest]);
    expect(c.mostOpen()).toBe(2);
    expect(c.groups).toEqual(['a', 'b', 'c,d', 'e']);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createGroupCommit(async (x: string[]) => x, { maxGroup: 0 })).toThrow('maxGroup');
    expect(() => createGroupCommit(async (x: string[]) => x, { maxGroup: 5, inFlight: 1.5 })).toThrow('inFlight');
  });

  it('answers every item exactly once, in one group of at most maxGroup, whatever the arrival pattern', async () => {
    // A pattern: bursts of submissions, each followed by some commits finishing.
    const pattern = fc.array(
      fc.record({ burst: fc.integer({ min: 0, max: 7 }), finish: fc.integer({ min: 0, max: 3 }) }),
      { minLength: 1, maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(
        pattern,
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 3 }),
        async (steps, maxGroup, inFlight) => {
          const c = recordingCommit({ failing: (items) => items.includes('x3') });
          const gc = createGroupCommit(c.commit, { maxGroup, inFlight });
          const answers: Promise<string>[] = [];
          let n = 0;
          for (const s of steps) {
            for (let i = 0; i < s.burst; i++) answers.push(gc.submit(`x${n++}`).catch(() => 'failed'));
            for (let i = 0; i < s.finish; i++) await c.releaseOne();
          }
          c.releaseAll();
          const settled = await Promise.all(answers);
          // Each item is in one group, and again on its own only when its group held x3 and failed.
          const failedGroup = c.groups.find((g) => g.split(',').includes('x3'))?.split(',') ?? [];
          const grouped = c.groups.flatMap((g) => g.split(','));
          const expected = Array.from({ length: n }, (_, i) => `x${i}`);
          const retried = failedGroup.length > 1 ? failedGroup : [];
          expect([...grouped].sort()).toEqual([...expected, ...retried].sort());
          expect(c.groups.every((g) => g.split(',').length <= maxGroup)).toBe(true);
          expect(c.mostOpen()).toBeLessThanOrEqual(inFlight);
          // Only x3 itself fails.
          settled.forEach((v, i) => expect(v).toBe(i === 3 ? 'failed' : `ok:x${i}`));
        },
      ),
      { numRuns: 60 },
    );
  });
});
