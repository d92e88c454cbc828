// The one clock the app reads. In production it is the system clock; a caller that starts the
// app can pass another (tests and the scenario runner pass a ManualClock, so timeouts and the
// sweep run on their time).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that starts at `startMs` and moves only when told to. */
export class ManualClock implements Clock {
  constructor(private ms: number) {}
  now(): Date {
    return new Date(this.ms);
  }
  set(ms: number): void {
    if (ms > this.ms) this.ms = ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}
