// How busy the machine is, for the benchmarks' "other load" columns:
// /proc/stat's busy time of all cores (Linux), in seconds.

import { readFileSync } from 'node:fs';

export const CLK_TCK = 100; // USER_HZ: the unit of /proc/stat and /proc/<pid>/stat on Linux

/** Busy CPU seconds of the whole machine so far (all cores), or undefined off Linux. */
export function machineBusySeconds() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return (user + nice + system + irq + softirq + (steal ?? 0)) / CLK_TCK;
  } catch { return undefined; }
}
