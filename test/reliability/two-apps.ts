// A harness for two Arbiter processes (the scenario runner's entry, sim/runner/app-entry.ts) on one PostgreSQL database, one GitHub
// emulator and one fake model: every webhook the emulator sends is held, then delivered to BOTH
// apps at the same moment, so two replicas race on every delivery and every claim.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { FakeAnthropic, type ModelScripts } from '../../sim/anthropic/index.ts';
import { GitHubEmulator, signBody } from '../../sim/github/index.ts';
import { AppProcess, freePort } from '../../sim/runner/app-process.ts';
import { createTempDatabase, type TempDatabase } from '../../sim/runner/temp-database.ts';
import { SCENARIO_EPOCH_MS } from '../../sim/runner/index.ts';

const SECRET = 'arbiter-two-apps-secret';
const APP_ID = 1;
const SLUG = 'arbiter';
const POLL_MS = 25;
const QUIET_POLLS = 4;

export interface Held {
  event: string;
  id: string;
  body: string;
}

export class TwoApps {
  private constructor(
    readonly emulator: GitHubEmulator,
    readonly model: FakeAnthropic,
    readonly apps: [AppProcess, AppProcess],
    readonly db: TempDatabase,
    private readonly dirs: string[],
  ) {}

  /** Answers of every delivery, per app: `[status app 1, status app 2]`. */
  readonly answers: [number, number][] = [];

  static async start(serverUrl: string, scripts: ModelScripts): Promise<TwoApps> {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    const emulator = await GitHubEmulator.start({
      webhookUrl: null,
      webhookSecret: SECRET,
      appId: APP_ID,
      appSlug: SLUG,
      appPublicKeyPem: publicKey,
      now: () => SCENARIO_EPOCH_MS,
    });
    emulator.setScenarioStart(SCENARIO_EPOCH_MS);
    emulator.holdWebhooks(true);
    const model = await FakeAnthropic.start({ scripts });
    const db = await createTempDatabase(serverUrl);
    const dirs = [await mkdtemp(join(tmpdir(), 'arbiter-two-a-')), await mkdtemp(join(tmpdir(), 'arbiter-two-b-'))];
    const make = async (dir: string) =>
      new AppProcess({
        port: await freePort(),
        env: {
          APP_ID: String(APP_ID),
          PRIVATE_KEY: privateKey,
          WEBHOOK_SECRET: SECRET,
          GHE_HOST: new URL(emulator.url).host,
          GHE_PROTOCOL: 'http',
          ANTHROPIC_BASE_URL: model.url,
          ANTHROPIC_API_KEY: 'sim-key',
          ARBITER_DATA_DIR: dir,
          ARBITER_APP_SLUG: SLUG,
          ARBITER_SIM_START_MS: String(SCENARIO_EPOCH_MS),
          LOG_LEVEL: 'warn',
          DATABASE_URL: db.url,
          // The race here is the selection's; the dashboard's own is test/workflows/dashboard.test.ts.
          ARBITER_DASHBOARD: '0',
        },
      });
    const apps: [AppProcess, AppProcess] = [await make(dirs[0]), await make(dirs[1])];
    const harness = new TwoApps(emulator, model, apps, db, dirs);
    try {
      // One after the other: the first runs the migrations, the second finds them done.
      for (const app of apps) {
        await app.start();
        await app.setClock(SCENARIO_EPOCH_MS);
      }
    } catch (e) {
      await harness.stop();
      throw e;
    }
    return harness;
  }

  /** POSTs one delivery to one app, signed with `secret` (the right one unless a test forges it). */
  async post(app: AppProcess, w: Held, secret = SECRET): Promise<number> {
    const res = await fetch(`${app.baseUrl}/api/github/webhooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/arbiter-emulator',
        'x-github-event': w.event,
        'x-github-delivery': w.id,
        'x-hub-signature-256': signBody(secret, w.body),
      },
      body: w.body,
    });
    await res.arrayBuffer();
    return res.status;
  }

  /** Takes every held webhook and delivers each to both apps, all at the same moment. */
  async deliverHeld(): Promise<number> {
    const batch = this.emulator.takeHeldWebhooks();
    await Promise.all(
      batch.map(async (w) => {
        const statuses = await Promise.all(this.apps.map((app) => this.post(app, w)));
        this.answers.push([statuses[0], statuses[1]]);
      }),
    );
    return batch.length;
  }

  /** Delivers until both apps are idle, nothing is held and no write happened for a few polls. */
  async settle(timeoutMs = 240_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let quiet = 0;
    let writes = this.emulator.writes.length;
    while (quiet < QUIET_POLLS) {
      if (Date.now() > deadline) throw new Error(`two apps not quiet after ${timeoutMs / 1000} s`);
      for (const app of this.apps) if (app.crashed) throw new Error(`${app.crashed}\n${app.stderrTail()}`);
      const sent = await this.deliverHeld();
      const idle = await Promise.all(this.apps.map((a) => a.idle()));
      const now = this.emulator.writes.length;
      quiet = sent === 0 && idle.every((r) => r.idle) && now === writes ? quiet + 1 : 0;
      writes = now;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.db.url });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    for (const app of this.apps) await app.stop().catch(() => {});
    await this.model.stop().catch(() => {});
    await this.emulator.stop().catch(() => {});
    await this.db.drop().catch(() => {});
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
