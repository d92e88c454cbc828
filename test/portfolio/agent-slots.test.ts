// Portfolio slots answered by real agents (issue 30, item 5): `portfolio.approaches` may name the
// agent that takes each slot, and a PR without an `Arbiter-slot:` line fills the slot its author takes.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/parse.ts';
import { agentTakes, slotForAgent, type ApproachEntry } from '../../src/core/portfolio.ts';

describe('portfolio.approaches naming agents', () => {
  it('reads text entries and { approach, agent } entries side by side', () => {
    const text = [
      'portfolio:',
      '  approaches:',
      '    - { approach: Keep state in the URL, agent: Copilot }',
      '    - Keep state in local storage',
      '',
    ].join('\n');
    const r = parseConfigText(text);
    expect(r.ok && r.config.portfolio.approaches).toEqual([
      { approach: 'Keep state in the URL', agent: 'Copilot' },
      'Keep state in local storage',
    ]);
  });

  it('still refuses a repeated approach, whichever form each takes', () => {
    const text = [
      'portfolio:',
      '  approaches:',
      '    - { approach: Keep state in the URL, agent: Copilot }',
      '    - keep state in the url',
      '',
    ].join('\n');
    const r = parseConfigText(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.path, e.line])).toEqual([['portfolio.approaches[1]', 4]]);
  });

  it('refuses an entry with no agent, or an unknown key, with the line', () => {
    const r = parseConfigText('portfolio:\n  approaches:\n    - { approach: URL, agnet: Copilot }\n');
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors.map((e) => [e.path, e.line])).toEqual([['portfolio.approaches[0]', 3]]);
  });
});

describe('matching a PR to the slot its agent takes', () => {
  it.each([
    ['Copilot', 'Copilot', true],
    ['copilot', 'Copilot', true],
    ['anthropic-code-agent[bot]', 'anthropic-code-agent', true],
    ['anthropic-code-agent', 'anthropic-code-agent[bot]', true],
    ['Copilot', 'octocat', false],
    ['', '', false],
    // A known agent's name, or one of its logins, stands for every login it appears under.
    ['copilot', 'copilot-swe-agent', true],
    ['Copilot', 'copilot-swe-agent[bot]', true],
    ['claude', 'anthropic-code-agent[bot]', true],
    ['claude', 'Copilot', false],
    ['codex', 'codex', false],
  ])('agent %j takes a PR by %j: %s', (agent, author, expected) => expect(agentTakes(agent, author)).toBe(expected));

  const approaches: ApproachEntry[] = [
    { approach: 'URL', agent: 'Copilot' },
    'local storage',
    { approach: 'cookie', agent: 'Copilot' },
    { approach: 'server', agent: 'anthropic-code-agent[bot]' },
  ];
  const slots = [
    { slot: '7-1-1', approach: 'URL', state: 'composing' },
    { slot: '7-1-2', approach: 'local storage', state: 'composing' },
    { slot: '7-1-3', approach: 'cookie', state: 'composing' },
    { slot: '7-1-4', approach: 'server', state: 'composing' },
  ];

  it.each([
    ['Copilot', slots, '7-1-1'],
    // Its first slot filled already: its next one, in dispatch order.
    ['Copilot', [{ ...slots[0]!, state: 'open' }, ...slots.slice(1)], '7-1-3'],
    ['anthropic-code-agent', slots, '7-1-4'],
    // Nobody named takes an unnamed approach, and an unnamed author takes no slot.
    ['octocat', slots, null],
    ['Copilot', slots.filter((s) => s.approach !== 'URL' && s.approach !== 'cookie'), null],
    // A dropped slot is not filled again.
    ['anthropic-code-agent[bot]', slots.map((s) => ({ ...s, state: 'dropped' })), null],
  ])('a PR by %s fills %#', (author, list, expected) => expect(slotForAgent(list, approaches, author)).toBe(expected));
});
