// loadRepoConfig against a mocked GitHub (nock) with a real Probot octokit: the repository
// file, YAML errors with their line, `_extends` bases, the organisation fallback.
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubError } from '../../src/github/errors.ts';
import { loadRepoConfig } from '../../src/config/load.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { API, CONTENTS, makeGitHub } from './octokit.ts';

const RAW = { 'content-type': 'application/vnd.github.raw; charset=utf-8' };

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
});

describe('loadRepoConfig', () => {
  it('reads the repository file at the ref in one request', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query({ ref: 'abc123' })
      .reply(200, 'mode: shadow\ngate:\n  required: [test]\n', RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'abc123' });
    expect(result).toMatchObject({ ok: true, source: 'file', files: ['acme/todo:.github/arbiter.yml'] });
    if (result.ok) expect(result.config).toMatchObject({ mode: 'shadow', gate: { required: ['test'] } });
    scope.done();
  });

  it('decodes a raw answer sent without a charset', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .reply(200, 'mode: shadow\n', { 'content-type': 'application/vnd.github.raw' });
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo' });
    expect(result).toMatchObject({ ok: true, config: { mode: 'shadow' } });
    scope.done();
  });

  it('uses the defaults when no file exists in the repository or the organisation', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .times(2)
      .reply(404, { message: 'Not Found' })
      .get(CONTENTS('acme', '.github'))
      .reply(404, { message: 'Not Found' });
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo' });
    expect(result).toEqual({ ok: true, config: defaultConfig(), source: 'default', files: [] });
    scope.done();
  });

  it('reports a YAML error in the repository file with its line', async () => {
    const text = 'mode: live\ngate:\n  required: [test\n  score: x\n';
    const scope = nock(API).get(CONTENTS('acme', 'todo')).query(true).reply(200, text, RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'main' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.text).toBe(text);
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors[0]).toMatchObject({ path: '', message: expect.stringMatching(/^invalid YAML/) });
    expect(result.errors[0].line).toBeGreaterThanOrEqual(3);
    scope.done();
  });

  it('reports an unknown key with its line', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .reply(200, 'mode: live\npolicy:\n  mergMethod: squash\n', RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'main' });
    expect(result).toMatchObject({
      ok: false,
      errors: [{ path: 'policy.mergMethod', line: 3, message: 'unknown key (did you mean "mergeMethod"?)' }],
    });
    scope.done();
  });

  it('merges an `_extends` base from the organisation .github repository', async () => {
    const own = '_extends: .github\npolicy:\n  mergeMethod: rebase\n';
    const base = 'mode: shadow\ngate:\n  required: [ci]\npolicy:\n  autoShip: [low]\n';
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query({ ref: 'abc123' })
      .times(2)
      .reply(200, own, RAW)
      .get(CONTENTS('acme', '.github'))
      .reply(200, base, RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'abc123' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.files).toEqual(['acme/todo:.github/arbiter.yml', 'acme/.github:.github/arbiter.yml']);
    expect(result.config.mode).toBe('shadow');
    expect(result.config.gate.required).toEqual(['ci']);
    expect(result.config.policy).toMatchObject({ mergeMethod: 'rebase', autoShip: ['low'] });
    scope.done();
  });

  it('says when an error comes from the extended base file', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .times(2)
      .reply(200, '_extends: acme/shared:arbiter/base.yml\nmode: live\n', RAW)
      .get('/repos/acme/shared/contents/arbiter%2Fbase.yml')
      .reply(200, 'gate:\n  requird: [ci]\n', RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'main' });
    expect(result).toMatchObject({
      ok: false,
      errors: [
        {
          path: 'gate.requird',
          line: null,
          file: 'acme/shared:arbiter/base.yml',
          message: expect.stringMatching(/^unknown key/),
        },
      ],
    });
    scope.done();
  });

  it('reports an `_extends` that names a missing file on the `_extends` line', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .times(2)
      .reply(200, '# shared settings\n_extends: .github\n', RAW)
      .get(CONTENTS('acme', '.github'))
      .reply(404, { message: 'Not Found' });
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'main' });
    expect(result).toMatchObject({
      ok: false,
      errors: [
        { path: '_extends', line: 2, message: 'the extended file acme/.github:.github/arbiter.yml does not exist' },
      ],
    });
    scope.done();
  });

  it('reports invalid YAML in the base file on the `_extends` line', async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .query(true)
      .times(2)
      .reply(200, '_extends: .github\n', RAW)
      .get(CONTENTS('acme', '.github'))
      .reply(200, 'mode: [live\n', RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo', ref: 'main' });
    expect(result).toMatchObject({
      ok: false,
      errors: [{ path: '_extends', line: 1, message: expect.stringMatching(/invalid YAML/) }],
    });
    scope.done();
  });

  it("uses the organisation's .github file when the repository has none", async () => {
    const scope = nock(API)
      .get(CONTENTS('acme', 'todo'))
      .times(2)
      .reply(404, { message: 'Not Found' })
      .get(CONTENTS('acme', '.github'))
      .reply(200, 'mode: shadow\n', RAW);
    const result = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo' });
    expect(result).toMatchObject({
      ok: true,
      source: 'file',
      files: ['acme/.github:.github/arbiter.yml'],
      config: { mode: 'shadow' },
    });
    scope.done();
  });

  it('throws the one GitHub error when GitHub fails', async () => {
    const scope = nock(API).get(CONTENTS('acme', 'todo')).reply(502, { message: 'Bad Gateway' });
    const error = await loadRepoConfig(makeGitHub(), { owner: 'acme', repo: 'todo' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ status: 502, transient: true });
    scope.done();
  });
});
