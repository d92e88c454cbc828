// The printed transcript without its noise: a line that repeats the one before it (ignoring
// the `t=N` column) is printed once with a count when the next different line comes; a check
// run rewritten `in_progress` while it already was (new waiting text) is not printed again,
// and the end says how many such lines were left out.

/** Splits `t=12   Arbiter: …` into its time column and its message. */
const split = (line: string): { time: string; message: string } => {
  const m = /^(t=\d+\s+)(.*)$/s.exec(line);
  return m ? { time: m[1], message: m[2] } : { time: '', message: line };
};

export interface CollapsingLog {
  line(text: string): void;
  /** Prints the held line; call before anything is printed that does not go through `line`. */
  flush(): void;
  /** Flushes, then says how many lines were left out. */
  finish(): void;
}

/** `Arbiter: check-run NAME on #N: STATE…` → the run and its state. */
const RUN_LINE = /^Arbiter: (check-run .+ on [^:]+): (\S+)/;

export function collapseRepeats(print: (line: string) => void): CollapsingLog {
  let held: { first: string; message: string; lastTime: string; count: number } | null = null;
  const runStates = new Map<string, string>();
  let hidden = 0;
  const flush = (): void => {
    if (!held) return;
    const times = held.count > 1 ? ` (×${held.count}, to ${held.lastTime.trim()})` : '';
    print(`${held.first}${times}`);
    held = null;
  };
  return {
    line(text) {
      const { time, message } = split(text);
      const run = RUN_LINE.exec(message);
      if (run) {
        const before = runStates.get(run[1]);
        runStates.set(run[1], run[2]);
        if (before === 'in_progress' && run[2] === 'in_progress') {
          hidden++;
          return;
        }
      }
      if (held && held.message === message) {
        held.count++;
        held.lastTime = time || held.lastTime;
        return;
      }
      flush();
      held = { first: text, message, lastTime: time, count: 1 };
    },
    flush,
    finish() {
      flush();
      if (hidden > 0)
        print(
          `       (${hidden} more in_progress update${hidden === 1 ? '' : 's'} of a run already in progress not shown)`,
        );
      hidden = 0;
    },
  };
}
