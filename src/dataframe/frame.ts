// A DataFrame: named columns over one row chunking, each a Series (a 1-d
// Tensor, or a string column's codes and dictionary), and the row labels.
// It is lazy as tensors are: `await df.execute()` runs every column as one
// graph (on the local pool or a mesh session), `await df.fetch()` gives a
// LocalFrame that prints as pandas prints it and converts to Arrow. A row
// selection (`df.get(mask)`) compacts every column and the labels with the
// chunked selection of the tensor API: nothing is gathered whole. pandas'
// frame methods (rename ... nlargest) work column by column through
// ./columns.ts; an Arrow table converts in ./arrow.ts.

import { type Table, tableFromArrays } from 'apache-arrow';
import * as mt from '../api/tensor.js';
import type { RunOptions } from '../runtime/runtime.js';
import type { TypedArray } from '../graph/dtype.js';
import { type Column, type ColumnData, type Labels, Series, dtypeName, toColumn } from './series.js';
import { GroupBy, type GroupByOptions } from './groupby.js';
import { type FormatColumn, formatFrame } from './format.js';
import {
  DESCRIBE, DESCRIBE_STRINGS, type Reduction, checkReduction, describeNumbers, describeStrings, duplicatedOf, fillColumn, isNumber, missingOf,
  mapColumn, namesLabels, nuniqueOf, reduceColumn, withString,
} from './columns.js';
import { columnsFromArrow, isArrowTable } from './arrow.js';
import { type NaPosition, type SortOptions, directions, indexPermutation, naPosition, permuteLabels, sortPermutation } from './sort.js';
import { type JoinOptions, type MergeOptions, howOf, joinFrames, mergeFrames, mergeKeys } from './merge.js';

export interface FrameOptions {
  /** Rows per chunk (the default chunking of a column's length otherwise). */
  readonly chunkSize?: number;
}

/** Rows as iloc and loc take them: a position, a list of positions, a slice, or a boolean Series. */
export type Rows = number | readonly number[] | mt.Slice | Series;
/** pandas 1.5's numeric_only: string columns are left out of a reduction unless it is false (then refused). */
export interface NumericOnly { readonly numeric_only?: boolean }

const namesOf = (x: string | readonly string[]): string[] => (typeof x === 'string' ? [x] : [...x]);
/** A column name no frame holds: loc's place of each row in a list of labels, while it orders them. */
const PLACE = '\u0000loc place';

export class DataFrame {
  private readonly cols: ReadonlyMap<string, Column>;

  /** Columns by name (JS data, typed arrays, tensors, Series), an Apache Arrow Table, or the internal form (Columns over labels). */
  constructor(data: Readonly<Record<string, ColumnData>> | ReadonlyMap<string, Column> | Table, opts: FrameOptions = {}, readonly labels: Labels = { kind: 'range' }) {
    if (data instanceof Map) {
      this.cols = data;
    } else if (isArrowTable(data)) {
      this.cols = columnsFromArrow(data, opts.chunkSize);
    } else {
      const cols = new Map<string, Column>();
      for (const [name, values] of Object.entries(data as Record<string, ColumnData>)) cols.set(name, toColumn(name, values, opts.chunkSize));
      this.cols = cols;
    }
    const lengths = new Set([...this.cols.values()].map((c) => c.values.shape[0]!).filter((n) => !Number.isNaN(n)));
    if (lengths.size > 1) throw new RangeError(`DataFrame: all columns must be the same length, got ${[...lengths].join(', ')}`);
  }

  get columns(): string[] { return [...this.cols.keys()]; }
  /** Rows x columns; rows is NaN after a selection, until it runs. */
  get shape(): [number, number] {
    const first = this.cols.values().next().value;
    return [first ? first.values.shape[0]! : 0, this.cols.size];
  }
  get dtypes(): Record<string, string> { return Object.fromEntries([...this.cols].map(([n, c]) => [n, dtypeName(c)])); }

  /** Column `name`'s data (the values tensor, and a string column's dictionary). */
  column(name: string): Column {
    const c = this.cols.get(name);
    if (!c) throw new Error(`KeyError: ${JSON.stringify(name)}: no such column (the columns are ${this.columns.map((n) => JSON.stringify(n)).join(', ')})`);
    return c;
  }

