// A Series: pandas' one-dimensional labelled column over a frame's row
// chunks. Its values are a 1-d Tensor, so column expressions fuse into the
// same kernels as tensor chains; strings are dictionary-encoded (int32 codes,
// -1 for a missing value, and the dictionary in first-seen order), so a
// comparison with a literal is a comparison of codes. The index is a
// RangeIndex (0..n) until rows are selected (then the labels of the rows
// kept, computed with them) or keys become it (a groupby's). JS data becomes
// a column here (`toColumn`, as pandas infers dtypes), for a Series and a
// frame alike; the methods built on a frame are ./series_api.ts's.

import * as mt from '../api/tensor.js';
import type { DType, TypedArray } from '../graph/dtype.js';
import * as G from '../graph/node.js';
import { type SortOptions, naPosition, permuteLabels, sortPermutation } from './sort.js';

/** A column's data: a 1-d tensor, or a string column's codes and dictionary. */
export interface Column {
  readonly values: mt.Tensor;
  /** A string column's dictionary (its values are int32 codes into it, -1 for missing). */
  readonly dict?: readonly string[];
  /** How its missing strings print: 'NaN' where pandas made them (a group key, read_csv), else None. */
  readonly missing?: 'NaN';
}

/**
 * Row labels: a RangeIndex of the frame's length, or an index of columns
 * (one level: the positions a selection kept, unnamed, or a named key; a
 * MultiIndex: several), each as long as the frame.
 */
export type Labels = { readonly kind: 'range' } | { readonly kind: 'index'; readonly names: readonly (string | null)[]; readonly cols: readonly Column[] };

/** The pandas name of a column's dtype ('object' for strings, as pandas 1.5 shows them). */
export function dtypeName(c: Column): string {
  return c.dict ? 'object' : c.values.dtype;
}

/** What a column may be given as: JS values, a typed array, a tensor or a Series. */
export type ColumnData = readonly (number | boolean | string | null | undefined)[] | TypedArray | mt.Tensor | Series;

/**
 * A column's values, as JS data, to a Column: numbers (int64 when all are
 * integers and none is missing, as pandas infers; JS has no 1.0, so a float
 * column of whole numbers is given as a Float64Array), booleans, strings
 * (dictionary-encoded; null or undefined is missing).
 */
export function toColumn(name: string, data: ColumnData, chunk: number | undefined): Column {
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

const NON_FINITE = 'Cannot convert non-finite values (NA or inf) to integer';

/** A string column's values as numbers of `dtype`, parsed once per dictionary entry as Python's float() and int() parse. */
function parsed(c: Column, dtype: string): Column {
  const ints = /^u?int/.test(dtype), bools = dtype === 'bool';
  const number = (s: string): number => {
    const t = s.trim().replace(/_(?=\d)/g, '');
    if (ints && /^[+-]?\d+$/.test(t)) return Number(t);
    if (!ints && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t)) return Number(t);
    if (!ints && /^[+-]?(nan|inf|infinity)$/i.test(t)) return t.toLowerCase().includes('nan') ? NaN : t.startsWith('-') ? -Infinity : Infinity;
    throw new Error(ints ? `ValueError: invalid literal for int() with base 10: '${s}'` : `ValueError: could not convert string to float: '${s}'`);
  };
  if (bools) {
    // Python's bool of a string: whether it is not empty
    const table = Uint8Array.from(c.dict!, (s) => (s.length ? 1 : 0));
    return { values: mt.logical_or(mt.less(c.values, 0), mt.astype(mt.take(mt.tensor(table), mt.maximum(c.values, 0)), 'bool')) };
  }
  const table = mt.tensor(Float64Array.from(c.dict!, number));
  const values = mt.take(table, mt.maximum(c.values, 0));
  if (ints) {
    // a missing value has no integer: pandas' error, when the run finds one
    const ok = new mt.Tensor(G.check(mt.logical_not(mt.any(mt.less(c.values, 0))).node, 'nonzero', 'ValueError', NON_FINITE));
    return { values: mt.astype(mt.where(ok, values, values), dtype) };
  }
  return { values: mt.astype(mt.where(mt.less(c.values, 0), NaN, values), dtype) };
}

