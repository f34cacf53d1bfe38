// pandas' DataFrameGroupBy and SeriesGroupBy: `df.groupby(keys, { sort,
// dropna, as_index })`, then `agg` given a name, a list of names, a dict of
// column to name or names, or named aggregations (`{ total: ['v1', 'sum'] }`
// or `md.NamedAgg('v1', 'sum')`), the shortcuts (`.sum()`, `.mean()`, ...)
// and `size()`; `get(col)` selects the columns aggregated, as pandas'
// `gb['v']`. The names and shapes of the results are pandas 1.5's: a list
// of aggregations gives two-level column names (`('v1', 'sum')`, as
// pyarrow names them), a selected single column a Series. The computation
// is ./aggregate.ts's. This module knows a frame only through the function
// that makes one, so that ./frame.ts may import it.

import { type Agg, type GroupByOptions, type Request, type RowOp, AGGS, aggregate, isAgg, numericOnly } from './aggregate.js';
import { type Column, type Labels, Series, dtypeName } from './series.js';

export type { GroupByOptions } from './aggregate.js';

/** pandas' NamedAgg: a result column computed as `aggfunc` of `column`. */
export class NamedAgg {
  constructor(readonly column: string, readonly aggfunc: string) {}
}

/** What `agg` takes: a name, a list, a dict of column to name or list, or named aggregations. */
export type AggSpec = string | readonly string[] | Readonly<Record<string, string | readonly string[] | NamedAgg>>;

/** The name of a two-level column, as pyarrow writes a pandas MultiIndex column's: `('v1', 'sum')`. */
export const tupleName = (a: string, b: string): string => `('${a}', '${b}')`;

/** The source a groupby reads: its columns, and how to make a frame of columns over labels. */
export interface Source<F> {
  readonly cols: ReadonlyMap<string, Column>;
  /** The source's row labels. */
  readonly labels: Labels;
  frame(cols: Map<string, Column>, labels: Labels): F;
  /** The source's rows where a boolean Series holds (pandas' df[mask]). */
  rows(mask: Series): F;
}

function checkAgg(f: string): Agg {
  if (f === 'quantile') throw new Error(`groupby: the aggregation '${f}' is not supported yet`);
  if (!isAgg(f)) throw new Error(`AttributeError: 'DataFrameGroupBy' object has no attribute '${f}' (the aggregations are ${AGGS.join(', ')})`);
  return f;
}

export class GroupBy<F> {
  private readonly opts: Required<GroupByOptions>;

  constructor(
    private readonly src: Source<F>, readonly keys: readonly string[], opts: GroupByOptions = {},
    /** The columns aggregated: every non-key column by default; a string, one column (a SeriesGroupBy). */
    private readonly selection?: string | readonly string[],
  ) {
    if (!keys.length) throw new Error('groupby: No group keys passed!');
    for (const k of keys) {
      if (!src.cols.has(k)) {
        const names = [...src.cols.keys()].map((n) => JSON.stringify(n)).join(', ');
        throw new Error(`KeyError: ${JSON.stringify(k)}: no such column to group by (the columns are ${names})`);
      }
    }
    const extra = Object.keys(opts).filter((k) => !['sort', 'dropna', 'as_index', 'method', 'observed'].includes(k));
    if (extra.length) throw new TypeError(`groupby: unknown option ${extra[0]} (the options are sort, dropna, as_index, observed, method)`);
    if (opts.observed === false) {
      throw new TypeError('groupby: observed=false (every category of a categorical key) is not supported: the groups are the key values present');
    }
    if (opts.method !== undefined && !['tree', 'shuffle', 'auto'].includes(opts.method)) {
      throw new TypeError(`groupby: method must be 'tree', 'shuffle' or 'auto', got ${JSON.stringify(opts.method)}`);
    }
    this.opts = { sort: opts.sort ?? true, dropna: opts.dropna ?? true, as_index: opts.as_index ?? true, method: opts.method ?? 'auto', observed: true };
    for (const c of typeof selection === 'string' ? [selection] : selection ?? []) {
      if (!src.cols.has(c)) throw new Error(`KeyError: ${JSON.stringify(c)}: Column not found`);
    }
  }

