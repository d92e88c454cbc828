// The transcript's readable end: the verdict line read from the final state only, and the
// final-state rendering (hidden markers dropped, Arbiter's check runs shown).
import { describe, expect, it } from 'vitest';
import {
  parseTranscript,
  renderFinalState,
  verdictLine,
  type PrState,
  type Transcript,
} from '../../sim/runner/transcript.ts';

const pr = (over: Partial<PrState> = {}): PrState => ({
  state: 'open',
  merged: false,
  draft: true,
  labels: [],
  reviewers: [],
  checks: {},
  comments: [],
  reactions: [],
  ...over,
});
const transcript = (prs: Record<string, PrState>, over: Partial<Transcript> = {}): Transcript => ({
  writes: [],
  prs,
  issues: { '42': { state: 'open', labels: [], comments: [] } },
  dispatches: [],
  restarts: [],
  ...over,
});
const selection = (conclusion: string, title: string) => ({
  'Arbiter / selection': { status: 'completed', conclusion, title },
});

describe('verdictLine', () => {
  it('names the merged winner and its selection title', () => {
    const t = transcript({
      '12': pr({
        state: 'closed',
        labels: ['arbiter:lost'],
        checks: selection('neutral', 'Lost to #13'),
        comments: [
          {
            user: 'arbiter[bot]',
            body: '<!-- marker -->\nLost to #13: met 3 of 3 criteria, this met 1 of 3. See the comparison on #42.',
          },
        ],
      }),
      '13': pr({
        state: 'closed',
        merged: true,
        draft: false,
        checks: {
          ...selection('success', 'Selected: shipped'),
          'Arbiter / acceptance': { status: 'completed', conclusion: 'success', title: '3 of 3 criteria met' },
        },
      }),
      '14': pr({ state: 'closed', labels: ['arbiter:lost'], checks: selection('neutral', 'Lost to #13') }),
    });
    expect(verdictLine(t)).toBe(
      'Winner: #13 shipped (merged) - Selected: shipped; 3 of 3 criteria met. Closed #12 (Lost to #13: met 3 of 3 criteria, this met 1 of 3), #14 (Lost to #13).',
    );
  });

  it('keeps a long loss reason whole, never cut to ".."', () => {
    const reason =
      'Lost to #13, which also meets AC2 (The home page shows a calendar of the current month with every task on its day) and AC3. #13 met 3 of 3 criteria, this one 1 of 3';
    const t = transcript({
      '12': pr({
        state: 'closed',
        labels: ['arbiter:lost'],
        checks: selection('neutral', 'Lost to #13'),
        comments: [{ user: 'arbiter[bot]', body: `<!-- marker -->\n${reason}. See the comparison on #42.` }],
      }),
      '13': pr({ state: 'closed', merged: true, draft: false, checks: selection('success', 'Selected: shipped') }),
    });
    expect(verdictLine(t)).toBe(`Winner: #13 shipped (merged) - Selected: shipped. Closed #12 (${reason}).`);
  });

  it('says a person must decide when the winner awaits approval', () => {
    const t = transcript({
      '31': pr({
        labels: ['arbiter:awaiting-approval'],
        checks: selection('success', 'Best candidate meets 1 of 2 criteria'),
      }),
    });
    expect(verdictLine(t)).toBe('A person must decide: #31 awaits approval (Best candidate meets 1 of 2 criteria)');
  });

  it('mentions a pending repair, else lists what is open', () => {
    expect(
      verdictLine(transcript({ '31': pr() }, { dispatches: [{ event_type: 'arbiter.repair', client_payload: {} }] })),
    ).toBe('No winner yet: a repair was requested (1 dispatch)');
    expect(verdictLine(transcript({ '31': pr({ checks: selection('neutral', 'Tie: a person must choose') }) }))).toBe(
      'No winner: a person must decide (#31: Tie: a person must choose)',
    );
  });
});

describe('renderFinalState', () => {
  it('shows each PR, its Arbiter check runs and comments without hidden markers', () => {
    const t = transcript({
      '12': pr({
        state: 'closed',
        labels: ['arbiter:lost'],
        checks: {
          ...selection('neutral', 'Lost to #13'),
          test: { status: 'completed', conclusion: 'success', title: null },
        },
        comments: [
          {
            user: 'arbiter[bot]',
            body: '<!-- arbiter:receipt {"id":1} -->\nLost to #13: met 3 of 3 criteria, this met 1 of 3.',
          },
        ],
      }),
    });
    const lines = renderFinalState(t, 42);
    expect(lines).toContain('  #12  closed   labels: arbiter:lost');
    expect(lines).toContain('      Arbiter / selection: neutral - Lost to #13');
    expect(lines).toContain('      arbiter[bot]: Lost to #13: met 3 of 3 criteria, this met 1 of 3.');
    expect(lines.join('\n')).not.toContain('receipt');
    expect(lines.join('\n')).not.toContain('test:');
    expect(lines).toContain('  Change #42  open   labels: -   0 comment(s)');
  });
});

describe('parseTranscript', () => {
  it('keeps exactly the §9 keys and reports a wrong shape as path lines', () => {
    const ok = parseTranscript({ ...transcript({ '12': pr() }), extra: 1 });
    expect(ok.ok && Object.keys(ok.transcript)).toEqual(['writes', 'prs', 'issues', 'dispatches', 'restarts']);
    const bad = parseTranscript({ ...transcript({ '12': { ...pr(), merged: 'no' } as unknown as PrState }) });
    expect(bad.ok ? [] : bad.errors).toEqual(['prs.12.merged: Invalid input: expected boolean, received string']);
  });
});

describe('renderFinalState with check-run buttons', () => {
  it('lists the buttons a run still offers, and none on a finished one', () => {
    const promote = { label: 'Promote', description: 'Ship this candidate', identifier: 'promote' };
    const t = transcript({
      '31': pr({
        checks: {
          'Arbiter / selection': {
            status: 'completed',
            conclusion: 'action_required',
            title: 'Selected: awaiting approval',
            actions: [promote],
          },
        },
      }),
      '32': pr({
        checks: {
          'Arbiter / selection': {
            status: 'completed',
            conclusion: 'success',
            title: 'Promoted by @maintainer',
            actions: [],
          },
        },
      }),
    });
    const lines = renderFinalState(t, 42);
    expect(lines).toContain(
      '      Arbiter / selection: action_required - Selected: awaiting approval   buttons: Promote',
    );
    expect(lines).toContain('      Arbiter / selection: success - Promoted by @maintainer');
  });
});
