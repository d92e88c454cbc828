// The one clock the app reads. In production it is the system clock; under the scenario
// runner it is a virtual clock the runner sets (see src/sim-control.ts), so timeouts and the
// sweep run on scenario time.
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
