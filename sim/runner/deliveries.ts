// Webhook delivery under the runner's control: the emulator holds every webhook and the
// runner delivers them, in copies shuffled by a seeded PRNG when `redeliver` asks, out of
// order within a window when `reorder` asks, and not at all while the app is down (a
// restart), so none is lost.
import { mulberry32, shuffle } from './prng.ts';

const RETRIES_ON_TRANSPORT_ERROR = 3;

export interface HeldWebhook {
  event: string;
  id: string;
  body: string;
}

export interface WebhookPort {
  holdWebhooks(hold: boolean): void;
  takeHeldWebhooks(): HeldWebhook[];
  sendWebhook(w: HeldWebhook): Promise<number>;
}

export interface DeliveryLog {
  event: string;
  id: string;
  status: number;
}

/** `faults.reorder`: webhooks are delivered in an order shuffled within windows of `window` webhooks. */
export interface Reorder {
  seed: number;
  window: number;
}

export class DeliveryPump {
  private readonly random: () => number;
  private readonly reorderRandom: () => number;
  private readonly pending: HeldWebhook[] = [];
  /** Reorder: webhooks sent but held back until their window is full (or the time step ends). */
  private readonly window: HeldWebhook[] = [];
  private sending = 0;
  private paused = false;
  private running = false;
  readonly delivered: DeliveryLog[] = [];

  constructor(
    private readonly port: WebhookPort,
    private readonly redeliver: { copies: number; seed: number } | null,
    private readonly onProblem: (line: string) => void,
    private readonly reorder: Reorder | null = null,
    /** Deliveries on the wire at once (replicas: several, so copies race; default one after another). */
    private readonly concurrency = 1,
  ) {
    this.random = mulberry32(redeliver?.seed ?? 1);
    this.reorderRandom = mulberry32(reorder?.seed ?? 1);
    port.holdWebhooks(true);
  }

  /** Stop sending (the app is down); held and unsent webhooks wait for `resume`. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  /**
   * Reorder: delivers the webhooks of a window that is not full yet, shuffled (the runner calls
   * it at the end of each time step, so reordering never crosses a step). False when none was held.
   */
  releaseWindow(): boolean {
    if (this.window.length === 0) return false;
    this.pending.push(...shuffle(this.window.splice(0), this.reorderRandom));
    return true;
  }

  /** Reorder: webhooks held back in a window that is not full yet (not counted as outstanding). */
  heldBack(): number {
    return this.window.length;
  }

  /** Webhooks taken from the emulator but not yet answered by the app. */
  outstanding(): number {
    return this.pending.length + this.sending;
  }

  /** True while a pump is delivering (its loop may still pick up more). */
  busy(): boolean {
    return this.running || this.outstanding() > 0;
  }

  /** Takes what the emulator holds, makes the copies, and delivers them one after another. */
  async pump(): Promise<void> {
    const taken = this.port.takeHeldWebhooks();
    if (taken.length) {
      const copies = this.redeliver?.copies ?? 1;
      const batch = taken.flatMap((w) => Array.from({ length: copies }, () => w));
      const copied = this.redeliver ? shuffle(batch, this.random) : batch;
      if (this.reorder === null) this.pending.push(...copied);
      else {
        this.window.push(...copied);
        while (this.window.length >= this.reorder.window) {
          this.pending.push(...shuffle(this.window.splice(0, this.reorder.window), this.reorderRandom));
        }
      }
    }
    if (this.running) return;
    this.running = true;
    try {
      await Promise.all(Array.from({ length: this.concurrency }, () => this.drain()));
    } finally {
      this.running = false;
    }
  }

  private async drain(): Promise<void> {
    while (!this.paused && this.pending.length) {
      const w = this.pending.shift()!;
      this.sending++;
      let status = 0;
      try {
        // Status 0 is a transport failure (e.g. a keep-alive connection the app had just closed):
        // try again a few times unless the app is going down.
        for (let attempt = 0; attempt < RETRIES_ON_TRANSPORT_ERROR && !this.paused; attempt++) {
          status = await this.port.sendWebhook(w).catch(() => 0);
          if (status !== 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        this.sending--;
      }
      if (status === 0 || status >= 500) {
        // The app went down while this was on the wire (a restart): deliver it again later,
        // as a person would press "Redeliver" on GitHub.
        if (this.paused) {
          this.pending.unshift(w);
          return;
        }
        this.onProblem(`webhook ${w.event} ${w.id} answered HTTP ${status}`);
      } else if (status >= 300) {
        this.onProblem(`webhook ${w.event} ${w.id} answered HTTP ${status}`);
      }
      this.delivered.push({ event: w.event, id: w.id, status });
    }
  }
}
