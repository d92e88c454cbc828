// Test helpers for the app shell: a throwaway RSA key, signed webhook requests, a free port.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import { readEnv, type Env } from '../../src/env.ts';

let key: string | undefined;
export function testPrivateKey(): string {
  key ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  }).privateKey;
  return key;
}

export const sign = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export async function postWebhook(
  port: number,
  o: { id: string; event: string; payload: unknown; secret: string; signature?: string },
): Promise<{ status: number; text: string }> {
  const body = JSON.stringify(o.payload);
  const res = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': o.event,
      'x-github-delivery': o.id,
      'x-hub-signature-256': o.signature ?? sign(o.secret, body),
      'user-agent': 'GitHub-Hookshot/test',
    },
    body,
  });
  return { status: res.status, text: await res.text() };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export const issuePayload = (n: number) => ({
  action: 'opened',
  installation: { id: 1 },
  repository: { id: 1, name: 'todo', full_name: 'acme/todo', owner: { login: 'acme' } },
  issue: { number: n, title: 'x', body: '' },
  sender: { login: 'maintainer', type: 'User' },
});

/**
 * The environment of an in-process `startArbiter` under test: credentials (a fresh key, this
 * webhook secret), a free port on 127.0.0.1, a known app slug, no logs; `where` says which store.
 */
export const serverEnv = (secret: string, where: Record<string, string>): Env =>
  readEnv({
    ...where,
    APP_ID: '1',
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    ARBITER_APP_SLUG: 'arbiter',
    LOG_LEVEL: 'silent',
  });
