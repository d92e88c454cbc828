// Group commit over a fake commit that records its groups as strings: what arrives during a
// commit waits for the next one, a lone item is never held back, a failed commit fails exactly
// its own group, and every item is answered once whatever the arrival pattern.
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

  it('rejects every item of a failed commit with its error, and commits the next group as usual', async () => {
    let failNext = true;
    const c = recordingCommit({
      failing: () => {
        const f = failNext;
        failNext = false;
        return f;
      },
    });
    const gc = createGroupCommit(c.commit, { maxGroup: 10 });
    const doomed = ['a', 'b', 'c'].map((x) => gc.submit(x).then((v) => v, (e: unknown) => `rejected: ${(e as Error).message}`));
    await c.releaseOne();
    const later = gc.submit('d');
    await c.releaseOne();
    expect(await Promise.all(doomed)).toEqual(['rejected: commit of a,b,c failed', 'rejected: commit of a,b,c failed', 'rejected: commit of a,b,c failed']);
    expect(await later).toBe('ok:d');
    // The same items, submitted again, now commit.
    c.releaseAll();
    expect(await Promise.all(['a', 'b', 'c'].map((x) => gc.submit(x)))).toEqual(['ok:a', 'ok:b', 'ok:c']);
    expect(c.groups).toEqual(['a,b,c', 'd', 'a,b,c']);
  });

  it('rejects a group whose commit answers the wrong number of outcomes', async () => {
    const gc = createGroupCommit(async (items: string[]) => items.slice(1), { maxGroup: 10 });
    await expect(Promise.all([gc.submit('a'), gc.submit('b')])).rejects.toThrow('answered 1 outcomes for 2 items');
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
    const pattern = fc.array(fc.record({ burst: fc.integer({ min: 0, max: 7 }), finish: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(pattern, fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), async (steps, maxGroup, inFlight) => {
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
        const grouped = c.groups.flatMap((g) => g.split(','));
        expect([...grouped].sort()).toEqual(Array.from({ length: n }, (_, i) => `x${i}`).sort());
        expect(c.groups.every((g) => g.split(',').length <= maxGroup)).toBe(true);
        expect(c.mostOpen()).toBeLessThanOrEqual(inFlight);
        const failedGroup = c.groups.find((g) => g.split(',').includes('x3'))?.split(',') ?? [];
        settled.forEach((v, i) => expect(v).toBe(failedGroup.includes(`x${i}`) ? 'failed' : `ok:x${i}`));
      }),
      { numRuns: 60 },
    );
  });
});
