// The command line's progress bar for a run's `onProgress` events (tasks
// done of total, or a learn fit's iterations with its loss or inertia), on stderr. On a terminal it redraws one line in place, at
// most every 100 ms and at the end; in a log (CI, a pipe) it writes a line at
// each tenth of the work instead of thousands of redraws.

/** One progress event: tasks done of total, or a fit's iterations with its figures. */
interface Step { readonly done: number; readonly total: number; readonly stage?: Readonly<Record<string, string | number>> }

/** An `onProgress` callback drawing the bar; call `end()` once the run is over. */
export function progressBar(width = 30): { update: (p: Step) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  let drawn = false, lastAt = 0, lastTenth = -1;
  const line = (done: number, total: number, stage?: Step['stage']) => {
    const k = total > 0 ? Math.round((done / total) * width) : width;
    const figure = (v: string | number): string => (typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(6) : String(v));
    const what = stage ? Object.entries(stage).map(([n, v]) => `${n} ${figure(v)}`).join(', ') : `${done}/${total} tasks`;
    return `[${'#'.repeat(k)}${'.'.repeat(width - k)}] ${what}`;
  };
  return {
    update: ({ done, total, stage }) => {
      if (tty) {
        const now = performance.now();
        if (done < total && now - lastAt < 100) return;
        lastAt = now;
        drawn = true;
        process.stderr.write(`\r${line(done, total, stage)}\x1b[K`);
        return;
      }
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      process.stderr.write(`${line(done, total, stage)}\n`);
    },
    end: () => { if (drawn) process.stderr.write('\n'); },
  };
}
