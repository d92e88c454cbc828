// In-process single flight: concurrent cache misses for the same key share one read. Each
// `scope` (a store: one app process, one test world) has its own in-flight promises; a promise
// leaves when it settles, so a later miss reads afresh, and a failure reaches every waiter.

/** Runs `read()` once for all concurrent callers of (`scope`, `key`): they all get its result or its error. */
export type SingleFlight<T> = (scope: object, key: string, read: () => Promise<T>) => Promise<T>;

/** One single flight per kind of read (its own keys and result type). */
export function singleFlight<T>(): SingleFlight<T> {
  const flights = new WeakMap<object, Map<string, Promise<T>>>();
  return (scope, key, read) => {
    let inFlight = flights.get(scope);
    if (!inFlight) flights.set(scope, (inFlight = new Map()));
    const running = inFlight.get(key);
    if (running) return running;
    const map = inFlight;
    // Started on the next tick, so the promise is registered before `read` can settle it.
    const promise = Promise.resolve()
      .then(read)
      .finally(() => map.delete(key));
    map.set(key, promise);
    return promise;
  };
}