  /** pandas' `df[...]`: a column by name, a frame of the named columns, or the rows where a boolean Series holds. */
  get(key: string): Series;
  get(key: readonly string[]): DataFrame;
  get(key: Series): DataFrame;
  get(key: string | readonly string[] | Series): Series | DataFrame {
    if (typeof key === 'string') return new Series(this.column(key), key, this.labels);
    if (key instanceof Series) return this.selectRows(key);
    if (Array.isArray(key)) return new DataFrame(new Map(key.map((n) => [n, this.column(n)])), {}, this.labels);
    throw new TypeError(`DataFrame.get: a column name, a list of names or a boolean Series, got ${typeof key}`);
  }

  /** The rows where boolean Series `mask` holds, with their labels. */
  private selectRows(mask: Series): DataFrame {
    if (mask.dtype !== 'bool') throw new TypeError(`DataFrame.get: a row selection takes a boolean Series, got ${mask.dtype}`);
    const m = mask.values;
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: c.values.get(m) }]));
    return new DataFrame(cols, {}, mapLabels(this.labels, m.shape[0]!, m.node.chunk[0]!, (t) => t.get(m)));
  }

  /** pandas' groupby: the rows grouped by the values of `by` (a column or several), to aggregate. */
  groupby(by: string | readonly string[], opts: GroupByOptions = {}): GroupBy<DataFrame> {
    const src = {
      cols: this.cols, labels: this.labels,
      frame: (cols: Map<string, Column>, labels: Labels) => new DataFrame(cols, {}, labels),
      rows: (mask: Series) => this.selectRows(mask),
    };
    return new GroupBy(src, typeof by === 'string' ? [by] : [...by], opts);
  }

  /** The frame over a RangeIndex, the index's levels first as columns (pandas' `level_0` or `index` where unnamed); with `drop`, the index is dropped. */
  reset_index(opts: { drop?: boolean } = {}): DataFrame {
    if (this.labels.kind === 'range' || opts.drop) return new DataFrame(this.cols, {}, { kind: 'range' });
    const { names, cols: levels } = this.labels;
    const cols = new Map<string, Column>();
    levels.forEach((c, i) => cols.set(names[i] ?? (levels.length === 1 ? 'index' : `level_${i}`), c));
    for (const [n, c] of this.cols) {
      if (cols.has(n)) throw new Error(`ValueError: cannot insert ${n}, already exists`);
      cols.set(n, c);
    }
    return new DataFrame(cols, {}, { kind: 'range' });
  }

  /** The frame with columns `keys` as its index (and not among its columns). */
  set_index(keys: string | readonly string[]): DataFrame {
    const names = typeof keys === 'string' ? [keys] : [...keys];
    const levels = names.map((n) => this.column(n));
    const cols = new Map([...this.cols].filter(([n]) => !names.includes(n)));
    return new DataFrame(cols, {}, { kind: 'index', names, cols: levels });
  }

  /** A frame with the columns given added or replaced. */
  assign(columns: Readonly<Record<string, ColumnData>>): DataFrame {
    const cols = new Map(this.cols);
    for (const [name, data] of Object.entries(columns)) cols.set(name, toColumn(name, data, undefined));
    return new DataFrame(cols, {}, this.labels);
  }

  // pandas' frame methods over the columns (./columns.ts computes per column)

  /** The frame with columns renamed (pandas' rename(columns=)); names it lacks are ignored, as pandas ignores them. */
  rename(opts: { columns: Readonly<Record<string, string>> }): DataFrame {
    const to = opts.columns;
    const cols = new Map([...this.cols].map(([n, c]) => [Object.hasOwn(to, n) ? to[n]! : n, c]));
    if (cols.size !== this.cols.size) throw new Error('DataFrame.rename: two columns would take one name');
    return new DataFrame(cols, {}, this.labels);
  }

  /** The frame without the named columns (KeyError for a name it lacks). */
  drop(columns: string | readonly string[] | { columns: string | readonly string[] }): DataFrame {
    const names = typeof columns === 'object' && !Array.isArray(columns)
      ? namesOf((columns as { columns: string | readonly string[] }).columns)
      : namesOf(columns as string | readonly string[]);
    const missing = names.filter((n) => !this.cols.has(n));
    if (missing.length) throw new Error(`KeyError: ${JSON.stringify(missing)} not found in axis`);
    return new DataFrame(new Map([...this.cols].filter(([n]) => !names.includes(n))), {}, this.labels);
  }

  /** Every column (or the named ones) cast to a dtype. */
  astype(dtype: string | Readonly<Record<string, string>>): DataFrame {
    const to = (n: string): string | undefined => (typeof dtype === 'string' ? dtype : dtype[n]);
    if (typeof dtype !== 'string') this.checkNames(Object.keys(dtype), 'astype');
    return this.mapColumns((n, c) => {
      const d = to(n);
      return d === undefined ? c : new Series(c, n).astype(d).column;
    });
  }

  /** Missing values filled: one value for every column, or one per column named. */
  fillna(value: number | string | boolean | Readonly<Record<string, number | string | boolean>>): DataFrame {
    if (typeof value === 'object') this.checkNames(Object.keys(value), 'fillna');
    return this.mapColumns((n, c) => {
      const v = typeof value === 'object' ? value[n] : value;
      return v === undefined ? c : fillColumn(c, v, `DataFrame.fillna: column ${JSON.stringify(n)}`);
    });
  }

  /** The rows with no missing value among `subset` (every column by default); how 'all': those not missing in all of them. */
  dropna(opts: { subset?: string | readonly string[]; how?: 'any' | 'all' } = {}): DataFrame {
    const names = opts.subset === undefined ? this.columns : namesOf(opts.subset);
    this.checkNames(names, 'dropna');
    if (opts.how !== undefined && opts.how !== 'any' && opts.how !== 'all') {
      throw new Error(`ValueError: invalid how option: ${String(opts.how)}`);
    }
    if (!names.length) return this;
    const missing = names.map((n) => missingOf(this.cols.get(n)!));
    const drop = missing.reduce((a, b) => (opts.how === 'all' ? mt.logical_and(a, b) : mt.logical_or(a, b)));
    return this.selectRows(new Series({ values: mt.logical_not(drop) }));
  }

  /** A frame of booleans: where each value is missing. */
  isna(): DataFrame { return this.mapColumns((_, c) => ({ values: missingOf(c) })); }
  /** A frame of booleans: where each value is present. */
  notna(): DataFrame { return this.mapColumns((_, c) => ({ values: mt.logical_not(missingOf(c)) })); }
  /** isna's other name. */
  isnull(): DataFrame { return this.isna(); }
  /** notna's other name. */
  notnull(): DataFrame { return this.notna(); }

  /**
   * pandas' where: each value where `cond` holds, else `other` (missing by
   * default: an integer column becomes float64). `cond` is a frame of
   * booleans (a column it lacks is false), or a boolean Series for the
   * rows (pandas' axis=0). A bool column would become object: refused.
   */
  where(cond: DataFrame | Series, other?: number | string): DataFrame {
    const condOf = (n: string): mt.Tensor => {
      if (cond instanceof Series) return cond.values;
      const c = cond.cols.get(n);
      return c ? c.values : mt.zeros_like(this.cols.get(n)!.values, { dtype: 'bool' });
    };
    const conds = cond instanceof Series ? [cond.column] : [...cond.cols.values()];
    for (const c of conds) {
      if (dtypeName(c) !== 'bool') throw new TypeError(`DataFrame.where: cond must be boolean, got dtype ${dtypeName(c)}`);
    }
    return this.mapColumns((n, c) => {
      const keep = condOf(n);
      if (c.dict) {
        if (other !== undefined && typeof other !== 'string') {
          throw new TypeError(`DataFrame.where: other ${other} for the string (object) column ${JSON.stringify(n)}`);
        }
        const [d, code] = other === undefined ? [c, -1] as const : withString(c, other);
        const values = mt.where(keep, c.values, code);
        return other === undefined ? { ...d, values, missing: 'NaN' } : { ...d, values };
      }
      if (typeof other === 'string') {
        throw new TypeError(`DataFrame.where: other ${JSON.stringify(other)} for the ${dtypeName(c)} column ${JSON.stringify(n)}`);
      }
      if (c.values.dtype === 'bool') {
        throw new TypeError(`DataFrame.where: the bool column ${JSON.stringify(n)} would become object`);
      }
      const fill = other ?? NaN;
      // an integer column stays one when the fill is an integer; NaN makes it float64
      const floats = c.values.dtype === 'float32' ? 'float32' : 'float64';
      const dtype = Number.isInteger(fill) && !c.values.dtype.startsWith('float') ? c.values.dtype : floats;
      return { values: mt.where(keep, mt.astype(c.values, dtype), mt.astype(fill, dtype)) };
    });
  }

  /**
   * pandas' `df.iloc[rows, cols]`: rows a position, a list of positions, a
   * `mt.slice(a, b)` or a boolean Series; cols positions. One row gives a
   * Series over the column names (numbers, or strings only: a row of both
   * would be pandas' object Series, refused); one row and one column a 0-d
   * tensor (a string value: a one-row Series).
   */
  iloc(rows: Rows, cols?: number | readonly number[]): DataFrame | Series | mt.Tensor {
    const names = this.columns;
    const pick = cols === undefined ? undefined : (typeof cols === 'number' ? [cols] : [...cols]).map((i) => {
      const name = names[i < 0 ? names.length + i : i];
      if (name === undefined) {
        throw new RangeError(`IndexError: column position ${i} is out of bounds for ${names.length} columns`);
      }
      return name;
    });
    return this.located(rows, pick, typeof cols === 'number', false);
  }

  /**
   * pandas' `df.loc[rows, cols]`: rows a label, a list of labels, a
   * `mt.slice(a, b)` (b included, as pandas includes it) or a boolean
   * Series; cols names. Over a RangeIndex a label is a position; over an
   * index of keys, a label selects the rows whose first level equals it
   * (a frame; a list: the rows of each label in the list's order).
   */
  loc(rows: Rows | string | readonly string[], cols?: string | readonly string[]): DataFrame | Series | mt.Tensor {
    if (cols !== undefined) this.checkNames(namesOf(cols), 'loc');
    const pick = cols === undefined ? undefined : namesOf(cols);
    const strings = typeof rows === 'string' || (Array.isArray(rows) && rows.some((r) => typeof r === 'string'));
    if (this.labels.kind === 'range' && !strings) {
      // a label is a position; a slice of labels includes its end
      const r = rows instanceof mt.Slice && rows.stop !== null ? mt.slice(rows.start, rows.stop + 1, rows.step) : (rows as Rows);
      return this.located(r, pick, typeof cols === 'string', true);
    }
    if (rows instanceof Series) return this.located(rows, pick, typeof cols === 'string', true);
    if (this.labels.kind === 'range' || rows instanceof mt.Slice) {
      const what = rows instanceof mt.Slice ? 'a slice of labels over an index of keys' : 'string labels over a RangeIndex';
      throw new TypeError(`DataFrame.loc: ${what} is not supported`);
    }
    // each row's place in the list of labels: the rows holding one, in the list's order
    const wanted = (Array.isArray(rows) ? rows : [rows]) as readonly (string | number)[];
    const place = new Series({ values: mapColumn(this.labels.cols[0]!, new Map(wanted.map((w, i) => [w, i]))).values });
    const kept = this.assign({ [PLACE]: place }).selectRows(place.notna());
    const frame = kept.take(mt.argsort(kept.column(PLACE).values, { kind: 'stable' })).drop(PLACE);
    return pick ? frame.get(pick) : frame;
  }

  /** The rows at positions `indices` (pandas' take), with their labels. */
  take(indices: readonly number[] | mt.Tensor): DataFrame {
    const at = indices instanceof mt.Tensor ? indices : mt.tensor(BigInt64Array.from(indices, (i) => BigInt(i)));
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: mt.take(c.values, at) }]));
    return new DataFrame(cols, {}, mapLabels(this.labels, this.shape[0], this.chunk(), (t) => mt.take(t, at)));
  }

  /** How many distinct values each column holds (missing not counted): an int64 Series over the column names. */
  nunique(): Series { return this.reduced([...this.cols].map(([n, c]) => [n, nuniqueOf(c)])); }
  /** How many values each column holds that are not missing. */
  count(): Series { return this.reduced([...this.cols].map(([n, c]) => [n, new Series(c).count()])); }
  /** The sum of each number and bool column (NaN skipped): a Series over the column names. */
  sum(opts: NumericOnly = {}): Series { return this.reduction('sum', opts); }
  /** The mean of each number column. */
  mean(opts: NumericOnly = {}): Series { return this.reduction('mean', opts); }
  /** The least value of each number column. */
  min(opts: NumericOnly = {}): Series { return this.reduction('min', opts); }
  /** The greatest value of each number column. */
  max(opts: NumericOnly = {}): Series { return this.reduction('max', opts); }
  /** Standard deviation of each number column (ddof 1). */
  std(opts: NumericOnly = {}): Series { return this.reduction('std', opts); }
  /** Variance of each number column (ddof 1). */
  var(opts: NumericOnly = {}): Series { return this.reduction('var', opts); }
  /** The median of each number column. */
  median(opts: NumericOnly = {}): Series { return this.reduction('median', opts); }

  /**
   * pandas' agg: a name gives what that reduction gives (a Series over the
   * column names); a list, a frame indexed by the names, a column per
   * number column.
   */
  agg(funcs: string | readonly string[]): Series | DataFrame {
    if (typeof funcs === 'string') return this.reduction(checkReduction(funcs), {});
    const fs = funcs.map(checkReduction);
    // (a bool column where every function counts, as pandas keeps it)
    const counts = fs.every((f) => f === 'count' || f === 'nunique' || f === 'sum');
    const cols = new Map([...this.cols]
      .filter(([, c]) => isNumber(c) || (c.values.dtype === 'bool' && counts))
      .map(([n, c]) => [n, { values: mt.stack(fs.map((f) => reduceColumn(c, f))) }]));
    return new DataFrame(cols, {}, namesLabels(fs));
  }
  /** agg's other name. */
  aggregate(funcs: string | readonly string[]): Series | DataFrame { return this.agg(funcs); }

  /**
   * pandas' describe: count, mean, std, min, quartiles and max of each
   * number column (bools left out, as pandas leaves them); a frame of no
   * number column: count, unique, top and freq of each column.
   */
  describe(): DataFrame {
    const numbers = [...this.cols].filter(([, c]) => isNumber(c));
    if (numbers.length || !this.cols.size) {
      return new DataFrame(new Map(numbers.map(([n, c]) => [n, { values: describeNumbers(c) }])), {}, namesLabels(DESCRIBE));
    }
    return new DataFrame(new Map([...this.cols].map(([n, c]) => [n, describeStrings(c)])), {}, namesLabels(DESCRIBE_STRINGS));
  }

  /** Whether each row repeats another in `subset` (every column by default): keep 'first', 'last', or false (every repeated row). */
  duplicated(opts: { subset?: string | readonly string[]; keep?: 'first' | 'last' | false } = {}): Series {
    const names = opts.subset === undefined ? this.columns : namesOf(opts.subset);
    this.checkNames(names, 'duplicated');
    const keep = opts.keep ?? 'first';
    if (keep !== 'first' && keep !== 'last' && keep !== false) {
      throw new Error(`ValueError: keep must be 'first', 'last' or false, got ${String(keep)}`);
    }
    if (!names.length) throw new Error('ValueError: duplicated of a frame with no columns');
    return new Series({ values: duplicatedOf(names.map((n) => this.cols.get(n)!), keep) }, null, this.labels);
  }
  /** The rows that duplicated() does not mark, with their labels. */
  drop_duplicates(opts: { subset?: string | readonly string[]; keep?: 'first' | 'last' | false } = {}): DataFrame {
    return this.selectRows(new Series({ values: mt.logical_not(this.duplicated(opts).values) }));
  }

  /** The n rows with the largest values of `columns` (each next one breaking ties), in that order; ties in row order (keep='first'). */
  nlargest(n: number, columns: string | readonly string[]): DataFrame {
    return this.ordered(n, namesOf(columns), true);
  }
  /** The n rows with the smallest values of `columns`, in that order. */
  nsmallest(n: number, columns: string | readonly string[]): DataFrame {
    return this.ordered(n, namesOf(columns), false);
  }

  private ordered(n: number, names: readonly string[], largest: boolean): DataFrame {
    this.checkNames(names, largest ? 'nlargest' : 'nsmallest');
    let perm: mt.Tensor | undefined;
    for (const name of [...names].reverse()) {
      const c = this.cols.get(name)!;
      if (!isNumber(c)) {
        const method = largest ? 'nlargest' : 'nsmallest';
        throw new TypeError(`Column ${JSON.stringify(name)} has dtype ${dtypeName(c)}, cannot use method '${method}' with this dtype`);
      }
      const key = largest ? mt.negative(mt.astype(c.values, 'float64')) : c.values;
      // stable sorts from the last key to the first: the first key orders, the others break its ties
      perm = perm ? mt.take(perm, mt.argsort(mt.take(key, perm), { kind: 'stable' })) : mt.argsort(key, { kind: 'stable' });
    }
    return perm ? this.take(perm.get(mt.slice(0, Math.max(0, n)))) : this.head(n);
  }

  /** A Series over the column names from one 0-d tensor per column. */
  private reduced(parts: readonly (readonly [string, mt.Tensor])[]): Series {
    const values = parts.length ? mt.stack(parts.map(([, t]) => t)) : mt.zeros([0], { dtype: 'float64' });
    return new Series({ values }, null, namesLabels(parts.map(([n]) => n)));
  }

  /**
   * A reduction of each number and bool column. String columns are left
   * out, as pandas 1.5 leaves them out of a mean (its sum, min and max keep
   * one whose values all concatenate or compare: an object result, not
   * here); numeric_only false refuses one, naming its dtype.
   */
  private reduction(f: Reduction, opts: NumericOnly): Series {
    const cols = [...this.cols].filter(([n, c]) => {
      if (!c.dict) return true;
      if (opts.numeric_only === false) {
        throw new TypeError(`DataFrame.${f}: column ${JSON.stringify(n)} of dtype ${dtypeName(c)} has no ${f}`);
      }
      return false;
    });
    return this.reduced(cols.map(([n, c]) => [n, reduceColumn(c, f)]));
  }

  private mapColumns(f: (name: string, c: Column) => Column): DataFrame {
    return new DataFrame(new Map([...this.cols].map(([n, c]) => [n, f(n, c)])), {}, this.labels);
  }

  private checkNames(names: readonly string[], what: string): void {
    const missing = names.filter((n) => !this.cols.has(n));
    if (missing.length) {
      const list = (xs: readonly string[]): string => xs.map((n) => JSON.stringify(n)).join(', ');
      throw new Error(`KeyError: ${list(missing)}: no such column for ${what} (the columns are ${list(this.columns)})`);
    }
  }

  private chunk(): number { return this.cols.values().next().value?.values.node.chunk[0] ?? 1; }

  /** iloc and loc once the columns are names: rows selected, then one row or one column taken out. */
  private located(
    rows: Rows, names: readonly string[] | undefined, oneColumn: boolean, byLabel: boolean,
  ): DataFrame | Series | mt.Tensor {
    const frame = names ? this.get(names) : this;
    if (typeof rows === 'number') {
      const n = frame.shape[0];
      if (!Number.isNaN(n) && (rows >= n || rows < -n)) {
        throw new RangeError(`IndexError: single positional indexer ${rows} is out-of-bounds for ${n} rows`);
      }
      const at = rows < 0 && !Number.isNaN(n) ? n + rows : rows;
      if (oneColumn) {
        const c = frame.cols.values().next().value!;
        return c.dict ? new Series({ ...c, values: c.values.get(mt.slice(at, at === -1 ? null : at + 1)) }, names![0]!) : c.values.get(at);
      }
      return frame.row(at, this.labels.kind === 'range' ? String(at) : null);
    }
    let out: DataFrame;
    if (rows instanceof Series) out = frame.selectRows(rows);
    else if (rows instanceof mt.Slice) out = frame.rowsOf(rows);
    else if (Array.isArray(rows)) out = frame.take(rows as number[]);
    else {
      const fn = byLabel ? 'loc' : 'iloc';
      throw new TypeError(`DataFrame.${fn}: rows as a position, a list, mt.slice(a, b) or a boolean Series, got ${typeof rows}`);
    }
    return oneColumn ? out.get(names![0]!) : out;
  }

  /** Row `at` as a Series over the column names (pandas' df.iloc[i]). */
  private row(at: number, name: string | null): Series {
    const cols = [...this.cols];
    const strings = cols.filter(([, c]) => c.dict);
    if (strings.length && strings.length < cols.length) {
      const other = dtypeName(cols.find(([, c]) => !c.dict)![1]);
      const what = `a row of strings (object) and ${other} values is pandas' object Series`;
      throw new TypeError(`DataFrame.iloc: ${what}, not supported; select the columns of one kind`);
    }
    const labels = namesLabels(cols.map(([n]) => n));
    if (!strings.length) return new Series({ values: mt.stack(cols.map(([, c]) => c.values.get(at))) }, name, labels);
    // strings: each column's code moved into the union of the dictionaries
    const dict: string[] = [];
    const codes = cols.map(([, c]) => {
      const table = Int32Array.from(c.dict!, (s) => {
        const i = dict.indexOf(s);
        return i >= 0 ? i : dict.push(s) - 1;
      });
      const k = c.values.get(at);
      return mt.where(mt.less(k, 0), -1, mt.take(mt.tensor(table), mt.maximum(k, 0)));
    });
    return new Series({ values: mt.astype(mt.stack(codes), 'int32'), dict }, name, labels);
  }

  /** The rows of a slice, with their labels. */
  private rowsOf(s: mt.Slice): DataFrame {
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: c.values.get(s) }]));
    return new DataFrame(cols, {}, mapLabels(this.labels, this.shape[0], this.chunk(), (t) => t.get(s)));
  }

  /** The first n rows. */
  head(n = 5): DataFrame { return this.rows(0, n); }
  /** The last n rows. */
  tail(n = 5): DataFrame { return this.rows(-n, null); }

  private rows(start: number, stop: number | null): DataFrame {
    const s = mt.slice(start, stop);
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: c.values.get(s) }]));
    const first = this.cols.values().next().value?.values;
    const labels = start === 0 && this.labels.kind === 'range' ? this.labels : mapLabels(this.labels, this.shape[0], first?.node.chunk[0] ?? 1, (t) => t.get(s));
    return new DataFrame(cols, {}, labels);
  }

  /** Runs every column (and the labels) as one graph; resolves to this frame. */
  async execute(opts: RunOptions = {}): Promise<DataFrame> {
    await mt.executeWith(opts, ...this.tensors());
    return this;
  }

  /** Every column's tensor and the labels' (what an execution of the frame computes). */
  tensors(): mt.Tensor[] {
    return [...[...this.cols.values()].map((c) => c.values), ...(this.labels.kind === 'index' ? this.labels.cols.map((c) => c.values) : [])];
  }

  /** The frame here, as a LocalFrame. */
  async fetch(opts: RunOptions = {}): Promise<LocalFrame> {
    await this.execute(opts);
    const local = async (c: Column): Promise<LocalColumn> => ({
      dtype: dtypeName(c), values: (await c.values.fetch()).data as TypedArray, ...(c.dict ? { dict: c.dict } : {}), ...(c.missing ? { missing: c.missing } : {}),
    });
    const columns = new Map<string, LocalColumn>();
    for (const [n, c] of this.cols) columns.set(n, await local(c));
    if (this.labels.kind === 'index') {
      const levels = [];
      for (const c of this.labels.cols) levels.push(await local(c));
      return new LocalFrame(columns, { names: this.labels.names, levels });
    }
    const len = Number.isNaN(this.shape[0]) || !this.cols.size ? (columns.values().next().value?.values.length ?? 0) : this.shape[0];
    return new LocalFrame(columns, { names: [null], levels: [{ dtype: 'int64', values: BigInt64Array.from({ length: len }, (_, i) => BigInt(i)) }], range: true });
  }

  // sorts and merges (./sort.ts, ./merge.ts)

  /** pandas' sort_values: the rows ordered by columns `by` (stably, as pandas' kind='stable'; missing values per na_position), with their labels. */
  sort_values(by: string | readonly string[], opts: SortOptions = {}): DataFrame {
    const names = typeof by === 'string' ? [by] : [...by];
    const keys = names.map((n) => this.column(n));
    if (!keys.length) return this;
    return this.permuted(sortPermutation(keys, directions(opts.ascending, names.length), naPosition(opts.na_position)));
  }

  /** pandas' sort_index: the rows ordered by their labels (every level of a MultiIndex). */
  sort_index(opts: { ascending?: boolean; na_position?: NaPosition; kind?: string } = {}): DataFrame {
    const chunk = this.cols.values().next().value?.values.node.chunk[0] || 1;
    return this.permuted(indexPermutation(this.labels, this.shape[0], chunk, opts.ascending ?? true, naPosition(opts.na_position)));
  }

  /** The rows through permutation `perm`, labels too. */
  private permuted(perm: mt.Tensor): DataFrame {
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: mt.take(c.values, perm) }]));
    return new DataFrame(cols, {}, permuteLabels(this.labels, perm));
  }

  /** pandas' merge: the rows of this frame and `right` whose keys match (by `how`), over a RangeIndex. */
  merge(right: DataFrame, opts: MergeOptions = {}): DataFrame {
    const [ln, rn] = mergeKeys(this.cols, right.cols, opts);
    const side = (f: DataFrame, names: string[]) => ({ cols: f.cols, keys: names.map((n) => f.column(n)), keyNames: names });
    const m = mergeFrames(side(this, ln), side(right, rn), howOf(opts.how), opts.sort ?? false, opts.suffixes ?? ['_x', '_y'], true);
    return new DataFrame(m.cols, {}, { kind: 'range' });
  }

  /** pandas' join: `other`'s rows matched by its index to this frame's columns `on` (else to this frame's index), over this frame's labels. */
  join(other: DataFrame, opts: JoinOptions = {}): DataFrame {
    const side = (f: DataFrame) => ({ cols: f.cols, labels: f.labels, length: f.shape[0] });
    const j = joinFrames(side(this), side(other), opts);
    return new DataFrame(j.cols, {}, j.labels);
  }
}

