// Group commit: items submitted while a commit is in flight wait, and the next commit takes them
// together (up to a bound). A lone item commits at once: there is no timer, only the wait for
// the commit ahead of it and for the end of the current turn of the event loop.

export interface GroupCommitStats {
  /** Commits attempted (committed or failed). */
  groups: number;
  /** Items in those commits. */
  items: number;
  /** Size of the largest group. */
  largest: number;
}

export interface GroupCommit<I, O> {
  /** Resolves with the item's outcome once the group that holds it committed; rejects with its error if that commit failed. */
  submit(item: I): Promise<O>;
  stats(): GroupCommitStats;
}

/**
 * `commit` gets a group of items and answers one outcome per item, in order. If it throws for a
 * group of more than one, each item is committed on its own, so one bad item fails only itself
 * (a webhook answered 500 is not redelivered by GitHub on its own); an item whose own commit
 * fails is rejected with that error. The next group is tried as usual.
 */
export function createGroupCommit<I, O>(
  commit: (items: I[]) => Promise<O[]>,
  opts: { maxGroup: number; inFlight?: number },
): GroupCommit<I, O> {
  const inFlight = opts.inFlight ?? 1;
  for (const [name, v] of [
    ['maxGroup', opts.maxGroup],
    ['inFlight', inFlight],
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, not ${v}`);
  }
  const waiting: { item: I; resolve: (o: O) => void; reject: (err: unknown) => void }[] = [];
  const stats: GroupCommitStats = { groups: 0, items: 0, largest: 0 };
  // Loops taking groups. Counted up and down synchronously with their look at `waiting`, so an
  // item submitted at any moment is either taken by a running loop or starts one.
  let draining = 0;

  async function drain(): Promise<void> {
    draining++;
    try {
      for (;;) {
        // Take the group at the end of this turn of the event loop, so every request read in
        // the same turn joins it. On PGlite this matters most: a commit runs on this thread, so
        // requests that arrive during it are only read afterwards.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const group = waiting.splice(0, opts.maxGroup);
        if (group.length === 0) return;
        stats.groups++;
        stats.items += group.length;
        stats.largest = Math.max(stats.largest, group.length);
        try {
          const out = await commit(group.map((g) => g.item));
          if (out.length !== group.length)
            throw new Error(`a group commit answered ${out.length} outcomes for ${group.length} items`);
          group.forEach((g, i) => g.resolve(out[i] as O));
        } catch (err) {
          if (group.length === 1) group[0]!.reject(err);
          else for (const g of group) await commitAlone(g);
        }
      }
    } finally {
      draining--;
    }
  }

  async function commitAlone(g: (typeof waiting)[number]): Promise<void> {
    stats.groups++;
    try {
      const [out] = await commit([g.item]);
      if (out === undefined) throw new Error('a group commit answered no outcome for its one item');
      g.resolve(out);
    } catch (err) {
      g.reject(err);
    }
  }

  return {
    submit(item) {
      const outcome = new Promise<O>((resolve, reject) => waiting.push({ item, resolve, reject }));
      if (draining < inFlight) void drain();
      return outcome;
    },
    stats: () => ({ ...stats }),
  };
}
