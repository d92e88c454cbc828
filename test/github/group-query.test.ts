// The group query when GitHub answers only part of it: a sibling that errors or comes back null
// is read again alone, and the others' data is used.
import { describe, expect, it } from 'vitest';
import { readGroupState } from '../../src/github/group-query.ts';
import { FakeGitHub } from '../support/fake-github.ts';

/** Octokit's error for an answer with `errors` beside partial `data`. */
class GraphqlResponseError extends Error {
  override readonly name = 'GraphqlResponseError';
  constructor(readonly data: unknown) {
    super('Request failed due to following response errors:\n - Something went wrong while executing your query.');
  }
}

function world() {
  const gh = new FakeGitHub();
  for (const n of [11, 12, 13]) gh.addPull({ number: n, headSha: `${n}`.repeat(20) });
  return gh;
}

describe('readGroupState with a partial answer', () => {
  it('re-reads alone a sibling that errored (null beside errors) and keeps the others', async () => {
    const gh = world();
    const queries: string[] = [];
    const state = await readGroupState(
      async (query, variables) => {
        const aliases = [...query.matchAll(/pr(\d+): pullRequest/g)].map((m) => m[1]);
        queries.push(aliases.join(','));
        const answer = gh.answerGraphql(query, variables) as { repository: Record<string, unknown> };
        if (aliases.length > 1) throw new GraphqlResponseError({ repository: { ...answer.repository, pr12: null } });
        return answer;
      },
      'acme',
      'todo',
      [11, 12, 13],
      'arbiter',
    );
    expect(queries).toEqual(['11,12,13', '12']);
    expect([...state.keys()].sort()).toEqual([11, 12, 13]);
    expect(state.get(12)?.headSha).toBe('12'.repeat(20));
  });

  it('a sibling that comes back null again alone is left out; the others are used', async () => {
    const gh = world();
    const state = await readGroupState(
      async (query, variables) => {
        const answer = gh.answerGraphql(query, variables) as { repository: Record<string, unknown> };
        return { repository: { ...answer.repository, ...('pr13' in answer.repository ? { pr13: null } : {}) } };
      },
      'acme',
      'todo',
      [11, 12, 13],
      'arbiter',
    );
    expect([...state.keys()].sort()).toEqual([11, 12]);
  });

  it('an error without data still fails the read', async () => {
    await expect(
      readGroupState(async () => Promise.reject(new Error('fetch failed')), 'acme', 'todo', [11, 12], 'arbiter'),
    ).rejects.toThrow('fetch failed');
  });
});