const FLEX = ['add', 'sub', 'mul', 'div', 'truediv', 'floordiv', 'mod', 'pow'] as const;
const COMPARE = ['gt', 'ge', 'lt', 'le', 'eq', 'ne'] as const;
type Flex = (typeof FLEX)[number];
type Compare = (typeof COMPARE)[number];
/** pandas' flex method -> the tensor method it is. */
const TENSOR_OP: Record<Flex | Compare, string> = {
  add: 'add', sub: 'subtract', mul: 'multiply', div: 'divide', truediv: 'divide', floordiv: 'floor_divide', mod: 'mod', pow: 'power',
  gt: 'greater', ge: 'greater_equal', lt: 'less', le: 'less_equal', eq: 'equal', ne: 'not_equal',
};
/** Elementwise methods a Series takes from the tensor by the same name. */
const UFUNCS = ['abs', 'sqrt', 'exp', 'log', 'log1p', 'sin', 'cos', 'floor', 'ceil', 'negative', 'logical_not', 'isnan'] as const;

export type Other = Series | number | boolean | string;

/** What `new md.Series(data, opts)` takes besides the data (pandas' keywords). */
export interface SeriesOptions {
  readonly name?: string | null;
  /** The values cast to this dtype (pandas' dtype=). */
  readonly dtype?: DType | string;
  /** Row labels, one per value (an unnamed index); a RangeIndex otherwise. */
  readonly index?: ColumnData;
  /** Rows per chunk (the default chunking otherwise). */
  readonly chunkSize?: number;
}

/** A Column as the code passes it around (a values tensor, not a Tensor or a Series itself). */
const isColumn = (x: unknown): x is Column =>
  typeof x === 'object' && x !== null && !(x instanceof mt.Tensor) && !(x instanceof Series) && !ArrayBuffer.isView(x) && !Array.isArray(x)
  && (x as { values?: unknown }).values instanceof mt.Tensor;

export class Series {
  readonly column: Column;
  readonly name: string | null;
  readonly labels: Labels;

  /**
   * pandas' `pd.Series(data, name=, dtype=, index=)`: JS values, a typed
   * array, a tensor or a Series, with an options object; or the internal
   * form, a Column with a name and labels.
   */
  constructor(data: Column | ColumnData, name?: string | null | SeriesOptions, labels?: Labels) {
    if (isColumn(data)) {
      if (typeof name === 'object' && name !== null) throw new TypeError('Series: a Column takes a name and labels, not options');
      this.column = data;
      this.name = name ?? null;
      this.labels = labels ?? { kind: 'range' };
      return;
    }
    const o: SeriesOptions = typeof name === 'object' && name !== null ? name : { name: name ?? null };
    const fallback = data instanceof Series ? data.name : null;
    this.name = o.name ?? fallback;
    let column = toColumn(this.name ?? 'Series', data, o.chunkSize);
    if (o.dtype !== undefined && o.dtype !== dtypeName(column)) {
      if (column.dict) throw new TypeError(`Series: a string (object) Series cannot become ${o.dtype}`);
      column = { values: mt.astype(column.values, o.dtype) };
    }
    this.column = column;
    if (o.index !== undefined) {
      const index = toColumn('index', o.index, o.chunkSize ?? column.values.node.chunk[0]);
      if (index.values.shape[0] !== column.values.shape[0]) throw new RangeError(`Series: an index of ${index.values.shape[0]} labels for ${column.values.shape[0]} values`);
      this.labels = { kind: 'index', names: [null], cols: [index] };
    } else {
      this.labels = data instanceof Series && labels === undefined ? data.labels : labels ?? { kind: 'range' };
    }
  }

