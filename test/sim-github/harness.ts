// Test harness for the GitHub emulator: starts one, a webhook receiver that checks signatures,
// and an @octokit/rest client authenticated like an app (JWT, then an installation token).
import { createHmac, createSign, generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Octokit } from '@octokit/rest';
import { GitHubEmulator } from '../../sim/github/index.ts';

export interface Received {
  event: string;
  delivery: string;
  signatureValid: boolean;
  userAgent: string;
  body: string;
  payload: Record<string, unknown>;
}

export interface Harness {
  emulator: GitHubEmulator;
  octokit: Octokit;
  received: Received[];
  clock: { ms: number };
  jwt: () => string;
  /** the payloads received for an event (and action) */
  events: (event: string, action?: string) => Record<string, unknown>[];
  stop: () => Promise<void>;
}

export const SECRET = 'emulator-test-secret';

function signJwt(privateKeyPem: string, appId: number, nowSeconds: number): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({ iat: nowSeconds - 30, exp: nowSeconds + 540, iss: appId })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(privateKeyPem).toString('base64url');
  return `${unsigned}.${signature}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export async function startHarness(): Promise<Harness> {
  const received: Received[] = [];
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
      const parsed: unknown = JSON.parse(body);
      received.push({
        event: String(req.headers['x-github-event']),
        delivery: String(req.headers['x-github-delivery']),
        signatureValid: given.length === expected.length && timingSafeEqual(given, expected),
        userAgent: String(req.headers['user-agent']),
        body,
        payload: isRecord(parsed) ? parsed : {},
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const address = receiver.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const clock = { ms: Date.parse('2026-03-01T10:00:00Z') };
  const emulator = await GitHubEmulator.start({
    webhookUrl: `http://127.0.0.1:${port}/`,
    webhookSecret: SECRET,
    appId: 77,
    appSlug: 'arbiter',
    appPublicKeyPem: publicKey,
    now: () => clock.ms,
  });
  const jwt = (): string => signJwt(privateKey, 77, Math.floor(Date.now() / 1000));
  const appClient = new Octokit({ baseUrl: emulator.url, auth: jwt() });
  const { data } = await appClient.apps.createInstallationAccessToken({ installation_id: 1 });
  const octokit = new Octokit({ baseUrl: emulator.url, auth: data.token });
  return {
    emulator,
    octokit,
    received,
    clock,
    jwt,
    events: (event, action) =>
      received
        .filter((r) => r.event === event && (action === undefined || r.payload.action === action))
        .map((r) => r.payload),
    stop: async () => {
      await emulator.stop();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    },
  };
}

/** Waits until every webhook the emulator started has been answered. */
export async function settle(emulator: GitHubEmulator): Promise<void> {
  while (emulator.inflightWebhooks() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}
