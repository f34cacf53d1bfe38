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
import { formatFrame } from './format.js';

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

  private column(name: string): Column {
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
    const n = m.shape[0]!;
    const positions = this.labels.kind === 'range' ? mt.arange(n, { dtype: 'int64', chunkSize: m.node.chunk[0]! }) : this.labels.values;
    return new DataFrame(cols, {}, { kind: 'labels', values: positions.get(m) });
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
    const len = this.shape[0];
    const labels: Labels = this.labels.kind === 'labels' ? { kind: 'labels', values: this.labels.values.get(s) }
      : start === 0 ? { kind: 'range' } : { kind: 'labels', values: mt.arange(len, { dtype: 'int64' }).get(s) };
    return new DataFrame(cols, {}, labels);
  }

  /** Runs every column (and the labels) as one graph; resolves to this frame. */
  async execute(opts: RunOptions = {}): Promise<DataFrame> {
    await mt.executeWith(opts, ...this.tensors());
    return this;
  }

  /** Every column's tensor and the labels' (what an execution of the frame computes). */
  tensors(): mt.Tensor[] {
    return [...[...this.cols.values()].map((c) => c.values), ...(this.labels.kind === 'labels' ? [this.labels.values] : [])];
  }

  /** The frame here, as a LocalFrame. */
  async fetch(opts: RunOptions = {}): Promise<LocalFrame> {
    await this.execute(opts);
    const columns = new Map<string, LocalColumn>();
    for (const [n, c] of this.cols) {
      const a = await c.values.fetch();
      columns.set(n, { dtype: dtypeName(c), values: a.data as TypedArray, ...(c.dict ? { dict: c.dict } : {}) });
    }
    const len = this.shape[0] || (columns.values().next().value?.values.length ?? 0);
    const index = this.labels.kind === 'labels' ? Array.from((await this.labels.values.fetch()).data as BigInt64Array, Number) : Array.from({ length: len }, (_, i) => i);
    return new LocalFrame(columns, index);
  }
}

interface LocalColumn { readonly dtype: string; readonly values: TypedArray; readonly dict?: readonly string[] }

/** A frame's values here: pandas' print, its columns as JS values, and Arrow. */
export class LocalFrame {
  constructor(private readonly cols: ReadonlyMap<string, LocalColumn>, readonly index: readonly number[]) {}

  get columns(): string[] { return [...this.cols.keys()]; }
  get shape(): [number, number] { return [this.index.length, this.cols.size]; }
  get dtypes(): Record<string, string> { return Object.fromEntries([...this.cols].map(([n, c]) => [n, c.dtype])); }

  /** A column's values as JS values: numbers (bigints for int64), booleans, strings (null where missing). */
  get(name: string): (number | bigint | boolean | string | null)[] {
    const c = this.cols.get(name);
    if (!c) throw new Error(`KeyError: ${JSON.stringify(name)}: no such column (the columns are ${this.columns.map((n) => JSON.stringify(n)).join(', ')})`);
    if (c.dict) return Array.from(c.values as Int32Array, (k) => (k < 0 ? null : c.dict![k]!));
    if (c.dtype === 'bool') return Array.from(c.values as Uint8Array, (v) => v !== 0);
    return Array.from(c.values as ArrayLike<number | bigint>);
  }

  /** An Arrow table of the columns (strings as Arrow strings, null where missing; the index, when not 0, 1, 2, ..., first as `__index_level_0__`, pyarrow's name). */
  toArrow(): Table {
    const ranged = this.index.every((v, i) => v === i);
    const arrays: Record<string, unknown> = ranged ? {} : { __index_level_0__: BigInt64Array.from(this.index, BigInt) };
    for (const [n, c] of this.cols) arrays[n] = c.dict ? this.get(n) : c.dtype === 'bool' ? this.get(n) : c.values;
    return tableFromArrays(arrays as Parameters<typeof tableFromArrays>[0]);
  }

  /** As pandas prints it (head and tail past 60 rows, then `[r rows x c columns]`). */
  toString(): string {
    return formatFrame([...this.cols.keys()].map((n) => ({ name: n, dtype: this.cols.get(n)!.dtype, values: this.get(n) })), this.index);
  }
}

/** Runs several frames or series as one graph. */
export async function execute(...xs: (DataFrame | Series)[]): Promise<void> {
  await mt.execute(...xs.flatMap((x) => (x instanceof DataFrame ? x.tensors() : [x.values])));
}
