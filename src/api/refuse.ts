// NumPy names that Tessera answers with a clear error rather than leaving
// undefined: functions that change an array in place (a tensor never
// changes), and ones whose results need dtypes Tessera does not have
// (complex). Each refusal throws a TypeError naming what to write instead,
// and carries a short reason that the generated coverage table
// (scripts/coverage.mjs, src/api/COVERAGE.md) shows.

/** A function that always throws, with the reason why. */
export interface Refusal {
  (...args: unknown[]): never;
  readonly refused: string;
}

/** A function throwing TypeError(message), listed in the coverage table under `reason`. */
export function refusal(message: string, reason: string): Refusal {
  const f = (..._args: unknown[]): never => { throw new TypeError(message); };
  return Object.assign(f, { refused: reason });
}

/** A NumPy function whose result Tessera cannot represent: `name` ${why}. */
export const unsupported = (name: string, why: string): Refusal => refusal(`${name} ${why}`, why);