/** Labels after a row operation `f` (a selection, a slice) on a frame of `n` rows chunked by `chunk`: a RangeIndex becomes the positions kept. */
function mapLabels(labels: Labels, n: number, chunk: number, f: (t: mt.Tensor) => mt.Tensor): Labels {
  if (labels.kind === 'range') return { kind: 'index', names: [null], cols: [{ values: f(mt.arange(n, { dtype: 'int64', chunkSize: chunk })) }] };
  return { ...labels, cols: labels.cols.map((c) => ({ ...c, values: f(c.values) })) };
}

interface LocalColumn { readonly dtype: string; readonly values: TypedArray; readonly dict?: readonly string[]; readonly missing?: 'NaN' }

/** A fetched index: its levels' names and values; `range` when it is 0, 1, 2, ... (a RangeIndex). */
interface LocalIndex { readonly names: readonly (string | null)[]; readonly levels: readonly LocalColumn[]; readonly range?: boolean }

/** A local column's values as JS values: numbers (bigints for int64), booleans, strings (null where missing). */
function jsValues(c: LocalColumn): (number | bigint | boolean | string | null)[] {
  if (c.dict) return Array.from(c.values as Int32Array, (k) => (k < 0 ? null : c.dict![k]!));
  if (c.dtype === 'bool') return Array.from(c.values as Uint8Array, (v) => v !== 0);
  return Array.from(c.values as ArrayLike<number | bigint>);
}

