// The coding agents Arbiter knows by name (`trust.agents: [copilot]`), as data: each name stands
// for every login that agent appears under on GitHub. Logins were read from the agents' public
// pull requests and docs (docs/agents.md describes each). A login matches in all its forms: the
// REST and webhook form (`name[bot]` for an app), GraphQL's (the same without `[bot]`), any case.
// Pure.

export interface KnownAgent {
  /** The name a config lists (`trust.agents: [copilot]`). */
  name: string;
  /** Who it is, for people (docs and checks). */
  title: string;
  /** Every login the agent's pull requests and commits appear under. */
  logins: readonly string[];
}

export const KNOWN_AGENTS: readonly KnownAgent[] = [
  {
    name: 'copilot',
    title: 'GitHub Copilot coding agent',
    // REST and webhooks: `Copilot` (type Bot); commits: `copilot-swe-agent[bot]`; GraphQL: `copilot-swe-agent`.
    logins: ['Copilot', 'copilot-swe-agent[bot]'],
  },
  {
    name: 'claude',
    title: 'Claude (Agent HQ, and the Claude GitHub app)',
    logins: ['anthropic-code-agent[bot]', 'claude[bot]'],
  },
  {
    name: 'codex',
    title: 'OpenAI Codex (Agent HQ; Codex cloud opens its pull requests as the person who asked)',
    logins: ['openai-code-agent[bot]'],
  },
  { name: 'jules', title: 'Google Jules', logins: ['google-labs-jules[bot]'] },
  { name: 'devin', title: 'Devin', logins: ['devin-ai-integration[bot]'] },
  {
    name: 'cursor',
    title: 'Cursor background agents (the Cursor app; by default they open as the person who asked)',
    logins: ['cursor[bot]', 'cursoragent'],
  },
  {
    name: 'openhands',
    title: 'OpenHands (the OpenHands Cloud app, or the resolver’s `openhands-agent` account)',
    logins: ['openhands-ai[bot]', 'openhands-agent'],
  },
  { name: 'sweep', title: 'Sweep', logins: ['sweep-ai[bot]'] },
];

/** A login reduced to what every form of it shares: lower case, without `[bot]`. */
export const loginKey = (login: string): string =>
  login
    .trim()
    .toLowerCase()
    .replace(/\[bot\]$/, '');

/**
 * True when two logins name the same account, in any case. `x` and `x[bot]` are one account only
 * when the account is known to be a bot (GraphQL drops an app's `[bot]`): a person named `claude`
 * is never the app `claude[bot]`, so `isBot: false` compares the logins as written.
 */
export const sameAccount = (a: string, b: string, isBot = true): boolean =>
  a.trim() !== '' && (isBot ? loginKey(a) === loginKey(b) : a.trim().toLowerCase() === b.trim().toLowerCase());

/** The known agent with this config name (case-insensitive), else null. */
export function agentNamed(name: string): KnownAgent | null {
  const wanted = name.trim().toLowerCase();
  return KNOWN_AGENTS.find((a) => a.name === wanted) ?? null;
}

/** The known agent this login belongs to, else null. */
export function agentOfLogin(login: string): KnownAgent | null {
  return KNOWN_AGENTS.find((a) => a.logins.some((l) => sameAccount(l, login))) ?? null;
}

/**
 * Whether one `trust.agents` entry (a known agent's name, or an exact login) covers `login`.
 * `isBot`: whether GitHub says the account is a bot; only then do `x` and `x[bot]` match.
 */
export function entryCovers(entry: string, login: string, isBot = true): boolean {
  const agent = agentNamed(entry);
  if (agent) return agent.logins.some((l) => sameAccount(l, login, isBot));
  return sameAccount(entry, login, isBot);
}

/** The `trust.agents` entry listed for `login` (the config's own spelling), else null. */
export const listedEntry = (agents: readonly string[], login: string, isBot = true): string | null =>
  agents.find((entry) => entryCovers(entry, login, isBot)) ?? null;

/** The config line that would trust `login`: the agent's name when it is a known agent, else the exact login. */
export function trustLine(login: string): string {
  const agent = agentOfLogin(login);
  if (agent) return `trust.agents: [${agent.name}]`;
  // A login with `[bot]` must be quoted in YAML's flow style (brackets).
  return /^[A-Za-z0-9][A-Za-z0-9-]*$/.test(login) ? `trust.agents: [${login}]` : `trust.agents: ['${login}']`;
}
