// How old a group read is: a label list is replaced from a read only while it is recent, since a
// person may have changed the labels since (model calls take seconds between). Ages are on the
// app's injected clock (src/clock.ts), given by the caller: the one the scenario runner moves.

/** When each group read was answered (ms, the app's clock): how old a label list it holds is. */
const readTimes = new WeakMap<ReadonlyMap<number, unknown>, number>();

/** A group read this long ago is too old to replace a pull request's labels from. */
export const GROUP_READ_FRESH_MS = 10_000;

/** Notes when a group read was answered (the gateway's `readGroup` does, for every read). */
export function noteRead(read: ReadonlyMap<number, unknown>, at: Date): void {
  readTimes.set(read, at.getTime());
}

/** Notes that `to` holds what `from` read (a subset, or a copy), read when `from` was. */
export function sameRead(from: ReadonlyMap<number, unknown>, to: ReadonlyMap<number, unknown>): void {
  const at = readTimes.get(from);
  if (at !== undefined) readTimes.set(to, at);
}

/** Whether a group read is recent enough at `now` to write a label list from (a read of unknown age counts as recent). */
export function freshRead(read: ReadonlyMap<number, unknown>, now: Date): boolean {
  const at = readTimes.get(read);
  return at === undefined || now.getTime() - at <= GROUP_READ_FRESH_MS;
}
