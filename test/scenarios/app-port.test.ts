// The runner's app process and a port another process took first: freePort lets the port go before
// the app binds it, and another test worker's app may bind it in between. The runner must then
// not drive that other app (a CI run once set another story's clock), but start its own again on
// a fresh port.
import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppProcess, freePort } from '../../sim/runner/app-process.ts';

let squatter: Server | null = null;
let app: AppProcess | null = null;

afterEach(async () => {
  await app?.stop();
  await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
  squatter = app = null;
});

describe('an app process whose port another process took', { timeout: 120_000 }, () => {
  it('starts again on a fresh port and answers for itself there', async () => {
    const taken = await freePort();
    // Another app, already listening: healthy, and a process of its own.
    squatter = createServer((req, res) => {
      const body = req.url === '/arbiter/sim/pid' ? { pid: 1 } : { ok: true };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => squatter!.listen(taken, '127.0.0.1', resolve));

    app = new AppProcess({
      port: taken,
      args: ['--import', 'tsx', 'test/scenarios/fixtures/stand-in-app.ts'],
      env: { APP_ID: '1', WEBHOOK_SECRET: 'x' },
    });
    await app.start();

    expect(app.baseUrl).not.toBe(`http://127.0.0.1:${taken}`);
    const answer = (await (await fetch(`${app.baseUrl}/arbiter/sim/pid`)).json()) as { pid: number };
    expect(answer.pid).not.toBe(1);
    expect(app.webhookUrl).toBe(`${app.baseUrl}/api/github/webhooks`);
  });
});
