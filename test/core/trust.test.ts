// The trust rules as tables: who is trusted, what counts as a Change, a candidate and a person's
// act, and what a linked PR that is not a candidate is told.
import { describe, expect, it } from 'vitest';
import {
  candidateStanding,
  changeStanding,
  editChangesCriteria,
  notCandidateCheck,
  personActCounts,
  trustOf,
  type PermissionLookup,
  type Trust,
} from '../../src/core/trust.ts';

const policy = { agents: ['copilot-swe-agent[bot]', 'my-agents[bot]'], appLogin: 'arbiter[bot]' };
const role = (permission: 'none' | 'read' | 'triage' | 'write' | 'maintain' | 'admin'): PermissionLookup => ({
  ok: true,
  permission,
});
const failed: PermissionLookup = { ok: false, reason: 'GitHub answered 502' };

describe('trustOf', () => {
  it.each<[string, string, boolean, PermissionLookup | null, boolean]>([
    ['admin', 'ada', false, role('admin'), true],
    ['maintain', 'mia', false, role('maintain'), true],
    ['write', 'will', false, role('write'), true],
    ['triage', 'tina', false, role('triage'), false],
    ['read', 'rita', false, role('read'), false],
    ['no access', 'nobody', false, role('none'), false],
    ['a failed lookup is never a yes', 'will', false, failed, false],
    ['no lookup at all is never a yes', 'will', false, null, false],
    ['a listed agent, without a lookup', 'copilot-swe-agent[bot]', true, null, true],
    ['a listed agent, case-insensitively', 'My-Agents[bot]', true, role('read'), true],
    ['a bot with write access', 'renovate[bot]', true, role('write'), true],
    ['an unlisted bot without write access', 'stranger-agent[bot]', true, role('read'), false],
    ['Arbiter itself', 'arbiter[bot]', true, null, true],
    ['a deleted account', '', false, role('admin'), false],
  ])('%s', (_label, login, isBot, lookup, trusted) => {
    expect(trustOf({ login, isBot }, lookup, policy).trusted).toBe(trusted);
  });

  it('says why an account is not trusted, and whether a lookup failed', () => {
    expect(trustOf({ login: 'rita', isBot: false }, role('read'), policy)).toEqual({
      trusted: false,
      reason: '@rita has no write access here (read access)',
      lookupFailed: false,
    });
    expect(trustOf({ login: 'will', isBot: false }, failed, policy)).toEqual({
      trusted: false,
      reason: "@will's permission could not be read (GitHub answered 502)",
      lookupFailed: true,
    });
  });
});

const yes: Trust = { trusted: true, why: 'permission' };
const no: Trust = { trusted: false, reason: '@rita has no write access here (read access)', lookupFailed: false };
const unknown: Trust = { trusted: false, reason: "@will's permission could not be read", lookupFailed: true };

describe('Changes and candidates', () => {
  it.each<[string, Trust, string | null, boolean]>([
    ['trusted author', yes, null, true],
    ['untrusted author', no, null, false],
    ['untrusted author, adopted / admitted by a maintainer', no, 'maya', true],
    ['author whose lookup failed', unknown, null, false],
    ['author whose lookup failed, adopted / admitted', unknown, 'maya', true],
  ])('%s', (_label, author, by, counts) => {
    expect(changeStanding(author, by).counts).toBe(counts);
    expect(candidateStanding(author, by).counts).toBe(counts);
  });

  it('an edit by an untrusted sender does not change the criteria', () => {
    expect(editChangesCriteria(yes)).toBe(true);
    expect(editChangesCriteria(no)).toBe(false);
    expect(editChangesCriteria(unknown)).toBe(false);
  });
});

describe("people's acts", () => {
  it.each<[string, boolean, PermissionLookup | null, boolean]>([
    ['a person with write', false, role('write'), true],
    ['a person with maintain', false, role('maintain'), true],
    ['a person with admin', false, role('admin'), true],
    ['a person with triage', false, role('triage'), false],
    ['a person with read', false, role('read'), false],
    ['a bot with admin', true, role('admin'), false],
    ['a person whose lookup failed', false, failed, false],
    ['a person not looked up', false, null, false],
  ])('%s', (_label, isBot, lookup, counts) => {
    expect(personActCounts({ login: 'x', isBot }, lookup).counts).toBe(counts);
  });
});

describe('the neutral check of a linked PR that is not a candidate', () => {
  it('names the author and how a maintainer admits it', () => {
    const text = notCandidateCheck({
      login: 'rita',
      reason: no.reason,
      lookupFailed: false,
      prefix: '/arbiter',
      change: 7,
    });
    expect(text.title).toBe(
      'Not a candidate: @rita has no write access here; a maintainer can admit it with `/arbiter admit`',
    );
    expect(text.summary).toContain('#7');
  });

  it('says that a failed lookup is retried, never read as a yes', () => {
    const text = notCandidateCheck({
      login: 'will',
      reason: unknown.reason,
      lookupFailed: true,
      prefix: '/bot',
      change: 7,
    });
    expect(text.title).toBe("Not a candidate yet: @will's permission could not be read");
    expect(text.summary).toContain('never a yes');
    expect(text.summary).toContain('`/bot admit`');
  });
});
