// readHead: one query, valid against GitHub's GraphQL schema, paths as variables; every
// failure a GitHubError with GitHub's words.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Octokit } from '../../src/deps.ts';
import { GitHubError } from '../../src/github/errors.ts';
import { buildReadQuery, readHead, type GraphqlClient } from '../../src/github/head-reads.ts';

// The app's client must fit the structural contract (compile-time check).
const fits = (o: Octokit): GraphqlClient => o.graphql;
void fits;

// The package exports only its main; its folder is found from the main's resolved path.
const pkgDir = dirname(fileURLToPath(import.meta.resolve('@octokit/graphql-schema')));
const sdl = readFileSync(join(pkgDir, 'schema.graphql'), 'utf8');

const tree: Record<string, string> = {
  'src/app.ts': "import './x';",
  'src/"quoted".ts': 'export const q = 1;',
  'public/index.html': '<html></html>',
  'public/js/a.js': 'a',
};

/** A fake GraphQL endpoint answering `object(expression:)` from `tree`; it records each call. */
const fakeGraphql =
  (calls: { query: string; variables: Record<string, unknown> }[]): GraphqlClient =>
  async (query, variables = {}) => {
    calls.push({ query, variables });
    const repository: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value !== 'string' || !/^[ed]\d+$/.test(name)) continue;
      const path = value.slice(value.indexOf(':') + 1);
      const alias = name.replace('e', 'f');
      if (name.startsWith('e')) {
        const text = tree[path];
        repository[alias] =
          text === undefined ? null : { text, byteSize: Buffer.byteLength(text), isBinary: false, isTruncated: false };
      } else {
        const under = Object.keys(tree).filter((p) => p.startsWith(`${path}/`));
        repository[alias] = { entries: under.map((p) => ({ path: p, type: 'blob', object: {} })) };
      }
    }
    return { repository };
  };

describe('readHead', () => {
  it('builds a query GitHub’s schema accepts', () => {
    const schema = buildSchema(sdl, { assumeValidSDL: true });
    const errors = validate(schema, parse(buildReadQuery(3, 2)));
    expect(errors.map((e) => e.message)).toEqual([]);
  });

  it('reads every path in one query, passing paths as variables', async () => {
    const calls: { query: string; variables: Record<string, unknown> }[] = [];
    const { files } = await readHead(fakeGraphql(calls), {
      owner: 'acme',
      repo: 'todo',
      sha: 'abc',
      paths: ['src/app.ts', 'src/"quoted".ts', 'missing.ts', 'public/index.html'],
    });
    expect(calls).toHaveLength(1);
    expect(calls[0].query).not.toContain('quoted');
    expect(calls[0].variables).toMatchObject({ owner: 'acme', name: 'todo', e1: 'abc:src/"quoted".ts' });
    expect([...files.keys()]).toEqual(['src/app.ts', 'src/"quoted".ts', 'public/index.html']);
    expect(files.get('src/app.ts')).toEqual({
      text: "import './x';",
      byteSize: 13,
      isBinary: false,
      isTruncated: false,
    });
  });

  it('lists folders in the same query', async () => {
    const calls: { query: string; variables: Record<string, unknown> }[] = [];
    const got = await readHead(fakeGraphql(calls), {
      owner: 'acme',
      repo: 'todo',
      sha: 'abc',
      paths: ['src/app.ts'],
      dirs: ['public'],
    });
    expect(calls).toHaveLength(1);
    expect(got.tree).toEqual(['public/index.html', 'public/js/a.js']);
  });

  it('asks nothing for nothing', async () => {
    const calls: { query: string; variables: Record<string, unknown> }[] = [];
    const got = await readHead(fakeGraphql(calls), { owner: 'a', repo: 'b', sha: 'c', paths: [], dirs: [] });
    expect(got.files.size).toBe(0);
    expect(got.tree).toEqual([]);
    expect(calls).toHaveLength(0);
  });

  it("fails as a GitHubError carrying GitHub's whole message", async () => {
    const failing: GraphqlClient = async () => {
      throw Object.assign(new Error('Request failed due to following response errors'), {
        errors: [{ message: 'Something went wrong while executing your query.', type: 'INTERNAL' }],
      });
    };
    const err = await readHead(failing, { owner: 'a', repo: 'b', sha: 'c', paths: ['x'] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitHubError);
    expect(err instanceof GitHubError && err.githubWords).toBe('Something went wrong while executing your query.');
  });

  it('fails as a GitHubError when the answer has no repository', async () => {
    const empty: GraphqlClient = async () => ({ repository: null });
    await expect(readHead(empty, { owner: 'a', repo: 'b', sha: 'c', paths: ['x'] })).rejects.toBeInstanceOf(
      GitHubError,
    );
  });
});
