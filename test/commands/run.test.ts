// The runner: where a verb applies, argument rules, answers and reactions, unknown verbs, help,
// configured prefix, and check-run buttons going through the same rules for the clicking user.
import { describe, expect, it } from 'vitest';
import { SELECTION_BUTTONS, verbForButton } from '../../src/commands/buttons.ts';
import { VERBS } from '../../src/commands/registry.ts';
import { runButton, runCommand } from '../../src/commands/run.ts';
import { renderHelp } from '../../src/commands/verbs/help.ts';
import type { CommandTarget } from '../../src/commands/types.ts';
import { type FakeWorld, click, comment, fakeServices } from './fake-services.ts';

/** Candidate #12 by carol on Change #42; #13 is a PR that is no candidate; #50 an untracked issue. */
const world = (over: FakeWorld = {}): FakeWorld => ({
  permissions: { will: 'write', rita: 'read', ada: 'admin', carol: 'write' },
  candidates: { 12: { pr: 12, change: 42, author: 'carol', state: 'verified' } },
  changes: [42],
  ...over,
});
const onCandidate = (body: string, user = 'will'): CommandTarget => comment(body, { issueNumber: 12, user });
const onOtherPr = (body: string, user = 'will'): CommandTarget => comment(body, { issueNumber: 13, user });
const onChange = (body: string, user = 'will'): CommandTarget =>
  comment(body, { issueNumber: 42, isPullRequest: false, user });
const onIssue = (body: string, user = 'will'): CommandTarget =>
  comment(body, { issueNumber: 50, isPullRequest: false, user });

describe('runCommand: an accepted command', () => {
  it('checks permission, reacts, runs the verb and answers with its message', async () => {
    const s = fakeServices(world());
    const run = await runCommand(onCandidate('Ready.\n/arbiter promote'), s);
    expect(run).toEqual({ handled: true, verb: 'promote', outcome: 'done' });
    expect(s.calls).toEqual([
      'permission will',
      'candidate #12',
      'react eyes',
      'promote #12 by will',
      'reply #12: > /arbiter promote\n\npromote done',
      'react +1',
    ]);
  });

  it('answers a verb that declined with its reason in a sentence (no internal code), without +1', async () => {
    const s = fakeServices(
      world({
        results: {
          promote: { ok: false, code: 'selection_pending', message: 'Siblings #14 and #15 are still verifying.' },
        },
      }),
    );
    const run = await runCommand(onCandidate('/arbiter promote'), s);
    expect(run).toEqual({ handled: true, verb: 'promote', outcome: 'failed' });
    expect(s.calls.filter((c) => c.startsWith('reply') || c.startsWith('react'))).toEqual([
      'react eyes',
      'reply #12: > /arbiter promote\n\n@will: Siblings #14 and #15 are still verifying.',
    ]);
  });

  it('passes the reason to reject and N to explore', async () => {
    const s = fakeServices(world());
    await runCommand(onCandidate('/arbiter reject   no calendar view  '), s);
    await runCommand(onChange('/arbiter explore 10'), s);
    await runCommand(onChange('/arbiter explore'), s);
    expect(s.stateCalls()).toEqual([
      'reject #12 by will: no calendar view',
      'explore #42 by will: 10',
      'explore #42 by will: default',
    ]);
  });

  it('runs cancel on the Change and on a candidate', async () => {
    const s = fakeServices(world());
    expect((await runCommand(onChange('/arbiter cancel'), s)).outcome).toBe('done');
    expect((await runCommand(onCandidate('/arbiter cancel'), s)).outcome).toBe('done');
    expect(s.stateCalls()).toEqual(['cancel #42 by will', 'cancel #12 by will']);
  });

  it('runs rank on the Change and on a candidate, and by its alias', async () => {
    const s = fakeServices(world());
    await runCommand(onChange('/arbiter rank'), s);
    await runCommand(onCandidate('/arbiter RERANK'), s);
    expect(s.stateCalls()).toEqual(['rank #42 by will', 'rank #12 by will']);
  });

  it('lets anyone read the status of a Change', async () => {
    const s = fakeServices(world());
    const run = await runCommand(onChange('/arbiter status', 'rita'), s);
    expect(run.outcome).toBe('done');
    expect(s.calls).toContain('status #42 by rita');
  });

  it('lets the admin author promote their own candidate', async () => {
    const s = fakeServices(world({ permissions: { carol: 'admin' } }));
    expect((await runCommand(onCandidate('/arbiter promote', 'carol'), s)).outcome).toBe('done');
    expect(s.stateCalls()).toEqual(['promote #12 by carol']);
  });

  it('propagates a service failure so the job retries', async () => {
    const s = fakeServices(world());
    s.promote = async () => {
      throw new Error('GitHub is down');
    };
    await expect(runCommand(onCandidate('/arbiter promote'), s)).rejects.toThrow('GitHub is down');
  });
});

