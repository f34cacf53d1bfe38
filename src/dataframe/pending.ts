// A value still being made (a frame read_csv is parsing), usable as Mars'
// lazy frames are: `await` it, or call its methods straight away, each call
// queued on the promise and itself pending, so that
// `md.read_csv(path).groupby('k').agg({ v: 'sum' }).execute()` works as
// written for Mars, one `await` at the end. A property that is not a method
// (`columns`, `shape`) needs the value: `(await md.read_csv(path)).columns`.

/** A promise of T whose method calls return pending results. */
export type Pending<T> = Promise<T> & { [K in keyof T]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Pending<Awaited<R>> : never };

/** `promise`, with every method of the value it resolves to callable on it now. */
export function pending<T>(promise: Promise<T>): Pending<T> {
  return new Proxy(promise, {
    get(target, prop) {
      if (prop === 'then' || prop === 'catch' || prop === 'finally') {
        const f = (target as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>)[prop]!;
        return f.bind(target);
      }
      if (typeof prop === 'symbol') return (target as unknown as Record<symbol, unknown>)[prop];
      return (...args: unknown[]) => pending(target.then((v) => {
        const m = (v as Record<string, unknown>)[prop];
        if (typeof m !== 'function') {
          throw new TypeError(`${String(prop)} is not a method of ${(v as object)?.constructor?.name ?? typeof v}: await the value first for a property`);
        }
        return (m as (...a: unknown[]) => unknown).apply(v, args);
      }));
    },
  }) as Pending<T>;
}