/** A frame's values here: pandas' print, its columns as JS values, and Arrow. */
export class LocalFrame {
  constructor(private readonly cols: ReadonlyMap<string, LocalColumn>, private readonly idx: LocalIndex) {}

  get columns(): string[] { return [...this.cols.keys()]; }
  get shape(): [number, number] { return [this.idx.levels[0]!.values.length, this.cols.size]; }
  get dtypes(): Record<string, string> { return Object.fromEntries([...this.cols].map(([n, c]) => [n, c.dtype])); }
  /** The index's values: numbers for a RangeIndex or positions, a key's values, or arrays of the levels' values (a MultiIndex). */
  get index(): unknown[] {
    const levels = this.idx.levels.map((l) => jsValues(l).map((v) => (typeof v === 'bigint' && this.idx.names[0] === null ? Number(v) : v)));
    return levels.length === 1 ? levels[0]! : levels[0]!.map((_, i) => levels.map((l) => l[i]));
  }
  /** The index's level names (null where unnamed). */
  get indexNames(): (string | null)[] { return [...this.idx.names]; }

  /** A column's values as JS values: numbers (bigints for int64), booleans, strings (null where missing). */
  get(name: string): (number | bigint | boolean | string | null)[] {
    const c = this.cols.get(name);
    if (!c) throw new Error(`KeyError: ${JSON.stringify(name)}: no such column (the columns are ${this.columns.map((n) => JSON.stringify(n)).join(', ')})`);
    return jsValues(c);
  }

