// Delivers webhooks like GitHub: signed JSON POSTs with event, delivery id and HMAC headers,
// one at a time in order; can hold them in a queue and redeliver exact bytes.
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

export const signBody = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

export class WebhookSender {
  readonly sent: SentRecord[] = [];
  private held: Delivery[] = [];
  private holding = false;
  private inflight = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private url: string | null,
    private readonly secret: string,
  ) {}

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

  private async post(delivery: Delivery): Promise<number> {
    const url = this.url;
    let status = 0;
    if (url !== null) {
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
    this.sent.push({ event: delivery.event, id: delivery.id, action: actionOf(delivery.body), status });
    return status;
  }
}

function actionOf(body: string): string | undefined {
  const parsed: unknown = JSON.parse(body);
  return typeof parsed === 'object' && parsed !== null && 'action' in parsed && typeof parsed.action === 'string' ? parsed.action : undefined;
}
