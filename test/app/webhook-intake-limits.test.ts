// The webhook port against what anyone can send (issue 29): a 5 MB POST with a bad signature is
// refused (400) and logged in one line without its body; /metrics is not served there without its
// token; a well-signed delivery still goes through the signature check to Probot and is recorded.
import { rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.ts';
import type { Delivery } from '../../src/handlers/index.ts';
import { startArbiter, type RunningArbiter } from '../../src/main.ts';
import { until } from '../jobs/wait.ts';
import { freshPgliteDir } from '../store/backends.ts';
import { issuePayload, postWebhook, serverEnv, sign } from './helpers.ts';

const SECRET = 'intake-limits-secret';

/** Every byte the app logs, at production's level (info). */
class LogBytes extends Writable {
  bytes = 0;
  lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.bytes += chunk.length;
    if (this.lines.length < 50) this.lines.push(chunk.toString('utf8').slice(0, 2_000));
    done();
  }
}

describe('the webhook port', () => {
  const logs = new LogBytes();
  const handled: Delivery[] = [];
  let app: RunningArbiter;
  let dir = '';

  beforeAll(async () => {
    dir = await freshPgliteDir('intake-limits');
    app = await startArbiter(serverEnv(SECRET, { ARBITER_DATA_DIR: dir }), {
      log: pino({ level: 'info' }, logs),
      clock: new ManualClock(Date.UTC(2026, 0, 1)),
      queue: { fast: true, recoverActiveAtStart: true, manualClock: true },
      scheduleSweep: false,
      handle: async (_deps, d) => void handled.push(d),
      sweep: async () => undefined,
      recover: async () => undefined,
    });
  });
  afterAll(async () => {
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a badly signed 5 MB POST is answered 400 and adds less than 10 KB of log, in one line', async () => {
    const payload = { ...issuePayload(5), filler: 'x'.repeat(5 * 1024 * 1024) };
    const before = logs.bytes;
    const lines = logs.lines.length;
    const res = await postWebhook(app.port, {
      id: 'dlv-forged-5mb',
      event: 'issues',
      payload,
      secret: 'not-the-secret',
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('signature does not match');
    await new Promise((r) => setTimeout(r, 200)); // any late log line lands
    expect(logs.bytes - before).toBeLessThan(10 * 1024);
    const added = logs.lines.slice(lines);
    expect(added).toHaveLength(1);
    expect(added[0]).toContain('dlv-forged-5mb');
    expect(added[0]).not.toContain('xxxxxxxx');
    expect(handled.some((d) => d.id === 'dlv-forged-5mb')).toBe(false);
  });

  it('a well-signed delivery goes on to Probot and is recorded (its body read once, by the check)', async () => {
    const res = await postWebhook(app.port, {
      id: 'dlv-good',
      event: 'issues',
      payload: issuePayload(6),
      secret: SECRET,
    });
    expect(res.status).toBe(200);
    await until('the delivery is handled', () => handled.some((d) => d.id === 'dlv-good'));
    expect(handled.find((d) => d.id === 'dlv-good')?.payload).toMatchObject({ issue: { number: 6 } });
  });

  it('a signature of the right length but the wrong bytes, and a missing one, are refused', async () => {
    const body = JSON.stringify(issuePayload(8));
    const bad = await postWebhook(app.port, {
      id: 'dlv-forged-8',
      event: 'issues',
      payload: issuePayload(8),
      secret: SECRET,
      signature: sign(SECRET, body + ' '),
    });
    expect(bad.status).toBe(400);
    const missing = await fetch(`http://127.0.0.1:${app.port}/api/github/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': 'dlv-nosig' },
      body,
    });
    expect(missing.status).toBe(400);
  });

  it('/metrics is not served without ARBITER_METRICS_TOKEN', async () => {
    const res = await fetch(`http://127.0.0.1:${app.port}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('arbiter_');
  });
  /** A webhook POST written by hand, so a test controls when (and whether) its body ends. */
  const openPost = (
    id: string,
    headers: Record<string, string>,
  ): { req: ClientRequest; answer: Promise<{ status: number; text: string }> } => {
    const req = request({
      host: '127.0.0.1',
      port: app.port,
      method: 'POST',
      path: '/api/github/webhooks',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issues',
        'x-github-delivery': id,
        'x-hub-signature-256': sign(SECRET, 'whatever'),
        ...headers,
      },
    });
    const answer = new Promise<{ status: number; text: string }>((resolve) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      // The server closes the connection once it answered; a client still writing may see the reset
      // before the answer (status 0): what matters is that the body was neither read to the end nor kept.
      req.on('error', (error) => resolve({ status: 0, text: String(error) }));
    });
    return { req, answer };
  };

  it('a body declared over 25 MB is refused (413) before any of it is read', async () => {
    const { req, answer } = openPost('dlv-huge-declared', { 'content-length': String(26 * 1024 * 1024) });
    req.write('{"action":"opened"'); // 18 bytes of the 26 MB it announced; the rest never comes
    const res = await answer;
    req.destroy();
    expect(res.status).toBe(413);
    expect(res.text).toContain('GitHub sends none larger');
    expect(handled.some((d) => d.id === 'dlv-huge-declared')).toBe(false);
  });

  it('a chunked body (no length) is cut off with 413 once it passes 25 MB', async () => {
    const { req, answer } = openPost('dlv-huge-chunked', { 'transfer-encoding': 'chunked' });
    const mb = Buffer.alloc(1024 * 1024, 0x78);
    let answered = false;
    void answer.then(() => (answered = true));
    for (let i = 0; i < 40 && !answered && !req.destroyed; i++)
      if (!req.write(mb)) await Promise.race([new Promise((r) => req.once('drain', r).once('close', r)), answer]);
    const res = await answer;
    req.destroy();
    expect([413, 0]).toContain(res.status);
    expect(handled.some((d) => d.id === 'dlv-huge-chunked')).toBe(false);
  });

  it('/arbiter/health answers while a large delivery is still being read', async () => {
    const { req, answer } = openPost('dlv-slow-large', { 'content-length': String(24 * 1024 * 1024) });
    req.write(Buffer.alloc(12 * 1024 * 1024, 0x20)); // half of it; the rest waits for the health answer
    const health = await fetch(`http://127.0.0.1:${app.port}/arbiter/health`);
    expect(health.status).toBe(200);
    // The delivery is still open: its answer has not come (its body is not complete).
    let done = false;
    void answer.then(() => (done = true));
    expect(done).toBe(false);
    req.end(Buffer.alloc(12 * 1024 * 1024, 0x20));
    expect((await answer).status).toBe(400); // spaces are not the signed body: refused, as any forgery
  });
});
