// Which of Arbiter's own pull_request webhooks ask for nothing (no config read, no group query):
// its labelling and marking ready, and its closing of a candidate the store holds as lost or
// stale. Never a merge (its `closed` still finishes what a killed claimant left), never a person's act.
import { describe, expect, it } from 'vitest';
import { ownActNeedsNothing } from '../../src/handlers/pull-request.ts';
import type { CandidateState } from '../../src/core/types.ts';

const BOT = 'arbiter[bot]';
const storeWith = (state: CandidateState | null) => ({
  getCandidate: async () => (state === null ? null : ({ state } as never)),
});
const payload = (action: string, sender: string, merged?: boolean | null) => ({
  action,
  sender: { login: sender },
  pull_request: { number: 4, body: '', ...(merged === undefined ? {} : { merged }) },
});

describe('ownActNeedsNothing', () => {
  it.each([
    ['closed, not merged, by Arbiter, stored lost', payload('closed', BOT, false), 'rejected', true],
    ['closed, not merged, by Arbiter, stored stale', payload('closed', BOT, false), 'stale', true],
    [
      'closed by Arbiter, still open in the store (its state not yet recorded)',
      payload('closed', BOT, false),
      'verified',
      false,
    ],
    ['closed by Arbiter, not a candidate', payload('closed', BOT, false), null, false],
    ["the merge's own closed (sender Arbiter)", payload('closed', BOT, true), 'selected', false],
    ['closed by Arbiter, merged unknown', payload('closed', BOT), 'rejected', false],
    ['closed by a person, stored lost', payload('closed', 'alice', false), 'rejected', false],
    ['labelled by Arbiter', payload('labeled', BOT), 'verifying', true],
    ['marked ready by Arbiter', payload('ready_for_review', BOT), 'selected', true],
    ['labelled by a person', payload('labeled', 'alice'), 'verifying', false],
    ['opened by Arbiter (the combined candidate)', payload('opened', BOT), null, false],
    ['synchronize by Arbiter', payload('synchronize', BOT), 'verifying', false],
  ] as const)('%s', async (_name, body, state, expected) => {
    expect(await ownActNeedsNothing(storeWith(state), 'o/r', BOT, body)).toBe(expected);
  });
});
