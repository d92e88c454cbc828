// The emulator's record of the app's webhook deliveries, through Arbiter's own client
// (GitHubAppHooks, as the app: JWT) and recovery pass: every attempt is listed newest first over
// GitHub's cursor paging with the app's answer, a delivery fault fails a first attempt before it
// reaches the app, and a redelivery sends the same bytes under the same X-GitHub-Delivery.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { Probot } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import { GitHubAppHooks } from '../../src/github/gateway.ts';
import { recoverDeliveries } from '../../src/workflows/recover-deliveries.ts';
import { GitHubEmulator } from '../../sim/github/index.ts';
import { arbiterOctokit } from '../../src/github/client.ts';

const REPO = 'acme/hooks';
const START = Date.parse('2026-03-01T10:00:00Z');
const received: { guid: string; body: string }[] = [];
let receiver: Server;
let emulator: GitHubEmulator;
let hooks: GitHubAppHooks;
let appOctokit: Awaited<ReturnType<Probot['auth']>>;
const clock = { ms: START };

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ guid: String(req.headers['x-github-delivery']), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const port = (receiver.address() as { port: number }).port;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  emulator = await GitHubEmulator.start({
    webhookUrl: `http://127.0.0.1:${port}/`,
    webhookSecret: 's',
    appId: 77,
    appSlug: 'arbiter',
    appPublicKeyPem: publicKey,
    now: () => clock.ms,
  });
  const probot = new Probot({
    appId: 77,
    privateKey,
    baseUrl: emulator.url,
    log: pino({ level: 'silent' }),
    Octokit: arbiterOctokit(),
  });
  appOctokit = await probot.auth();
  hooks = new GitHubAppHooks(appOctokit);
  emulator.createRepo({ owner: 'acme', name: 'hooks', files: { 'a.ts': 'export {};\n' } });
});

afterAll(async () => {
  await emulator?.stop();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('the app webhook deliveries', () => {
  it('lists every attempt over cursor pages, fails the faulted ones, and redelivers what the recovery asks for', async () => {
    emulator.addDeliveryFault({ event: 'issues', action: 'opened', nth: 2, status: 502 });
    emulator.addDeliveryFault({ event: 'issues', on: 104, nth: 1, status: 503 });
    for (let n = 1; n <= 105; n++) {
      clock.ms = START + n * 1000;
      await emulator.openIssue(REPO, { number: n, title: `Issue ${n}`, body: '', user: 'requester' });
    }
    expect(received).toHaveLength(103);

    const listed = await hooks.listDeliveries(new Date(START), 20);
    expect(listed).toHaveLength(105); // two pages of the cursor
    expect(listed.map((a) => a.id)).toEqual([...listed.map((a) => a.id)].sort((x, y) => y - x));
    const failed = listed.filter((a) => a.status !== 'OK');
    expect(failed.map((a) => [a.statusCode, a.status, a.event, a.action])).toEqual([
      [503, 'Invalid HTTP Response: 503', 'issues', 'opened'],
      [502, 'Invalid HTTP Response: 502', 'issues', 'opened'],
    ]);
    expect(listed.filter((a) => a.status === 'OK').every((a) => a.statusCode === 202 && !a.redelivery)).toBe(true);
    // `since` stops the reading: only the attempts from issue 100 on.
    expect(await hooks.listDeliveries(new Date(START + 100_000), 20)).toHaveLength(6);

    // The receiver is the store: what it received is recorded.
    const store = {
      knownDeliveries: async (ids: string[]) => new Set(ids.filter((id) => received.some((r) => r.guid === id))),
    };
    const log = pino({ level: 'silent' });
    const pass = await recoverDeliveries({ hooks, store, clock: new ManualClock(clock.ms), log });
    expect(pass.asked).toEqual([failed[1]?.guid, failed[0]?.guid]); // oldest first
    await expect.poll(() => received.length).toBe(105);
    const again = received.slice(103);
    expect(again.map((r) => r.guid)).toEqual(pass.asked);
    const firstBody = emulator.hookAttempts.find((a) => a.guid === pass.asked[0]);
    expect(firstBody?.fault).toBe(true);
    expect(JSON.parse(again[0]?.body ?? '{}')).toMatchObject({ action: 'opened', issue: { number: 2 } });

    const after = await hooks.listDeliveries(new Date(START), 20);
    expect(after.slice(0, 2).map((a) => [a.guid, a.redelivery, a.status])).toEqual([
      [pass.asked[1], true, 'OK'],
      [pass.asked[0], true, 'OK'],
    ]);
    expect((await recoverDeliveries({ hooks, store, clock: new ManualClock(clock.ms), log })).asked).toEqual([]);
    expect(emulator.violations).toEqual([]);
  });

  it('refuses a redelivery of an attempt it does not know (404) and a per_page that is not a number', async () => {
    await expect(hooks.redeliver(999_999)).rejects.toMatchObject({ status: 404 });
    await expect(
      appOctokit.request('GET /app/hook/deliveries', { per_page: 'many' as unknown as number }),
    ).rejects.toMatchObject({ status: 422 });
    expect(emulator.violations.splice(0)).toEqual([
      "GET /app/hook/deliveries (/app/hook/deliveries) breaks GitHub's OpenAPI contract: query parameter per_page must be integer",
    ]);
  });
});
