// The command line's progress bar for a run's `onProgress` events (tasks
// done of total), on stderr. On a terminal it redraws one line in place, at
// most every 100 ms and at the end; in a log (CI, a pipe) it writes a line at
// each tenth of the work instead of thousands of redraws.

/** An `onProgress` callback drawing the bar; call `end()` once the run is over. */
export function progressBar(width = 30): { update: (p: { done: number; total: number }) => void; end: () => void } {
  const tty = process.stderr.isTTY === true;
  let drawn = false, lastAt = 0, lastTenth = -1;
  const line = (done: number, total: number) => {
    const k = total > 0 ? Math.round((done / total) * width) : width;
    return `[${'#'.repeat(k)}${'.'.repeat(width - k)}] ${done}/${total} tasks`;
  };
  return {
    update: ({ done, total }) => {
      if (tty) {
        const now = performance.now();
        if (done < total && now - lastAt < 100) return;
        lastAt = now;
        drawn = true;
        process.stderr.write(`\r${line(done, total)}`);
        return;
      }
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 10;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      process.stderr.write(`${line(done, total)}\n`);
    },
    end: () => { if (drawn) process.stderr.write('\n'); },
  };
}
