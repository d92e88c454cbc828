// Delivers webhooks like GitHub: signed JSON POSTs with event, delivery id and HMAC headers,
// one at a time in order; can hold them in a queue and redeliver exact bytes. Records every
// attempt with the app's answer (the app's webhook deliveries), and can make one fail (a fault).
import { createHmac, randomUUID } from 'node:crypto';

export interface Delivery {
  event: string;
  id: string;
  body: string;
}

export interface SentRecord {
  event: string;
  id: string;
  action?: string;
  status: number;
}

/** One attempt to deliver a webhook, as GitHub lists it (`GET /app/hook/deliveries`). */
export interface HookAttempt {
  id: number;
  guid: string;
  /** Emulator clock, ms. */
  deliveredAt: number;
  redelivery: boolean;
  /** Real seconds the attempt took. */
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
  /** Made to fail by a scenario fault (the app never saw it). */
  fault: boolean;
  /** Sent because the app asked (`POST /app/hook/deliveries/{delivery_id}/attempts`). */
  requested: boolean;
}

/** A scripted failure: the `nth` first attempt of a matching webhook fails with `status` before reaching the app. */
export interface DeliveryFault {
  event: string;
  action?: string;
  /** The pull request or issue the webhook is about. */
  on?: number;
  nth: number;
  status: number;
}

/** What GitHub shows as an attempt's status: "OK" for a 2xx answer. */
export function attemptStatus(code: number): string {
  if (code >= 200 && code < 300) return 'OK';
  return code === 0 ? 'failed to connect' : `Invalid HTTP Response: ${code}`;
}

export const signBody = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export class WebhookSender {
  readonly sent: SentRecord[] = [];
  /** Every attempt, in order: what `GET /app/hook/deliveries` lists. */
  readonly attempts: HookAttempt[] = [];
  readonly attemptListeners: ((a: HookAttempt) => void)[] = [];
  private readonly bodies = new Map<string, Delivery>();
  private readonly faults: (DeliveryFault & { seen: number })[] = [];
  /** Deliveries queued by `redeliver`, not yet sent. */
  private readonly requested: Delivery[] = [];
  private nextAttemptId = 1;
  private held: Delivery[] = [];
  private holding = false;
  private inflight = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private url: string | null,
    private readonly secret: string,
    private readonly now: () => number = Date.now,
  ) {}

  addFault(f: DeliveryFault): void {
    this.faults.push({ ...f, seen: 0 });
  }

  /**
   * "Redeliver" on GitHub: the webhook of that attempt again, same bytes and X-GitHub-Delivery,
   * queued behind the others (or held, like any delivery). False when no such attempt exists.
   */
  redeliver(attemptId: number): boolean {
    const attempt = this.attempts.find((a) => a.id === attemptId);
    const delivery = attempt ? this.bodies.get(attempt.guid) : undefined;
    if (!delivery) return false;
    // A copy of its own, so the attempt it makes is known to be the one the app asked for.
    const copy = { ...delivery };
    this.requested.push(copy);
    if (this.holding || this.url === null) this.held.push(copy);
    else void this.send(copy);
    return true;
  }

  setUrl(url: string | null): void {
    this.url = url;
  }

  hold(hold: boolean): void {
    this.holding = hold;
  }

  takeHeld(): Delivery[] {
    const taken = this.held;
    this.held = [];
    return taken;
  }

  inflightCount(): number {
    return this.inflight;
  }

  /** Queues a new delivery; resolves once it was sent (or queued, when held or without a URL). */
  dispatch(event: string, payload: unknown): Promise<number> {
    const delivery: Delivery = { event, id: randomUUID(), body: JSON.stringify(payload) };
    if (this.holding || this.url === null) {
      this.held.push(delivery);
      return Promise.resolve(0);
    }
    return this.send(delivery);
  }

  /** Sends exactly these bytes (in order behind earlier deliveries); returns the HTTP status, 0 when unreachable. */
  send(delivery: Delivery): Promise<number> {
    this.inflight += 1;
    const result = this.chain.then(() => this.post(delivery));
    this.chain = result.catch(() => 0);
    return result.finally(() => {
      this.inflight -= 1;
    });
  }

  /** The fault this first attempt meets, if any (redeliveries never do). */
  private takeFault(delivery: Delivery, payload: Payload, redelivery: boolean): DeliveryFault | null {
    if (redelivery) return null;
    for (const f of this.faults) {
      if (f.event !== delivery.event || (f.action !== undefined && f.action !== payload.action)) continue;
      if (f.on !== undefined && !numbersOf(payload).includes(f.on)) continue;
      f.seen++;
      if (f.seen === f.nth) return f;
    }
    return null;
  }

  private async post(delivery: Delivery): Promise<number> {
    const url = this.url;
    const started = performance.now();
    const payload = payloadOf(delivery.body);
    const redelivery = this.attempts.some((a) => a.guid === delivery.id);
    this.bodies.set(delivery.id, delivery);
    const fault = this.takeFault(delivery, payload, redelivery);
    const asked = this.requested.indexOf(delivery);
    if (asked >= 0) this.requested.splice(asked, 1);
    let status = 0;
    if (fault) status = fault.status;
    else if (url !== null) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'GitHub-Hookshot/arbiter-emulator',
            'x-github-event': delivery.event,
            'x-github-delivery': delivery.id,
            'x-hub-signature-256': signBody(this.secret, delivery.body),
            'x-github-hook-installation-target-type': 'integration',
          },
          body: delivery.body,
          signal: AbortSignal.timeout(30_000),
        });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 0;
      }
    }
    this.sent.push({ event: delivery.event, id: delivery.id, action: payload.action, status });
    const attempt: HookAttempt = {
      id: this.nextAttemptId++,
      guid: delivery.id,
      deliveredAt: this.now(),
      redelivery,
      duration: Math.round(performance.now() - started) / 1000,
      status: attemptStatus(status),
      status_code: status,
      event: delivery.event,
      action: payload.action ?? null,
      installation_id: payload.installation ?? null,
      repository_id: payload.repository ?? null,
      fault: fault !== null,
      requested: asked >= 0,
    };
    this.attempts.push(attempt);
    for (const listener of this.attemptListeners) listener(attempt);
    return status;
  }
}

interface Payload {
  action?: string;
  installation?: number;
  repository?: number;
  raw: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown): number | undefined => (isRecord(v) && typeof v.id === 'number' ? v.id : undefined);

function payloadOf(body: string): Payload {
  const parsed: unknown = JSON.parse(body);
  const raw = isRecord(parsed) ? parsed : {};
  return {
    action: typeof raw.action === 'string' ? raw.action : undefined,
    installation: idOf(raw.installation),
    repository: idOf(raw.repository),
    raw,
  };
}

/** The pull request and issue numbers a webhook is about (its PR, issue, or a check's PRs). */
function numbersOf(p: Payload): number[] {
  const out: number[] = [];
  const numberOf = (v: unknown) => {
    if (isRecord(v) && typeof v.number === 'number') out.push(v.number);
  };
  numberOf(p.raw.pull_request);
  numberOf(p.raw.issue);
  for (const key of ['check_run', 'check_suite']) {
    const check = p.raw[key];
    if (isRecord(check) && Array.isArray(check.pull_requests)) check.pull_requests.forEach(numberOf);
  }
  return out;
}
