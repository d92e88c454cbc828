// The timeline (what happens at which virtual time, in which order) and the delivery pump
// (copies, seeded shuffling, nothing lost across a restart), without any process.
import { describe, expect, it } from 'vitest';
import { parseScenario, type Scenario } from '../../sim/scenario-schema.ts';
import { buildTimeline } from '../../sim/runner/timeline.ts';
import { DeliveryPump, type HeldWebhook, type WebhookPort } from '../../sim/runner/deliveries.ts';
import { mulberry32, shuffle } from '../../sim/runner/prng.ts';

function scenario(doc: Record<string, unknown>): Scenario {
  const r = parseScenario({ repo: 'acme/todo', change: { number: 42, title: 'T', body: '' }, ...doc });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

describe('buildTimeline', () => {
  it('orders acts by time, then branch, open, CI, people, restart', () => {
    const s = scenario({
      candidates: [
        {
          number: 12,
          branch: 'a',
          openAt: 2,
          baseAt: 1,
          checks: [
            { name: 'test', conclusion: 'success', at: 2 },
            { name: 'e2e', never: true },
          ],
        },
        { number: 13, branch: 'b', checks: [{ name: 'lint', kind: 'status', state: 'success', at: 5 }] },
      ],
      events: [
        { at: 5, comment: { on: 42, user: 'm', body: 'hi' } },
        { at: 3, push: { on: 12, checks: [{ name: 'test', conclusion: 'failure', at: 5 }] } },
      ],
      faults: { restart: [{ at: 5 }, { after: 'PUT /x' }] },
      until: 100,
    });
    const steps = buildTimeline(s).map((st) => ({
      at: st.at,
      acts: st.acts.map((a) =>
        a.kind === 'check'
          ? `check ${a.check.name}@${a.head}`
          : a.kind === 'event'
            ? `event ${a.index}`
            : 'candidate' in a
              ? `${a.kind} ${a.candidate}`
              : a.kind,
      ),
    }));
    expect(steps).toEqual([
      { at: 0, acts: ['branch 13', 'open 13'] },
      { at: 1, acts: ['branch 12'] },
      { at: 2, acts: ['open 12', 'check test@open:12'] },
      { at: 3, acts: ['event 1'] },
      { at: 5, acts: ['check lint@open:13', 'check test@push:1', 'event 0', 'restart'] },
      { at: 100, acts: [] },
    ]);
  });

  it('always has a step at time 0, even with nothing scripted', () => {
    expect(buildTimeline(scenario({}))).toEqual([{ at: 0, acts: [] }]);
  });
});

describe('seeded shuffle', () => {
  it('is a permutation, the same for the same seed', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const a = shuffle(items, mulberry32(7));
    expect(shuffle(items, mulberry32(7))).toEqual(a);
    expect([...a].sort((x, y) => x - y)).toEqual(items);
    expect(a).not.toEqual(items);
    expect(shuffle(items, mulberry32(8))).not.toEqual(a);
  });
});

class FakePort implements WebhookPort {
  held: HeldWebhook[] = [];
  holding = false;
  sent: string[] = [];
  down = false;
  holdWebhooks(h: boolean) {
    this.holding = h;
  }
  takeHeldWebhooks() {
    return this.held.splice(0);
  }
  async sendWebhook(w: HeldWebhook) {
    await new Promise((r) => setImmediate(r));
    if (this.down) return 0;
    this.sent.push(w.id);
    return 202;
  }
}

const hooks = (n: number): HeldWebhook[] =>
  Array.from({ length: n }, (_, i) => ({ event: 'issues', id: `d${i}`, body: '{}' }));

describe('DeliveryPump', () => {
  it('holds webhooks and delivers each one once without redelivery, in order', async () => {
    const port = new FakePort();
    const pump = new DeliveryPump(port, null, () => {});
    expect(port.holding).toBe(true);
    port.held.push(...hooks(3));
    await pump.pump();
    expect(port.sent).toEqual(['d0', 'd1', 'd2']);
    expect(pump.busy()).toBe(false);
  });

  it('delivers every webhook `copies` times in a seeded order', async () => {
    const run = async (seed: number) => {
      const port = new FakePort();
      const pump = new DeliveryPump(port, { copies: 3, seed }, () => {});
      port.held.push(...hooks(4));
      await pump.pump();
      return port.sent;
    };
    const sent = await run(7);
    for (const id of ['d0', 'd1', 'd2', 'd3']) expect(sent.filter((s) => s === id)).toHaveLength(3);
    expect(await run(7)).toEqual(sent);
    expect(sent.slice(0, 4)).not.toEqual(['d0', 'd0', 'd0', 'd1']);
  });

  it('reorder: delivers each full window of webhooks in a seeded shuffle, and holds a partial window until released', async () => {
    const run = async (seed: number) => {
      const port = new FakePort();
      const pump = new DeliveryPump(port, null, () => {}, { seed, window: 4 });
      port.held.push(...hooks(6));
      await pump.pump();
      port.held.push(...hooks(10).slice(6));
      await pump.pump();
      const beforeRelease = [...port.sent];
      expect(pump.heldBack()).toBe(2);
      expect(pump.busy()).toBe(false); // held back: the run may go quiet around them
      expect(pump.releaseWindow()).toBe(true);
      await pump.pump();
      expect(pump.releaseWindow()).toBe(false);
      return { beforeRelease, sent: port.sent };
    };
    const { beforeRelease, sent } = await run(3);
    const ids = (from: number, to: number) =>
      hooks(to)
        .slice(from)
        .map((h) => h.id)
        .sort();
    expect(beforeRelease).toHaveLength(8);
    // Never across a window: the first four are d0-d3, the next four d4-d7, the rest d8-d9.
    expect([...sent.slice(0, 4)].sort()).toEqual(ids(0, 4));
    expect([...sent.slice(4, 8)].sort()).toEqual(ids(4, 8));
    expect([...sent.slice(8)].sort()).toEqual(ids(8, 10));
    expect(sent).not.toEqual(hooks(10).map((h) => h.id));
    expect((await run(3)).sent).toEqual(sent);
    expect((await run(4)).sent).not.toEqual(sent);
  });

  it('keeps a webhook the app could not take while paused, and delivers it after resume', async () => {
    const port = new FakePort();
    const problems: string[] = [];
    const pump = new DeliveryPump(port, null, (l) => problems.push(l));
    port.held.push(...hooks(2));
    port.down = true;
    pump.pause();
    await pump.pump();
    expect(port.sent).toEqual([]);
    expect(pump.outstanding()).toBe(2);
    port.down = false;
    pump.resume();
    await pump.pump();
    expect(port.sent).toEqual(['d0', 'd1']);
    expect(problems).toEqual([]);
  });

  it('reports a webhook the running app refused', async () => {
    const port = new FakePort();
    const problems: string[] = [];
    const pump = new DeliveryPump(port, null, (l) => problems.push(l));
    port.down = true;
    port.held.push(...hooks(1));
    await pump.pump();
    expect(problems).toEqual(['webhook issues d0 answered HTTP 0']);
  });
});
