// singleFlight: concurrent callers of one key share one read and its result or its error; the
// key is free again once the read settles; scopes and keys never share.
import { describe, expect, it } from 'vitest';
import { singleFlight as makeSingleFlight } from '../src/single-flight.ts';

const singleFlight = makeSingleFlight<number>();

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('singleFlight', () => {
  it('shares one read between concurrent callers, then reads afresh', async () => {
    const scope = {};
    let reads = 0;
    const d = deferred<number>();
    const read = () => {
      reads++;
      return d.promise;
    };
    const all = Promise.all([singleFlight(scope, 'k', read), singleFlight(scope, 'k', read)]);
    d.resolve(7);
    expect(await all).toEqual([7, 7]);
    expect(reads).toBe(1);
    expect(await singleFlight(scope, 'k', async () => 8)).toBe(8);
  });

  it('hands the error to every waiter and keeps nothing', async () => {
    const scope = {};
    const d = deferred<number>();
    const a = singleFlight(scope, 'k', () => d.promise);
    const b = singleFlight(scope, 'k', () => d.promise);
    d.reject(new Error('boom'));
    await expect(a).rejects.toThrow('boom');
    await expect(b).rejects.toThrow('boom');
    expect(await singleFlight(scope, 'k', async () => 1)).toBe(1);
  });

  it('a read that throws at once is not kept', async () => {
    const scope = {};
    const throwing = (): Promise<number> => {
      throw new Error('sync');
    };
    await expect(singleFlight(scope, 'k', throwing)).rejects.toThrow('sync');
    expect(await singleFlight(scope, 'k', async () => 2)).toBe(2);
  });

  it('other keys and other scopes read on their own', async () => {
    const one = {};
    const two = {};
    let reads = 0;
    const read = async () => ++reads;
    await Promise.all([singleFlight(one, 'a', read), singleFlight(one, 'b', read), singleFlight(two, 'a', read)]);
    expect(reads).toBe(3);
  });
});