  /** The values as a tensor (a string column's codes). */
  get values(): mt.Tensor { return this.column.values; }
  get dtype(): string { return dtypeName(this.column); }
  /** The number of rows: NaN after a selection, until it runs. */
  get size(): number { return this.column.values.shape[0]!; }
  get length(): number { return this.size; }

  /** The same labels and name over other values. */
  private derive(values: mt.Tensor, dict?: readonly string[], name: string | null = this.name): Series {
    return new Series(dict ? { values, dict } : { values }, name, this.labels);
  }

  /** The operand `other` as a tensor against this Series, checked as pandas checks it. */
  private operand(other: Other, op: string): mt.Tensor | number | boolean {
    if (other instanceof Series) {
      if (this.column.dict || other.column.dict) throw new TypeError(`Series.${op}: strings compare only for equality with a string (got ${this.dtype} ${op} ${other.dtype})`);
      return other.values;
    }
    if (typeof other === 'string') throw new TypeError(`Series.${op}: cannot compare a ${this.dtype} Series with the string ${JSON.stringify(other)}`);
    if (this.column.dict) throw new TypeError(`Series.${op}: arithmetic on a string (object) Series is not supported`);
    return other;
  }

  /** pandas' flex methods (`add`, `gt`, ...), and what the operators would be: elementwise with a Series or a scalar. */
  binaryOp(op: Flex | Compare, other: Other): Series {
    if (this.column.dict && (op === 'eq' || op === 'ne') && !(other instanceof Series)) return this.strCompare(op, other);
    const b = this.operand(other, op);
    const f = (mt as unknown as Record<string, (a: mt.Operand, b: mt.Operand) => mt.Tensor>)[TENSOR_OP[op]]!;
    return this.derive(f(this.values, b));
  }

  /** An elementwise function of the tensor's by the same name (`abs`, `sqrt`, ...). */
  unaryOp(op: (typeof UFUNCS)[number]): Series {
    if (this.column.dict) throw new TypeError(`Series.${op}: a string (object) Series has no ${op}`);
    const f = (mt as unknown as Record<string, (a: mt.Operand) => mt.Tensor>)[op === 'abs' ? 'absolute' : op]!;
    return this.derive(f(this.values));
  }

  /** A string Series against a literal: the literal's code (-2, no code, when it is not in the dictionary: equal to nothing). */
  private codeOf(s: string): number {
    const i = this.column.dict!.indexOf(s);
    return i < 0 ? -2 : i;
  }

  /** eq / ne on strings compare codes: missing (-1) equals nothing, as NaN. */
  private strCompare(op: 'eq' | 'ne', other: Other): Series {
    if (typeof other !== 'string') throw new TypeError(`Series.${op}: a string (object) Series compares with a string, got ${typeof other}`);
    const code = this.codeOf(other);
    const eq = mt.equal(this.values, code);
    return this.derive(op === 'eq' ? eq : mt.logical_not(eq));
  }

  isna(): Series {
    if (this.column.dict) return this.derive(mt.equal(this.values, -1));
    return this.derive(this.values.dtype.startsWith('float') ? mt.isnan(this.values) : mt.zeros_like(this.values, { dtype: 'bool' }));
  }
  notna(): Series { return this.derive(mt.logical_not(this.isna().values)); }
  isnull(): Series { return this.isna(); }
  notnull(): Series { return this.notna(); }

  /** Whether each value lies in [left, right] (pandas' inclusive='both'). */
  between(left: number, right: number): Series {
    return this.derive(mt.logical_and(this.ge(left).values, this.le(right).values));
  }

  /** Whether each value is one of `values`. */
  isin(values: readonly (number | string | boolean)[]): Series {
    if (this.column.dict) {
      const codes = values.filter((v): v is string => typeof v === 'string').map((v) => this.codeOf(v)).filter((c) => c >= 0);
      return this.derive(codes.length ? mt.isin(this.values, mt.tensor(codes, 'int32')) : mt.zeros_like(this.values, { dtype: 'bool' }));
    }
    const nums = values.filter((v): v is number | boolean => typeof v !== 'string').map(Number);
    return this.derive(nums.length ? mt.isin(this.values, mt.tensor(nums)) : mt.zeros_like(this.values, { dtype: 'bool' }));
  }

