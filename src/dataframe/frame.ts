// A DataFrame: named columns over one row chunking, each a Series (a 1-d
// Tensor, or a string column's codes and dictionary), and the row labels.
// It is lazy as tensors are: `await df.execute()` runs every column as one
// graph (on the local pool or a mesh session), `await df.fetch()` gives a
// LocalFrame that prints as pandas prints it and converts to Arrow. A row
// selection (`df.get(mask)`) compacts every column and the labels with the
// chunked selection of the tensor API: nothing is gathered whole.

import { type Table, tableFromArrays } from 'apache-arrow';
import * as mt from '../api/tensor.js';
import type { RunOptions } from '../runtime/runtime.js';
import type { TypedArray } from '../graph/dtype.js';
import { type Column, type Labels, Series, dtypeName } from './series.js';
import { GroupBy, type GroupByOptions } from './groupby.js';
import { type FormatColumn, formatFrame } from './format.js';
import { type NaPosition, type SortOptions, directions, indexPermutation, naPosition, permuteLabels, sortPermutation } from './sort.js';
import { type JoinOptions, type MergeOptions, howOf, joinFrames, mergeFrames, mergeKeys } from './merge.js';

/** What a column may be given as: JS values, a typed array, a tensor or a Series. */
export type ColumnData = readonly (number | boolean | string | null | undefined)[] | TypedArray | mt.Tensor | Series;

export interface FrameOptions {
  /** Rows per chunk (the default chunking of a column's length otherwise). */
  readonly chunkSize?: number;
}

/**
 * A column's values, as JS data, to a Column: numbers (int64 when all are
 * integers and none is missing, as pandas infers; JS has no 1.0, so a float
 * column of whole numbers is given as a Float64Array), booleans, strings
 * (dictionary-encoded; null or undefined is missing).
 */
function toColumn(name: string, data: ColumnData, chunk: number | undefined): Column {
  const opts = chunk ? { chunkSize: chunk } : {};
  if (data instanceof Series) return data.column;
  if (data instanceof mt.Tensor) {
    if (data.ndim !== 1) throw new RangeError(`DataFrame: column ${JSON.stringify(name)} must be 1-dimensional, got a tensor of shape [${data.shape}]`);
    return { values: data };
  }
  if (ArrayBuffer.isView(data)) return { values: mt.tensor(data as TypedArray, opts) };
  const arr = data as readonly (number | boolean | string | null | undefined)[];
  const kinds = new Set(arr.filter((v) => v !== null && v !== undefined).map((v) => typeof v));
  if (kinds.size > 1) throw new TypeError(`DataFrame: column ${JSON.stringify(name)} mixes ${[...kinds].join(' and ')} values`);
  const kind = [...kinds][0] ?? 'number';
  if (kind === 'string') {
    const dict: string[] = [];
    const at = new Map<string, number>();
    const codes = Int32Array.from(arr, (v) => {
      if (v === null || v === undefined) return -1;
      let c = at.get(v as string);
      if (c === undefined) { c = dict.length; dict.push(v as string); at.set(v as string, c); }
      return c;
    });
    return { values: mt.tensor(codes, opts), dict };
  }
  if (kind === 'boolean') {
    if (arr.some((v) => v === null || v === undefined)) throw new TypeError(`DataFrame: column ${JSON.stringify(name)}: booleans with missing values (pandas' object column) are not supported yet`);
    return { values: mt.tensor(Uint8Array.from(arr, (v) => (v ? 1 : 0)), 'bool', opts) };
  }
  if (kind !== 'number') throw new TypeError(`DataFrame: column ${JSON.stringify(name)} holds ${kind} values`);
  const missing = arr.some((v) => v === null || v === undefined);
  const ints = !missing && arr.every((v) => Number.isInteger(v));
  if (ints) return { values: mt.tensor(BigInt64Array.from(arr, (v) => BigInt(v as number)), opts) };
  return { values: mt.tensor(Float64Array.from(arr, (v) => (v === null || v === undefined ? NaN : (v as number))), opts) };
}

export class DataFrame {
  private readonly cols: ReadonlyMap<string, Column>;

  constructor(data: Readonly<Record<string, ColumnData>> | ReadonlyMap<string, Column>, opts: FrameOptions = {}, readonly labels: Labels = { kind: 'range' }) {
    if (data instanceof Map) {
      this.cols = data;
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
    if (key instanceof Series) return this.where(key);
    if (Array.isArray(key)) return new DataFrame(new Map(key.map((n) => [n, this.column(n)])), {}, this.labels);
    throw new TypeError(`DataFrame.get: a column name, a list of names or a boolean Series, got ${typeof key}`);
  }

  /** The rows where boolean Series `mask` holds, with their labels. */
  private where(mask: Series): DataFrame {
    if (mask.dtype !== 'bool') throw new TypeError(`DataFrame.get: a row selection takes a boolean Series, got ${mask.dtype}`);
    const m = mask.values;
    const cols = new Map([...this.cols].map(([n, c]) => [n, { ...c, values: c.values.get(m) }]));
    return new DataFrame(cols, {}, mapLabels(this.labels, m.shape[0]!, m.node.chunk[0]!, (t) => t.get(m)));
  }

  /** pandas' groupby: the rows grouped by the values of `by` (a column or several), to aggregate. */
  groupby(by: string | readonly string[], opts: GroupByOptions = {}): GroupBy<DataFrame> {
    const src = { cols: this.cols, frame: (cols: Map<string, Column>, labels: Labels) => new DataFrame(cols, {}, labels) };
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