  /** pandas' `gb[col]` (a SeriesGroupBy) and `gb[[cols]]`. */
  get(cols: string | readonly string[]): GroupBy<F> {
    return new GroupBy(this.src, this.keys, this.opts, typeof cols === 'string' ? cols : [...cols]);
  }

  /** The columns aggregated by a whole-frame call. */
  private valueColumns(): string[] {
    if (typeof this.selection === 'string') return [this.selection];
    return this.selection ? [...this.selection] : [...this.src.cols.keys()].filter((c) => !this.keys.includes(c));
  }

  /** Aggregations by spec: a name, a list of names, a dict of column to name or list, or named aggregations. */
  agg(spec: AggSpec): F | Series {
    const single = typeof this.selection === 'string';
    if (typeof spec === 'string') {
      const f = checkAgg(spec);
      if (f === 'size') return this.size();
      // pandas 1.5 leaves out the columns a numeric aggregation cannot take (with a warning)
      const cols = single ? this.valueColumns() : this.valueColumns().filter((c) => !(numericOnly(f) && this.src.cols.get(c)!.dict));
      const result = this.run(cols.map((c) => ({ column: c, agg: f, name: c })), []);
      return single ? this.series(result, this.selection as string) : result;
    }
    if (Array.isArray(spec)) {
      const fs = (spec as readonly string[]).map(checkAgg);
      if (single) return this.run(fs.map((f) => ({ column: this.selection as string, agg: f, name: f })), []);
      const cols = this.valueColumns();
      const takes = (c: string, f: Agg): boolean => !(numericOnly(f) && this.src.cols.get(c)!.dict);
      return this.run(cols.flatMap((c) => fs.filter((f) => takes(c, f)).map((f) => ({ column: c, agg: f, name: tupleName(c, f) }))), []);
    }
    const entries = Object.entries(spec as Record<string, string | readonly string[] | NamedAgg>);
    // named aggregations: { out: [column, aggfunc] } (a column that is no aggregation's name) or md.NamedAgg
    const pair = (v: unknown): boolean => Array.isArray(v) && v.length === 2 && this.src.cols.has(v[0]) && !isAgg(v[0]) && isAgg(v[1]);
    const named = entries.some(([, v]) => v instanceof NamedAgg || pair(v));
    if (named) {
      return this.run(entries.map(([name, v]) => {
        const [column, f] = v instanceof NamedAgg ? [v.column, v.aggfunc] : Array.isArray(v) ? v : [undefined, undefined];
        if (typeof column !== 'string' || typeof f !== 'string') {
          throw new TypeError(`groupby.agg: named aggregation ${JSON.stringify(name)} takes [column, aggfunc] or md.NamedAgg(column, aggfunc)`);
        }
        this.checkColumn(column);
        return { column, agg: checkAgg(f), name };
      }), []);
    }
    const multi = entries.some(([, v]) => Array.isArray(v));
    return this.run(entries.flatMap(([column, v]) => {
      this.checkColumn(column);
      const fs = Array.isArray(v) ? (v as string[]) : [v as string];
      return fs.map((f) => ({ column, agg: checkAgg(f), name: multi ? tupleName(column, f) : column }));
    }), []);
  }
  aggregate(spec: AggSpec): F | Series { return this.agg(spec); }

  private checkColumn(c: string): void {
    if (!this.src.cols.has(c)) throw new Error(`KeyError: Column(s) [${JSON.stringify(c)}] do not exist`);
    if (this.keys.includes(c)) throw new Error(`groupby.agg: ${JSON.stringify(c)} is a key column`);
  }

  /** Rows per group: a Series (as_index) or a frame with a `size` column. */
  size(): F | Series {
    const result = this.run([], [{ column: this.keys[0]!, agg: 'size', name: 'size' }]);
    return this.opts.as_index ? this.series(result, 'size', null) : result;
  }

