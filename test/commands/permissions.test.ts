// Permission matrix: every verb × every kind of asker, through runCommand with a recording fake.
// A refusal is answered (quote + reason, confused) and makes no state-changing call.
import { describe, expect, it } from 'vitest';
import { mayRun } from '../../src/commands/permissions.ts';
import { VERBS, findVerb } from '../../src/commands/registry.ts';
import { runCommand } from '../../src/commands/run.ts';
import type { Permission } from '../../src/commands/types.ts';
import { comment, fakeServices } from './fake-services.ts';

interface Asker {
  label: string;
  user: string;
  permission: Permission;
  isAuthor: boolean;
  isBot: boolean;
}

const ASKERS: Asker[] = [
  { label: 'read', user: 'rita', permission: 'read', isAuthor: false, isBot: false },
  { label: 'triage', user: 'tina', permission: 'triage', isAuthor: false, isBot: false },
  { label: 'write', user: 'will', permission: 'write', isAuthor: false, isBot: false },
  { label: 'maintain', user: 'mia', permission: 'maintain', isAuthor: false, isBot: false },
  { label: 'admin', user: 'ada', permission: 'admin', isAuthor: false, isBot: false },
  { label: 'none', user: 'nobody', permission: 'none', isAuthor: false, isBot: false },
  { label: 'author (write)', user: 'carol', permission: 'write', isAuthor: true, isBot: false },
  { label: 'author (admin)', user: 'alan', permission: 'admin', isAuthor: true, isBot: false },
  { label: 'bot', user: 'helper[bot]', permission: 'write', isAuthor: false, isBot: true },
];

// Columns in ASKERS order: read triage write maintain admin none author(w) author(a) bot.
const MATRIX: Record<string, string> = {
  help: '     y y y y y y y y n',
  status: '   y y y y y y y y n',
  rank: '     n n y y y n y y n',
  recheck: '  n n y y y n y y n',
  promote: '  n n y y y n n y n',
  reject: '   n n y y y n y y n',
  cancel: '   n n y y y n y y n',
  explore: '  n n y y y n y y n',
  admit: '    n n y y y n y y n',
  track: '    n n y y y n y y n',
  link: '     n n y y y n y y n',
};

/** The comment that invokes each verb validly, and where (explore belongs on the Change #42). */
const INVOCATION: Record<string, { body: string; issue: number; isPullRequest: boolean }> = {
  help: { body: '/arbiter help', issue: 12, isPullRequest: true },
  status: { body: '/arbiter status', issue: 12, isPullRequest: true },
  rank: { body: '/arbiter rank', issue: 12, isPullRequest: true },
  recheck: { body: '/arbiter recheck', issue: 12, isPullRequest: true },
  promote: { body: '/arbiter promote', issue: 12, isPullRequest: true },
  reject: { body: '/arbiter reject misses the calendar view', issue: 12, isPullRequest: true },
  cancel: { body: '/arbiter cancel', issue: 12, isPullRequest: true },
  explore: { body: '/arbiter explore 3', issue: 42, isPullRequest: false },
  admit: { body: '/arbiter admit', issue: 12, isPullRequest: true },
  track: { body: '/arbiter track', issue: 42, isPullRequest: false },
  link: { body: '/arbiter link #42', issue: 12, isPullRequest: true },
};

const rows = VERBS.flatMap((verb) => {
  const flags = MATRIX[verb.name].trim().split(/\s+/);
  return ASKERS.map((asker, i) => ({ verb: verb.name, asker, allowed: flags[i] === 'y' }));
});

describe('permission matrix', () => {
  it('covers every registered verb and every asker', () => {
    expect(Object.keys(MATRIX).sort()).toEqual(VERBS.map((v) => v.name).sort());
    for (const flags of Object.values(MATRIX)) expect(flags.trim().split(/\s+/)).toHaveLength(ASKERS.length);
  });

  it.each(rows)('$verb by $asker.label → allowed: $allowed', async ({ verb, asker, allowed }) => {
    const { body, issue, isPullRequest } = INVOCATION[verb];
    const services = fakeServices({
      permissions: { [asker.user]: asker.permission },
      candidates: {
        12: { pr: 12, change: 42, author: asker.isAuthor ? asker.user : 'someone-else', state: 'verified' },
      },
      changes: [42],
    });
    const t = comment(body, { issueNumber: issue, isPullRequest, user: asker.user, userIsBot: asker.isBot });
    const run = await runCommand(t, services);

    // The pure rule agrees with what the runner did.
    const rule = mayRun(findVerb(verb)!, {
      permission: asker.permission,
      isAuthor: asker.isAuthor,
      isBot: asker.isBot,
    });
    expect(rule.ok).toBe(allowed);

    if (asker.isBot) {
      // A bot's comment is ignored before parsing: nothing is read, nothing is said.
      expect(run).toEqual({ handled: false });
      expect(services.calls).toEqual([]);
      return;
    }
    expect(services.calls[0]).toBe(`permission ${asker.user}`);
    if (allowed) {
      expect(run).toEqual({ handled: true, verb, outcome: verb === 'help' ? 'help' : 'done' });
      expect(services.calls).toContain('react eyes');
      expect(services.calls).toContain('react +1');
      expect(services.calls.some((c) => c.startsWith(`reply #${issue}: > ${body}\n\n`))).toBe(true);
      if (verb !== 'help' && verb !== 'status') {
        expect(services.stateCalls()).toHaveLength(1);
        expect(services.stateCalls()[0]).toMatch(new RegExp(`^${verb} #${issue} by ${asker.user}`));
      }
    } else {
      expect(run).toEqual({ handled: true, verb, outcome: 'refused' });
      expect(services.stateCalls()).toEqual([]);
      expect(services.calls).not.toContain(`status #${issue} by ${asker.user}`);
      expect(services.calls).toContain('react confused');
      const reply = services.calls.find((c) => c.startsWith('reply '));
      expect(reply).toBeDefined();
      expect(reply).toContain(`> ${body}`);
      expect(reply).toContain(`@${asker.user}: `);
      expect(reply).toMatch(asker.isAuthor ? /author of a candidate/ : /needs write, maintain or admin/);
    }
  });
});

describe('mayRun', () => {
  it('refuses a bot even with admin access, for every verb', () => {
    for (const verb of VERBS) {
      expect(mayRun(verb, { permission: 'admin', isAuthor: false, isBot: true }).ok).toBe(false);
    }
  });

  it('names the role the user has in the reason', () => {
    const promote = findVerb('promote')!;
    const refused = mayRun(promote, { permission: 'triage', isAuthor: false, isBot: false });
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('you have triage access') });
    const none = mayRun(promote, { permission: 'none', isAuthor: false, isBot: false });
    expect(none).toEqual({ ok: false, reason: expect.stringContaining('you have no access') });
  });

  it('accepts a verb name or alias, and refuses an unknown one', () => {
    const writer = { permission: 'write' as const, isAuthor: false, isBot: false };
    expect(mayRun('rerank', writer)).toEqual({ ok: true });
    expect(mayRun('PROMOTE', { ...writer, isAuthor: true }).ok).toBe(false);
    expect(mayRun('merge', { ...writer, permission: 'admin' }).ok).toBe(false);
  });

  it('lets an author run every write verb except promote', () => {
    const author = { permission: 'write' as const, isAuthor: true, isBot: false };
    const refusedForAuthor = VERBS.filter((v) => !mayRun(v, author).ok).map((v) => v.name);
    expect(refusedForAuthor).toEqual(['promote']);
  });
});