describe('runCommand: refusals change nothing and are answered', () => {
  type Row = [name: string, t: CommandTarget, code: RegExp];
  const rows: Row[] = [
    [
      'promote on a PR that is not a candidate',
      onOtherPr('/arbiter promote'),
      /is not a candidate \(a draft pull request linking a Change\)/,
    ],
    [
      'recheck on an issue',
      onChange('/arbiter recheck'),
      /is not a candidate \(a draft pull request linking a Change\)/,
    ],
    [
      'reject on a PR that is not a candidate',
      onOtherPr('/arbiter reject meh'),
      /is not a candidate \(a draft pull request linking a Change\)/,
    ],
    [
      'cancel on a PR that is not a candidate',
      onOtherPr('/arbiter cancel'),
      /is not a candidate \(a draft pull request linking a Change\)/,
    ],
    ['cancel on an untracked issue', onIssue('/arbiter cancel'), /is not a Change Arbiter tracks/],
    ['status on an untracked issue', onIssue('/arbiter status'), /is not a Change Arbiter tracks/],
    ['explore on a candidate PR', onCandidate('/arbiter explore 2'), /is not a Change Arbiter tracks/],
    ['explore on an untracked issue', onIssue('/arbiter explore 2'), /is not a Change Arbiter tracks/],
    ['reject without a reason', onCandidate('/arbiter reject'), /Usage: `\/arbiter reject REASON`/],
    ['reject with only spaces', onCandidate('/arbiter reject    '), /Usage: `\/arbiter reject REASON`/],
    [
      'explore 0',
      onChange('/arbiter explore 0'),
      /Usage: `\/arbiter explore \[N\]`, where N is a whole number from 1 to 10\./,
    ],
    [
      'explore 11',
      onChange('/arbiter explore 11'),
      /Usage: `\/arbiter explore \[N\]`, where N is a whole number from 1 to 10\./,
    ],
    ['explore -1', onChange('/arbiter explore -1'), /Usage/],
    ['explore 2.5', onChange('/arbiter explore 2.5'), /Usage/],
    ['explore many', onChange('/arbiter explore many'), /Usage/],
    [
      'promote by a reader',
      onCandidate('/arbiter promote', 'rita'),
      /needs write, maintain or admin access to this repository; you have read access/,
    ],
    [
      'promote by its write author',
      onCandidate('/arbiter promote', 'carol'),
      /author of a candidate cannot `promote` it/,
    ],
  ];

  it.each(rows)('%s', async (_name, t, why) => {
    const s = fakeServices(world());
    const run = await runCommand(t, s);
    expect(run.outcome).toBe('refused');
    expect(s.stateCalls()).toEqual([]);
    expect(s.calls.some((c) => /^status #/.test(c))).toBe(false);
    expect(s.calls).toContain('react confused');
    expect(s.calls).not.toContain('react eyes');
    const replies = s.calls.filter((c) => c.startsWith('reply '));
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain(`reply #${t.issueNumber}: > ${t.commentBody!.trim()}\n\n@${t.user}: `);
    expect(replies[0]).toMatch(why);
  });

  it('never looks up the candidate for an issue', async () => {
    const s = fakeServices(world());
    await runCommand(onChange('/arbiter promote'), s);
    expect(s.calls.filter((c) => c.startsWith('candidate'))).toEqual([]);
  });

  it('checks permission before where the verb applies', async () => {
    const s = fakeServices(world());
    await runCommand(onOtherPr('/arbiter explore 3', 'rita'), s);
    expect(s.calls.slice(0, 1)).toEqual(['permission rita']);
    expect(s.calls.filter((c) => c.startsWith('isChange') || c.startsWith('candidate'))).toEqual([]);
  });

  it('does not echo a huge command line', async () => {
    const s = fakeServices(world());
    await runCommand(onCandidate(`/arbiter reject ${'x'.repeat(100_000)}`, 'rita'), s);
    const reply = s.calls.find((c) => c.startsWith('reply '))!;
    expect(reply.length).toBeLessThan(1000);
    expect(reply).toContain('…');
  });
});

describe('runCommand: what is not handled', () => {
  it.each([
    ['no command', onCandidate('LGTM')],
    ['a quoted command', onCandidate('> /arbiter promote')],
    ['a command in code', onCandidate('```\n/arbiter promote\n```')],
    ['a bot asking for help', comment('/arbiter help', { user: 'renovate[bot]', userIsBot: false })],
    ['a flagged bot promoting', comment('/arbiter promote', { user: 'ci-helper', userIsBot: true })],
    ['a button event passed as a comment', click({ user: 'will' })],
  ])('%s', async (_name, t) => {
    const s = fakeServices(world());
    expect(await runCommand(t, s)).toEqual({ handled: false });
    expect(s.calls).toEqual([]);
  });
});

describe('help', () => {
  it('lists every registered verb with usage, description, who and example', () => {
    const help = renderHelp(VERBS, '/arbiter');
    const rows = help.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(VERBS.length);
    for (const verb of VERBS) {
      const row = rows.find((r) => r.startsWith(`| \`/arbiter ${verb.help.usage}\``));
      expect(row, verb.name).toBeDefined();
      expect(row).toContain(verb.help.description);
      expect(row).toContain(verb.help.who);
      expect(row).toContain(`\`/arbiter ${verb.help.example}\``);
      expect(verb.help.example.split(' ')[0]).toBe(verb.name);
    }
  });

  it('renders as a stable markdown table', () => {
    expect(renderHelp(VERBS, '/arbiter')).toMatchSnapshot();
  });

  it('answers `help` and a bare prefix with the table, for anyone, anywhere', async () => {
    for (const body of ['/arbiter help', '/arbiter']) {
      const s = fakeServices(world());
      const run = await runCommand(onIssue(body, 'stranger'), s);
      expect(run).toEqual({ handled: true, verb: 'help', outcome: 'help' });
      expect(s.stateCalls()).toEqual([]);
      const reply = s.calls.find((c) => c.startsWith('reply #50: '))!;
      expect(reply).toContain(renderHelp(VERBS, '/arbiter'));
    }
  });

  it('answers an unknown verb with the help, without reading permissions', async () => {
    const s = fakeServices(world());
    const run = await runCommand(onCandidate('/arbiter merge-it-now please'), s);
    expect(run).toEqual({ handled: true, verb: 'help', outcome: 'help' });
    expect(s.calls).toEqual([
      `reply #12: > /arbiter merge-it-now please\n\n\`merge-it-now\` is not an Arbiter command.\n\n${renderHelp(VERBS, '/arbiter')}`,
      'react confused',
    ]);
  });

  it('follows the configured prefix', async () => {
    const s = fakeServices(world({ prefix: '/ship' }));
    expect(await runCommand(onCandidate('/arbiter promote'), s)).toEqual({ handled: false });
    expect((await runCommand(onCandidate('/ship promote'), s)).outcome).toBe('done');
    await runCommand(onCandidate('/ship help'), s);
    const help = s.calls.filter((c) => c.startsWith('reply ')).at(-1)!;
    expect(help).toContain('`/ship promote`');
    expect(help).not.toContain('/arbiter');
  });
});

describe('check-run buttons', () => {
  it('are at most three, within GitHub limits, with distinct identifiers that map to verbs', () => {
    expect(SELECTION_BUTTONS.length).toBeLessThanOrEqual(3);
    for (const b of SELECTION_BUTTONS) {
      expect(b.label.length, b.label).toBeLessThanOrEqual(20);
      expect(b.description.length, b.description).toBeLessThanOrEqual(40);
      expect(b.identifier.length, b.identifier).toBeLessThanOrEqual(20);
      expect(b.label.length).toBeGreaterThan(0);
      expect(verbForButton(b.identifier)).not.toBeNull();
    }
    expect(new Set(SELECTION_BUTTONS.map((b) => b.identifier)).size).toBe(SELECTION_BUTTONS.length);
    expect(SELECTION_BUTTONS.map((b) => [b.label, verbForButton(b.identifier)])).toEqual([
      ['Promote', 'promote'],
      ['Re-run acceptance', 'recheck'],
      ['Re-rank', 'rank'],
    ]);
  });

  type Row = [identifier: string, user: string, expected: string | 'refused'];
  const rows: Row[] = [
    ['promote', 'will', 'promote #12 by will'],
    ['promote', 'rita', 'refused'],
    ['promote', 'carol', 'refused'], // the candidate's author with write access
    ['promote', 'ada', 'promote #12 by ada'],
    ['recheck', 'will', 'recheck #12 by will'],
    ['recheck', 'rita', 'refused'],
    ['rerank', 'will', 'rank #12 by will'],
    ['rerank', 'stranger', 'refused'],
  ];
  it.each(rows)('%s clicked by %s → %s', async (identifier, user, expected) => {
    const s = fakeServices(world());
    const run = await runButton(click({ issueNumber: 12, user }), identifier, s);
    expect(s.calls[0]).toBe(`permission ${user}`);
    expect(s.calls.some((c) => c.startsWith('react'))).toBe(false); // no comment to react on
    const reply = s.calls.find((c) => c.startsWith('reply #12: '))!;
    expect(reply).toContain(`> /arbiter ${verbForButton(identifier)} (the “`);
    if (expected === 'refused') {
      expect(run.outcome).toBe('refused');
      expect(s.stateCalls()).toEqual([]);
      expect(reply).toContain(`@${user}: `);
    } else {
      expect(run.outcome).toBe('done');
      expect(s.stateCalls()).toEqual([expected]);
    }
  });

  it('refuses a bot click without reading anything', async () => {
    const s = fakeServices(world());
    const run = await runButton(click({ user: 'helper[bot]', userIsBot: true }), 'promote', s);
    expect(run.outcome).toBe('refused');
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatch(
      /^reply #12: > \/arbiter promote \(the “Promote” button\)\n\n@helper\[bot\]: commands from bots/,
    );
  });

  it('applies the verb rules: a button on a PR that is not a candidate is refused', async () => {
    const s = fakeServices(world());
    const run = await runButton(click({ issueNumber: 13, user: 'will' }), 'recheck', s);
    expect(run.outcome).toBe('refused');
    expect(s.calls.find((c) => c.startsWith('reply'))).toMatch(
      /is not a candidate \(a draft pull request linking a Change\)/,
    );
  });

  it('does not handle an unknown identifier', async () => {
    const s = fakeServices(world());
    expect(await runButton(click({ user: 'will' }), 'merge', s)).toEqual({ handled: false });
    expect(await runButton(click({ user: 'will' }), 'toString', s)).toEqual({ handled: false });
    expect(s.calls).toEqual([]);
  });
});
