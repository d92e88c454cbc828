// Classic protection's "require branches to be up to date" (`strict`) as GitHub gives it to an app:
// `GET /branches/{b}` may leave it out; then the protection endpoint's required_status_checks says
// it. Over HTTP (nock) with the production client; every scope ends with scope.done().
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { arbiterOctokit } from '../../src/github/client.ts';
import { systemClock } from '../../src/clock.ts';
import { GitHubGateway } from '../../src/github/gateway.ts';

const API = 'https://api.github.com';
const TestOctokit = arbiterOctokit();
const gateway = () =>
  new GitHubGateway(new TestOctokit({ auth: { token: 'test' } }), 'acme', 'todo', 'arbiter', systemClock);
/** The branch as an app token may see it: classic required checks, no `strict`. */
const branch = {
  name: 'main',
  protected: true,
  protection: { enabled: true, required_status_checks: { enforcement_level: 'non_admins', contexts: ['test'] } },
};

beforeAll(() => {
  nock.disableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
});

describe('classic strict', () => {
  it('is read from the protection endpoint when the branch read leaves it out', async () => {
    const scope = nock(API)
      .get('/repos/acme/todo/rules/branches/main')
      .query(true)
      .reply(200, [])
      .get('/repos/acme/todo/branches/main')
      .reply(200, branch)
      .get('/repos/acme/todo/branches/main/protection/required_status_checks')
      .reply(200, { strict: true, contexts: ['test'], checks: [{ context: 'test', app_id: null }] });
    expect(await gateway().branchRules('main')).toEqual({
      required: ['test'],
      requiredReviews: 0,
      mergeQueue: false,
      strict: true,
    });
    scope.done();
  });

  it('stays unknown (not strict) when the app may not read the protection (403); the rulesets still count', async () => {
    const scope = nock(API)
      .get('/repos/acme/todo/rules/branches/main')
      .query(true)
      .reply(200, [
        {
          type: 'required_status_checks',
          parameters: { strict_required_status_checks_policy: true, required_status_checks: [{ context: 'lint' }] },
        },
      ])
      .get('/repos/acme/todo/branches/main')
      .reply(200, branch)
      .get('/repos/acme/todo/branches/main/protection/required_status_checks')
      .reply(403, { message: 'Resource not accessible by integration' });
    expect(await gateway().branchRules('main')).toMatchObject({ required: ['lint', 'test'], strict: true });
    scope.done();
  });

  it('is not read again when the branch read states it', async () => {
    const scope = nock(API)
      .get('/repos/acme/todo/rules/branches/main')
      .query(true)
      .reply(200, [])
      .get('/repos/acme/todo/branches/main')
      .reply(200, {
        ...branch,
        protection: { ...branch.protection, required_status_checks: { contexts: ['test'], strict: false } },
      });
    expect(await gateway().branchRules('main')).toMatchObject({ strict: false });
    scope.done();
  });
});
