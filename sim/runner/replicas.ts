// Several Arbiter processes on one PostgreSQL database behind a small proxy, for the soak: the
// proxy takes GitHub's webhooks and hands each to a replica drawn from a seeded PRNG, trying
// another one when the first is gone (as a load balancer retries an upstream that reset the
// connection). A restart fault kills one replica, drawn from the same PRNG; the others keep
// serving until it is back. The runner sees one `AppHost`.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppProcess, freePort, type AppHost, type AppProcessOptions, type IdleReport } from './app-process.ts';
import { ScenarioRunError } from './errors.ts';
import { mulberry32 } from './prng.ts';

export interface ReplicaOptions {
  replicas: number;
  seed: number;
  /** Extra environment for every replica (the soak's test of a broken claim). */
  env: Record<string, string>;
}

/** Headers a webhook delivery carries that the app reads. */
const FORWARDED = ['content-type', 'user-agent', 'x-github-event', 'x-github-delivery', 'x-hub-signature-256'];

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

export class ReplicaSet implements AppHost {
  readonly killStopsDeliveries = false;
  private readonly random: () => number;
  private server: Server | null = null;
  private forwarding = 0;
  /** The replica the last kill took down (brought back by the next `start`). */
  private down: AppProcess | null = null;
  private nextPort: number | null = null;

  private constructor(
    private readonly apps: AppProcess[],
    private readonly dirs: string[],
    private readonly proxyPort: number,
    seed: number,
  ) {
    this.random = mulberry32(seed);
  }

  /** The proxy listens on `opts.port` (the runner's webhook URL); each replica on its own port and folder. */
  static async create(opts: AppProcessOptions, r: ReplicaOptions): Promise<ReplicaSet> {
    const apps: AppProcess[] = [];
    const dirs: string[] = [];
    for (let i = 0; i < r.replicas; i++) {
      const dir = await mkdtemp(join(tmpdir(), `arbiter-replica-${i}-`));
      dirs.push(dir);
      apps.push(
        new AppProcess({
          ...opts,
          port: await freePort(),
          env: { ...opts.env, ...r.env, ARBITER_DATA_DIR: dir, ARBITER_SIM_REPLICA: '1' },
        }),
      );
    }
    return new ReplicaSet(apps, dirs, opts.port, r.seed);
  }

  get baseUrl(): string {
    return this.apps[0].baseUrl;
  }

  get webhookUrl(): string {
    return `http://127.0.0.1:${this.proxyPort}/api/github/webhooks`;
  }

  get crashed(): string | null {
    for (const [i, app] of this.apps.entries()) if (app.crashed) return `replica ${i + 1}: ${app.crashed}`;
    return null;
  }

  private live(): AppProcess[] {
    return this.apps.filter((a) => a.running && a !== this.down);
  }

  stderrTail(): string {
    return this.apps.map((a, i) => `--- replica ${i + 1}\n${a.stderrTail()}`).join('\n');
  }

  /** First call: the proxy and every replica. Later: the one the last kill took down. */
  async start(): Promise<void> {
    if (this.server === null) {
      this.server = createServer((req, res) => void this.forward(req, res));
      await new Promise<void>((resolve, reject) => {
        this.server!.once('error', reject);
        this.server!.listen(this.proxyPort, '127.0.0.1', () => resolve());
      });
      // The first runs the migrations; the others find them done and start together.
      await this.apps[0].start();
      await Promise.all(this.apps.slice(1).map((app) => app.start()));
      return;
    }
    const back = this.down;
    if (!back) return;
    if (this.nextPort !== null) back.usePort(this.nextPort);
    await back.start();
    this.down = null;
  }

  /** Kills one live replica (SIGKILL, now), drawn from the PRNG; never the last one standing. */
  killNow(): void {
    const live = this.live();
    if (live.length < 2) return;
    const victim = live[Math.floor(this.random() * live.length)];
    this.down = victim;
    victim.killNow();
  }

  async waitExited(): Promise<void> {
    await this.down?.waitExited();
  }

  usePort(port: number): void {
    this.nextPort = port;
  }

  async stop(): Promise<void> {
    await Promise.all(this.apps.map((a) => a.stop().catch(() => {})));
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections();
    await Promise.all(this.dirs.map((d) => rm(d, { recursive: true, force: true }).catch(() => {})));
  }

  /**
   * Asks each live replica, one after another. A kill drawn on a write the call itself causes (the
   * sweep a clock move runs) may take down the replica being asked, or one still to be asked: that
   * one is left out (it takes the clock when it is back); any other failure is the run's.
   */
  private async askLive<T>(ask: (app: AppProcess) => Promise<T>): Promise<T[]> {
    const answers: T[] = [];
    for (const app of this.apps) {
      if (!this.live().includes(app)) continue;
      try {
        answers.push(await ask(app));
      } catch (e) {
        if (app !== this.down) throw e;
      }
    }
    return answers;
  }

  async setClock(nowMs: number, opts: { sweep?: boolean } = {}): Promise<void> {
    await this.askLive((app) => app.setClock(nowMs, opts));
  }

  /** Idle when every live replica is and the proxy forwards nothing; the earliest deferred job of any. */
  async idle(): Promise<IdleReport> {
    const live = this.live();
    const asked = await Promise.allSettled(live.map((a) => a.idle()));
    // As in `askLive`: a replica killed under the question is left out.
    const reports = asked.flatMap((r, i) => {
      if (r.status === 'fulfilled') return [r.value];
      if (live[i] === this.down) return [];
      throw r.reason;
    });
    const due = reports.map((r) => r.deferredUntil ?? null).filter((d): d is number => d !== null);
    const idle = this.forwarding === 0 && reports.every((r) => r.idle);
    return {
      idle,
      queued: Math.max(0, ...reports.map((r) => r.queued ?? 0)),
      active: Math.max(0, ...reports.map((r) => r.active ?? 0)),
      inflight: this.forwarding + reports.reduce((n, r) => n + (r.inflight ?? 0), 0),
      ...(idle ? { deferredUntil: due.length ? Math.min(...due) : null } : {}),
    };
  }

  async receipts(): Promise<{ id: number; recorded: unknown }[]> {
    const app = this.live()[0];
    if (!app) throw new ScenarioRunError('no replica is running to read the receipts from', this.stderrTail());
    return app.receipts();
  }

  /** One delivery: to a replica drawn at random, then to each other live one while the connection fails. */
  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.forwarding++;
    try {
      const body = await readAll(req);
      const headers: Record<string, string> = {};
      for (const h of FORWARDED) {
        const v = req.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const live = this.live();
      const first = Math.floor(this.random() * Math.max(1, live.length));
      const order = [...live.slice(first), ...live.slice(0, first)];
      for (const app of order) {
        if (!app.running || app === this.down) continue;
        try {
          const answer = await fetch(`${app.baseUrl}${req.url ?? '/'}`, { method: req.method, headers, body });
          const text = await answer.text();
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          res.end(text);
          return;
        } catch {
          // That replica went down under the delivery: the next one gets it (a redelivery).
        }
      }
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('no replica answered');
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    } finally {
      this.forwarding--;
    }
  }
}
