// The printed transcript without its noise: a line that repeats the one before it (ignoring
// the `t=N` column), such as a check run rewritten `in_progress` on every settle, is printed
// once with a count when the next different line comes, or at the end.

/** Splits `t=12   Arbiter: …` into its time column and its message. */
const split = (line: string): { time: string; message: string } => {
  const m = /^(t=\d+\s+)(.*)$/s.exec(line);
  return m ? { time: m[1], message: m[2] } : { time: '', message: line };
};

export interface CollapsingLog {
  line(text: string): void;
  /** Prints the held line; call before anything is printed that does not go through `line`. */
  flush(): void;
}

export function collapseRepeats(print: (line: string) => void): CollapsingLog {
  let held: { first: string; message: string; lastTime: string; count: number } | null = null;
  const flush = (): void => {
    if (!held) return;
    const times = held.count > 1 ? ` (×${held.count}, to ${held.lastTime.trim()})` : '';
    print(`${held.first}${times}`);
    held = null;
  };
  return {
    line(text) {
      const { time, message } = split(text);
      if (held && held.message === message) {
        held.count++;
        held.lastTime = time || held.lastTime;
        return;
      }
      flush();
      held = { first: text, message, lastTime: time, count: 1 };
    },
    flush,
  };
}
