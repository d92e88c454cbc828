// A real Probot 14 app against the emulator, as on GitHub Enterprise (`/api/v3`, `/api/graphql`):
// it receives a signed webhook, reads its config file, queries GraphQL, writes a check run and a
// comment; the emulator records the writes, sees the app as sender, and finds no violations.
import { createServer, type Server } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { createNodeMiddleware, Probot } from 'probot';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GitHubEmulator } from '../../sim/github/index.ts';
import { settle } from './harness.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const SECRET = 'probot-secret';
let emulator: GitHubEmulator;
let server: Server;
const seen: string[] = [];

beforeAll(async () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  let ms = Date.parse('2026-04-01T00:00:00Z');
  emulator = await GitHubEmulator.start({
    webhookUrl: null,
    webhookSecret: SECRET,
    appId: 9,
    appSlug: 'arbiter',
    appPublicKeyPem: publicKey,
    now: () => (ms += 1000),
  });
  const probot = new Probot({
    appId: 9,
    privateKey,
    secret: SECRET,
    baseUrl: `${emulator.url}/api/v3`,
    logLevel: 'fatal',
    Octokit: arbiterOctokit(),
  });
  const middleware = await createNodeMiddleware(
    (app) => {
      app.on('pull_request.opened', async (context) => {
        seen.push(`sender ${context.payload.sender.login}`);
        const config = await context.config<{ gate?: { required?: string[] } }>('arbiter.yml');
        seen.push(`required ${config?.gate?.required?.join(',') ?? 'none'}`);
        const { repository } = await context.octokit.graphql<{
          repository: { pullRequest: { isDraft: boolean; headRefOid: string } };
        }>(
          'query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { isDraft headRefOid } } }',
          { owner: 'acme', name: 'bot', number: context.payload.number },
        );
        await context.octokit.rest.checks.create(
          context.repo({
            name: 'Arbiter / selection',
            head_sha: repository.pullRequest.headRefOid,
            status: 'in_progress' as const,
          }),
        );
        await context.octokit.rest.issues.createComment(
          context.issue({ body: `draft: ${repository.pullRequest.isDraft}` }),
        );
      });
      app.on('check_run.created', async (context) => {
        seen.push(`check_run.created by ${context.payload.sender.login}`);
      });
    },
    { probot },
  );
  server = createServer((req, res) => {
    void middleware(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  emulator.setWebhookUrl(
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/github/webhooks`,
  );
  emulator.createRepo({
    owner: 'acme',
    name: 'bot',
    files: { '.github/arbiter.yml': 'gate:\n  required: [test, lint]\n' },
  });
});

afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('serves a Probot app end to end', async () => {
  emulator.commit('acme/bot', 'agent/a', { files: { 'a.ts': 'a\n' }, from: 'main' });
  await emulator.openPullRequest('acme/bot', {
    number: 2,
    head: 'agent/a',
    title: 'A',
    body: 'Candidate-for: #1',
    user: 'agent',
    draft: true,
  });
  for (let i = 0; i < 200 && emulator.writes.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  await settle(emulator);
  expect(emulator.sentWebhooks.slice(0, 1)).toMatchObject([{ event: 'pull_request', action: 'opened', status: 200 }]);
  expect(seen.slice(0, 2)).toEqual(['sender agent', 'required test,lint']);
  expect(emulator.writes.map((w) => [w.route, w.summary])).toEqual([
    ['/repos/{owner}/{repo}/check-runs', 'check-run Arbiter / selection on #2: in_progress'],
    ['/repos/{owner}/{repo}/issues/{issue_number}/comments', 'comment on #2'],
  ]);
  expect(emulator.state('acme/bot').prs[2].comments).toEqual([{ user: 'arbiter[bot]', body: 'draft: true' }]);
  expect(seen).toContain('check_run.created by arbiter[bot]');
  expect(emulator.reads).toBeGreaterThanOrEqual(2);
  expect(emulator.violations).toEqual([]);
});
