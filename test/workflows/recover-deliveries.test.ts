// The recovery of lost webhooks, against the recording fake of the app's webhook and a real store
// (PGlite): which failed deliveries are asked for again (unrecorded ones, oldest first, each once,
// at most 50 a pass, within the lookback), and how a webhook that keeps failing backs off.
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import {
  failedDeliveries,
  planRedeliveries,
  RECOVERY_LIMITS,
  type HookDeliveryAttempt,
} from '../../src/core/redelivery.ts';
import { recoverDeliveries } from '../../src/workflows/recover-deliveries.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeAppHooks } from '../support/fake-github.ts';

const log = pino({ level: 'silent' });
const T0 = Date.parse('2026-03-02T09:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

describe('planRedeliveries (pure)', () => {
  const attempt = (id: number, guid: string, statusCode: number, minutes: number): HookDeliveryAttempt => ({
    id,
    guid,
    deliveredAt: at(minutes).toISOString(),
    redelivery: false,
    status: statusCode >= 200 && statusCode < 300 ? 'OK' : `Invalid HTTP Response: ${statusCode}`,
    statusCode,
    event: 'pull_request',
    action: 'opened',
  });

  it.each([
    ['a 503, never recorded', [attempt(1, 'a', 503, 0)], [], ['a']],
    ['no answer at all (status 0)', [attempt(1, 'a', 0, 0)], [], ['a']],
    ['a 400 (e.g. a bad signature)', [attempt(1, 'a', 400, 0)], [], ['a']],
    ['a 503, then a redelivery answered 202', [attempt(1, 'a', 503, 0), attempt(2, 'a', 202, 1)], [], []],
    ['a 503 whose commit still landed (recorded)', [attempt(1, 'a', 503, 0)], ['a'], []],
    ['answered 202', [attempt(1, 'a', 202, 0)], [], []],
    [
      'three failures, listed newest first: oldest first, each once',
      [attempt(5, 'c', 502, 3), attempt(4, 'b', 503, 2), attempt(3, 'a', 500, 1)],
      [],
      ['a', 'b', 'c'],
    ],
  ])('%s', (_what, attempts, recorded, asked) => {
    const plan = planRedeliveries(failedDeliveries(attempts), new Set(recorded), at(2));
    expect(plan.map((p) => p.guid)).toEqual(asked);
  });

  it('names the latest failed attempt of a webhook, asks at most 50 a pass, and backs off one that keeps failing', () => {
    const twice = failedDeliveries([attempt(1, 'a', 503, 0), attempt(7, 'a', 503, 10)]);
    expect(planRedeliveries(twice, new Set(), at(14))).toEqual([]); // 2 failures: 5 min after the last
    expect(planRedeliveries(twice, new Set(), at(15)).map((p) => p.id)).toEqual([7]);
    const thrice = failedDeliveries([attempt(1, 'a', 503, 0), attempt(2, 'a', 503, 5), attempt(3, 'a', 503, 10)]);
    expect(planRedeliveries(thrice, new Set(), at(19))).toEqual([]); // 3 failures: 10 min
    expect(planRedeliveries(thrice, new Set(), at(20))).toHaveLength(1);
    const many = failedDeliveries(
      Array.from({ length: 80 }, (_, i) => attempt(i + 1, `g${String(i).padStart(2, '0')}`, 502, i / 10)),
    );
    const plan = planRedeliveries(many, new Set(), at(60));
    expect(plan).toHaveLength(RECOVERY_LIMITS.maxPerPass);
    expect(plan[0]?.guid).toBe('g00');
    expect(new Set(plan.map((p) => p.guid)).size).toBe(50);
  });
});

describe('recoverDeliveries over the fake webhook and the store', () => {
  let b: OpenedBackend;
  let clock: ManualClock;
  beforeAll(async () => {
    b = await openBackend('pglite', 'recover');
  });
  afterAll(async () => {
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
    clock = new ManualClock(T0);
  });

  it('asks again for the unrecorded failed webhooks only, within the lookback; the next pass asks for none', async () => {
    const hooks = new FakeAppHooks(() => clock.now());
    hooks.deliver('too-old', 'issues', 503, new Date(T0 - 73 * 3_600_000));
    hooks.deliver('lost-1', 'pull_request', 503, at(-30));
    hooks.deliver('ok', 'pull_request', 202, at(-20));
    hooks.deliver('landed', 'pull_request', 503, at(-10));
    hooks.deliver('lost-2', 'check_run', 0, at(-5));
    await b.store.recordDelivery('landed', 'pull_request', {}); // answered 503, committed after
    await b.store.recordDelivery('ok', 'pull_request', {});

    const pass = await recoverDeliveries({ hooks, store: b.store, clock, log });
    expect(pass).toEqual({ listed: 4, failed: 3, asked: ['lost-1', 'lost-2'], refused: [] });
    expect(hooks.calls).toEqual([
      `list since=${new Date(T0 - 72 * 3_600_000).toISOString()} pages<=20`,
      'redeliver lost-1',
      'redeliver lost-2',
    ]);

    // Both redeliveries were answered 202: a pass five minutes on asks for nothing.
    clock.advance(5 * 60_000);
    expect((await recoverDeliveries({ hooks, store: b.store, clock, log })).asked).toEqual([]);
  });

  it('asks again, after a doubling wait, for a webhook whose redelivery fails too; a refused redelivery does not stop the pass', async () => {
    const hooks = new FakeAppHooks(
      () => clock.now(),
      (guid) => (guid === 'down' ? 503 : 'refused'),
    );
    hooks.deliver('down', 'pull_request', 503, at(-1));
    hooks.deliver('refused', 'pull_request', 502, at(0));
    const pass = async (minutes: number) => {
      clock.set(at(minutes).getTime());
      const p = await recoverDeliveries({ hooks, store: b.store, clock, log });
      return `${p.asked.join(',') || '-'} / refused ${p.refused.join(',') || '-'}`;
    };
    expect(await pass(0)).toBe('down / refused refused');
    expect(await pass(4)).toBe('- / refused refused'); // `down` failed twice: 5 min after its last attempt
    expect(await pass(5)).toBe('down / refused refused');
    expect(await pass(14)).toBe('- / refused refused'); // three times: 10 min
    expect(await pass(15)).toBe('down / refused refused');
  });
});