  sum(): F | Series { return this.agg('sum'); }
  mean(): F | Series { return this.agg('mean'); }
  min(): F | Series { return this.agg('min'); }
  max(): F | Series { return this.agg('max'); }
  count(): F | Series { return this.agg('count'); }
  std(): F | Series { return this.agg('std'); }
  var(): F | Series { return this.agg('var'); }
  prod(): F | Series { return this.agg('prod'); }
  first(): F | Series { return this.agg('first'); }
  last(): F | Series { return this.agg('last'); }
  any(): F | Series { return this.agg('any'); }
  all(): F | Series { return this.agg('all'); }
  median(): F | Series { return this.agg('median'); }
  nunique(): F | Series { return this.agg('nunique'); }

  /**
   * Each row's group's aggregation (pandas' transform): a frame over the
   * source's rows and labels of the columns aggregated, or a Series for a
   * selected column.
   */
  transform(f: string): F | Series {
    const agg = checkAgg(f);
    const single = typeof this.selection === 'string';
    const cols = single ? this.valueColumns() : this.valueColumns().filter((c) => !(numericOnly(agg) && this.src.cols.get(c)!.dict));
    const result = this.perRow(cols.map((c) => ({ column: c, agg, name: c })));
    return single ? this.series(result, this.selection as string) : result;
  }

  /** Each row's place in its group, from 0, in row order (a Series over the source's labels; -1 where the key is missing, which pandas gives as NaN). */
  cumcount(): Series {
    return this.series(this.perRow([{ column: this.keys[0]!, agg: 'cumcount', name: 'cumcount' }]), 'cumcount', null);
  }

  /** The running sum of each numeric column within each row's group (NaN skipped, as pandas skips it). */
  cumsum(): F | Series {
    const single = typeof this.selection === 'string';
    const cols = this.valueColumns().filter((c) => !this.src.cols.get(c)!.dict);
    if (single && !cols.length) throw new TypeError(`groupby: cumsum of the string column ${JSON.stringify(this.selection)}`);
    const result = this.perRow(cols.map((c) => ({ column: c, agg: 'cumsum' as RowOp, name: c })));
    return single ? this.series(result, this.selection as string) : result;
  }

  /** The first `n` rows of each group, in the source's order and with its labels (pandas' head). */
  head(n = 5): F {
    const at = this.cumcount();
    return this.src.rows(at.ge(0).logical_and(at.lt(n)));
  }

  /** A result per row of the source: its columns over the source's labels. */
  private perRow(requests: readonly Request[]): F {
    const keyCols = this.keys.map((k) => this.src.cols.get(k)!);
    const built = aggregate(keyCols, this.src.cols, requests, { ...this.opts, sort: true, rows: true });
    return this.src.frame(new Map(requests.map((r, i) => [r.name, built.aggs[i]!])), this.src.labels);
  }

  /** The frame of the keys (index or columns) and `requests` (then `extra`, which may aggregate a key: size). */
  private run(requests: readonly Request[], extra: readonly Request[]): F {
    for (const r of requests) {
      const c = this.src.cols.get(r.column)!;
      if (r.agg !== 'cumcount' && r.agg !== 'cumsum' && numericOnly(r.agg) && c.dict) {
        throw new TypeError(`groupby: '${r.agg}' of the string column ${JSON.stringify(r.column)} (dtype ${dtypeName(c)})`);
      }
    }
    const all = [...requests, ...extra];
    const keyCols = this.keys.map((k) => this.src.cols.get(k)!);
    const built = aggregate(keyCols, this.src.cols, all, this.opts);
    const cols = new Map<string, Column>();
    if (!this.opts.as_index) this.keys.forEach((k, i) => cols.set(k, built.keys[i]!));
    all.forEach((r, i) => cols.set(r.name, built.aggs[i]!));
    const labels: Labels = this.opts.as_index ? { kind: 'index', names: [...this.keys], cols: built.keys } : { kind: 'range' };
    return this.src.frame(cols, labels);
  }

  /** A one-column result as a Series over the frame's labels. */
  private series(frame: F | Series, column: string, name: string | null = column): Series {
    if (frame instanceof Series) return frame;
    const f = frame as unknown as { get(c: string): Series };
    const s = f.get(column);
    return new Series(s.column, name, s.labels);
  }
}