  /**
   * An Arrow table of the columns (strings as Arrow strings, null where
   * missing), the index first as pyarrow.Table.from_pandas writes it: a
   * named level as a column of its name, an unnamed one that is not 0, 1,
   * 2, ... as `__index_level_0__`.
   */
  toArrow(): Table {
    const arrays: Record<string, unknown> = {};
    const arrow = (c: LocalColumn): unknown => (c.dict || c.dtype === 'bool' ? jsValues(c) : c.values);
    if (!this.idx.range) this.idx.levels.forEach((l, i) => { arrays[this.idx.names[i] ?? `__index_level_${i}__`] = arrow(l); });
    for (const [n, c] of this.cols) arrays[n] = arrow(c);
    return tableFromArrays(arrays as Parameters<typeof tableFromArrays>[0]);
  }

  /** As pandas prints it (head and tail past 60 rows, then `[r rows x c columns]`). */
  toString(): string {
    const level = (c: LocalColumn, name: string | null): FormatColumn => ({ name: name ?? '', dtype: c.dtype, values: jsValues(c), ...(c.missing ? { missing: c.missing } : {}) });
    return formatFrame(
      [...this.cols.keys()].map((n) => level(this.cols.get(n)!, n)),
      this.idx.levels.map((l, i) => level(l, this.idx.names[i] ?? null)),
      this.idx.names.some((n) => n !== null),
    );
  }
}

declare module './series.js' {
  interface Series {
    /** The Series as a one-column frame over its labels (column `name`, else its own name, else '0'). */
    to_frame(name?: string): DataFrame;
    /** The Series here, as a one-column LocalFrame. */
    fetch(opts?: RunOptions): Promise<LocalFrame>;
  }
}
Series.prototype.to_frame = function (this: Series, name?: string): DataFrame {
  return new DataFrame(new Map([[name ?? this.name ?? '0', this.column]]), {}, this.labels);
};
Series.prototype.fetch = function (this: Series, opts: RunOptions = {}): Promise<LocalFrame> {
  return this.to_frame().fetch(opts);
};

/** Runs several frames or series as one graph. */
export async function execute(...xs: (DataFrame | Series)[]): Promise<void> {
  await mt.execute(...xs.flatMap((x) => (x instanceof DataFrame ? x.tensors() : [x.values])));
}