  logical_and(other: Series): Series { return this.derive(mt.logical_and(this.values, other.values)); }
  logical_or(other: Series): Series { return this.derive(mt.logical_or(this.values, other.values)); }
  /**
   * The values cast to `dtype`. Strings become numbers as Python parses
   * them, once per dictionary entry (an entry that does not parse is
   * pandas' ValueError, even where no row holds it any more); 'object' or
   * 'str' keeps a string Series. Numbers do not become strings here.
   */
  astype(dtype: DType | string): Series {
    const text = dtype === 'object' || dtype === 'str';
    if (this.column.dict) return text ? this : new Series(parsed(this.column, dtype), this.name, this.labels);
    if (text) throw new TypeError(`Series.astype: ${this.dtype} to ${dtype} (numbers as strings) is not supported`);
    return this.derive(mt.astype(this.values, dtype));
  }
  rename(name: string): Series { return new Series(this.column, name, this.labels); }

  /** pandas' sort_values: the values in order (stably; missing ones per na_position), with their labels. */
  sort_values(opts: Pick<SortOptions, 'na_position' | 'kind'> & { ascending?: boolean } = {}): Series {
    if (opts.ascending !== undefined && typeof opts.ascending !== 'boolean') throw new TypeError(`Series.sort_values: ascending takes a boolean, got ${JSON.stringify(opts.ascending)}`);
    const perm = sortPermutation([this.column], [opts.ascending ?? true], naPosition(opts.na_position));
    return new Series({ ...this.column, values: mt.take(this.values, perm) }, this.name, permuteLabels(this.labels, perm));
  }

  // reductions: lazy 0-d tensors (`await s.sum().item()`), NaN skipped as pandas skips it
  private numeric(op: string): mt.Tensor {
    if (this.column.dict) throw new TypeError(`Series.${op}: a string (object) Series has no ${op} here`);
    return this.values;
  }
  private floats(): boolean { return this.values.dtype.startsWith('float'); }
  sum(): mt.Tensor { const v = this.numeric('sum'); return this.floats() ? mt.nansum(v) : mt.sum(v); }
  mean(): mt.Tensor { const v = this.numeric('mean'); return this.floats() ? mt.nanmean(v) : mt.mean(v); }
  min(): mt.Tensor { const v = this.numeric('min'); return this.floats() ? mt.nanmin(v) : mt.min(v); }
  max(): mt.Tensor { const v = this.numeric('max'); return this.floats() ? mt.nanmax(v) : mt.max(v); }
  /** pandas' std and var: ddof 1. */
  std(): mt.Tensor { const v = this.numeric('std'); return this.floats() ? mt.nanstd(v, { ddof: 1 }) : mt.std(v, { ddof: 1 }); }
  var(): mt.Tensor { const v = this.numeric('var'); return this.floats() ? mt.nanvar(v, { ddof: 1 }) : mt.var(v, { ddof: 1 }); }
  median(): mt.Tensor { const v = this.numeric('median'); return this.floats() ? mt.nanmedian(v) : mt.median(v); }
  /** Values that are not missing. */
  count(): mt.Tensor { return mt.sum(this.notna().values); }
  any(): mt.Tensor { return mt.any(this.numeric('any')); }
  all(): mt.Tensor { return mt.all(this.numeric('all')); }
}

export interface Series extends Record<Flex | Compare, (other: Other) => Series> {}
export interface Series extends Record<(typeof UFUNCS)[number], () => Series> {}

for (const op of [...FLEX, ...COMPARE]) {
  Object.defineProperty(Series.prototype, op, { value(this: Series, other: Other) { return this.binaryOp(op, other); } });
}
for (const op of UFUNCS) {
  Object.defineProperty(Series.prototype, op, { value(this: Series) { return this.unaryOp(op); } });
}
