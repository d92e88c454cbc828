// The portfolio tables on PGlite and PostgreSQL: one running explore per Change (a retry of its own
// run gets it back), slots fill or drop once, a deep round ends when no refinement is awaited,
// readings are kept once per run, and every dispatch counts against the budget.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PortfolioRow } from '../../src/store/portfolio-store.ts';
import { BACKENDS, openBackend, type OpenedBackend } from './backends.ts';

const REPO = 'acme/todo';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:05:00.000Z';

const portfolio = (number: number, token: string): PortfolioRow => ({
  repo: REPO,
  change: 7,
  number,
  base: 'main',
  baseSha: 'a'.repeat(40),
  policy: 'top-k',
  k: 2,
  phase: 'wide',
  wideRound: 1,
  requestedBy: 'maintainer',
  token,
  startedAt: T0,
});
const slot = (name: string, at = T0) => ({
  repo: REPO,
  change: 7,
  slot: name,
  portfolio: 1,
  approach: `approach ${name}`,
  state: 'composing' as const,
  pr: null,
  reason: '',
  dispatchedAt: at,
});

describe.each(BACKENDS)('portfolio store on %s', (backend) => {
  let b: OpenedBackend;
  beforeAll(async () => {
    b = await openBackend(backend, 'portfolio');
  });
  afterAll(async () => {
    await b?.dispose();
  });
  beforeEach(async () => {
    await b.truncate();
  });

  it('runs one explore per Change at a time; the run that started it gets it back on a retry', async () => {
    const s = b.store;
    expect((await s.startPortfolio(portfolio(1, 'run-a'))).started).toBe(true);
    expect((await s.startPortfolio(portfolio(1, 'run-a'))).started).toBe(true);
    const second = await s.startPortfolio(portfolio(2, 'run-b'));
    expect(second).toMatchObject({ started: false, portfolio: { number: 1, token: 'run-a' } });
    const both = await Promise.all([s.startPortfolio(portfolio(2, 'run-c')), s.startPortfolio(portfolio(2, 'run-d'))]);
    expect(both.filter((r) => r.started)).toEqual([]);
  });

  it('fills or drops a composing slot once, and lists composing slots by age', async () => {
    const s = b.store;
    await s.startPortfolio(portfolio(1, 'run-a'));
    await s.addSlots([slot('7-1-1'), slot('7-1-2', T1)]);
    expect((await s.listComposingSince(T1)).map((x) => x.slot)).toEqual(['7-1-1']);
    expect(await s.fillSlot(REPO, 7, '7-1-1', 21)).toBe(true);
    expect(await s.fillSlot(REPO, 7, '7-1-1', 22)).toBe(false);
    expect(await s.dropSlot(REPO, 7, '7-1-1', 'late')).toBe(false);
    expect(await s.dropSlot(REPO, 7, '7-1-2', 'no pull request')).toBe(true);
    expect((await s.listSlots(REPO, 7, 1)).map((x) => [x.slot, x.state, x.pr, x.reason])).toEqual([
      ['7-1-1', 'open', 21, ''],
      ['7-1-2', 'dropped', null, 'no pull request'],
    ]);
  });

  it('ends the deep round once no refinement is awaited, and a new explore may start', async () => {
    const s = b.store;
    await s.startPortfolio(portfolio(1, 'run-a'));
    await s.addSlots([slot('7-1-1'), slot('7-1-2')]);
    expect(await s.setPortfolioPhase(REPO, 7, 1, 'wide', 'deep')).toBe(true);
    await s.addDeep(
      [21, 22].map((pr) => ({
        repo: REPO,
        change: 7,
        portfolio: 1,
        pr,
        headSha: `h${pr}`,
        state: 'awaiting' as const,
        dispatchedAt: T0,
      })),
    );
    expect(await s.portfolioDispatches(REPO, 7)).toBe(4);
    expect((await s.startPortfolio(portfolio(2, 'run-b'))).started).toBe(false);
    expect(await s.settleDeep(REPO, 7, 1, 21, 'arrived')).toBe(true);
    expect(await s.settleDeep(REPO, 7, 1, 21, 'expired')).toBe(false);
    expect((await s.latestPortfolio(REPO, 7))?.phase).toBe('deep');
    expect(await s.settleDeep(REPO, 7, 1, 22, 'expired')).toBe(true);
    expect((await s.latestPortfolio(REPO, 7))?.phase).toBe('done');
    expect((await s.startPortfolio(portfolio(2, 'run-b'))).started).toBe(true);
  });

  it('keeps each reading once per run', async () => {
    const s = b.store;
    const r = { repo: REPO, change: 7, portfolio: 1 };
    await s.putReadings([
      { ...r, pr: 21, run: 1002, value: 0.72 },
      { ...r, pr: 21, run: 1001, value: 0.91 },
    ]);
    await s.putReadings([{ ...r, pr: 21, run: 1001, value: 0.91 }]);
    expect((await s.listReadings(REPO, 7, 1)).map((x) => [x.pr, x.run, x.value])).toEqual([
      [21, 1001, 0.91],
      [21, 1002, 0.72],
    ]);
  });
});
