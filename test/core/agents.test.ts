// The built-in agent table and login matching as tables: every form of an account matches, a
// known agent's name covers all its logins, and the config line that would trust a login.
import { describe, expect, it } from 'vitest';
import { agentOfLogin, entryCovers, KNOWN_AGENTS, listedEntry, sameAccount, trustLine } from '../../src/core/agents.ts';
import { notCandidateCheck, trustedWithoutLookup, trustOf, type PermissionLookup } from '../../src/core/trust.ts';

describe('entryCovers', () => {
  it.each<[string, string, boolean]>([
    // Copilot in REST, as commit author, in GraphQL
    ['copilot', 'Copilot', true],
    ['copilot', 'copilot-swe-agent[bot]', true],
    ['copilot', 'copilot-swe-agent', true],
    ['Copilot', 'COPILOT-SWE-AGENT[BOT]', true],
    ['claude', 'anthropic-code-agent[bot]', true],
    ['claude', 'anthropic-code-agent', true],
    ['codex', 'openai-code-agent[bot]', true],
    ['jules', 'google-labs-jules[bot]', true],
    ['devin', 'devin-ai-integration[bot]', true],
    ['cursor', 'cursor[bot]', true],
    ['cursor', 'cursoragent', true],
    ['openhands', 'openhands-agent', true],
    ['openhands', 'openhands-ai[bot]', true],
    ['sweep', 'sweep-ai[bot]', true],
    // names never cross agents, and a name is not a login
    ['copilot', 'anthropic-code-agent[bot]', false],
    ['claude', 'Copilot', false],
    ['jules', 'jules', false],
    // exact logins, in all their forms
    ['copilot-swe-agent[bot]', 'Copilot', false],
    ['copilot-swe-agent[bot]', 'copilot-swe-agent', true],
    ['my-agents[bot]', 'My-Agents[bot]', true],
    ['my-agents[bot]', 'my-agents', true],
    ['my-agents', 'my-agents[bot]', true],
    ['my-agents[bot]', 'my-agents-two[bot]', false],
    ['', '', false],
  ])('%j covers %j: %s', (entry, login, covers) => expect(entryCovers(entry, login)).toBe(covers));
});

describe('the table', () => {
  it('has the eight built-in names, each login belonging to one agent only', () => {
    expect(KNOWN_AGENTS.map((a) => a.name)).toEqual([
      'copilot',
      'claude',
      'codex',
      'jules',
      'devin',
      'cursor',
      'openhands',
      'sweep',
    ]);
    for (const agent of KNOWN_AGENTS)
      for (const login of agent.logins) expect(agentOfLogin(login)?.name).toBe(agent.name);
  });

  it('finds the entry as the config spells it', () => {
    expect(listedEntry(['renovate[bot]', 'Copilot'], 'copilot-swe-agent')).toBe('Copilot');
    expect(listedEntry(['claude'], 'Copilot')).toBeNull();
    expect(sameAccount('x', 'X[bot]')).toBe(true);
  });

  it.each([
    ['Copilot', 'trust.agents: [copilot]'],
    ['copilot-swe-agent[bot]', 'trust.agents: [copilot]'],
    ['google-labs-jules[bot]', 'trust.agents: [jules]'],
    ['stranger-agent[bot]', "trust.agents: ['stranger-agent[bot]']"],
    ['machine-user', 'trust.agents: [machine-user]'],
  ])('the line that trusts %s is %s', (login, line) => expect(trustLine(login)).toBe(line));
});

describe("a bot's 404 on the permission API", () => {
  const policy = { agents: ['claude'], appLogin: 'arbiter[bot]' };
  const notFound: PermissionLookup = { ok: false, reason: 'GitHub answered 404', status: 404 };

  it('means "not a listed agent", with the config line, not a failed lookup', () => {
    expect(trustOf({ login: 'copilot-swe-agent[bot]', isBot: true }, notFound, policy)).toEqual({
      trusted: false,
      reason: '@copilot-swe-agent[bot] is not a listed agent (GitHub gives a bot account no permission here)',
      lookupFailed: false,
      trustWith: 'trust.agents: [copilot]',
    });
  });

  it('a listed agent needs no lookup at all', () => {
    expect(trustOf({ login: 'anthropic-code-agent[bot]', isBot: true }, null, policy)).toEqual({
      trusted: true,
      why: 'agent',
    });
  });

  it('another failure stays a failed lookup', () => {
    const t = trustOf(
      { login: 'x[bot]', isBot: true },
      { ok: false, reason: 'GitHub answered 502', status: 502 },
      policy,
    );
    expect(t).toMatchObject({ trusted: false, lookupFailed: true });
  });

  it("the check names the line (and still the maintainer's admit)", () => {
    const text = notCandidateCheck({
      login: 'Copilot',
      reason: '@Copilot is not a listed agent (GitHub gives a bot account no permission here)',
      lookupFailed: false,
      prefix: '/arbiter',
      change: 42,
      trustWith: 'trust.agents: [copilot]',
    });
    expect(text.title).toBe(
      'Not a candidate: @Copilot is not a listed agent; add `trust.agents: [copilot]` to trust it',
    );
    expect(text.summary).toContain('`/arbiter admit`');
    expect(text.summary).not.toContain('could not be read');
  });
});

describe('a person whose login is an agent’s name is not that agent', () => {
  it('matches `x` and `x[bot]` only for a bot account', () => {
    // The app `claude[bot]` is Claude; a person who registered `claude` is not.
    expect(entryCovers('claude', 'claude[bot]', true)).toBe(true);
    expect(entryCovers('claude', 'claude', false)).toBe(false);
    expect(listedEntry(['my-ci[bot]'], 'my-ci', false)).toBeNull();
    expect(listedEntry(['my-ci[bot]'], 'my-ci', true)).toBe('my-ci[bot]');
    // Copilot's REST login has no `[bot]`: it is listed as written, so a bot or not, it matches.
    expect(entryCovers('copilot', 'Copilot', false)).toBe(true);
    expect(entryCovers('copilot', 'copilot-swe-agent', true)).toBe(true);
  });

  it('trusts the app, never the person with its name', () => {
    const policy = { agents: ['claude'], appLogin: 'arbiter[bot]' };
    expect(trustedWithoutLookup({ login: 'claude[bot]', isBot: true }, policy)).toEqual({
      trusted: true,
      why: 'agent',
    });
    expect(trustedWithoutLookup({ login: 'claude', isBot: false }, policy)).toBeNull();
  });
});
