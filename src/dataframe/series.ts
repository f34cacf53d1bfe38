// A Series: pandas' one-dimensional labelled column over a frame's row
// chunks. Its values are a 1-d Tensor, so column expressions fuse into the
// same kernels as tensor chains; strings are dictionary-encoded (int32 codes,
// -1 for a missing value, and the dictionary in first-seen order), so a
// comparison with a literal is a comparison of codes. The index is a
// RangeIndex (0..n) until rows are selected (then the labels of the rows
// kept, computed with them) or keys become it (a groupby's).

import * as mt from '../api/tensor.js';
import type { DType } from '../graph/dtype.js';
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

export class Series {
  constructor(readonly column: Column, readonly name: string | null = null, readonly labels: Labels = { kind: 'range' }) {}

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
  astype(dtype: DType | string): Series {
    if (this.column.dict) throw new TypeError(`Series.astype: a string (object) Series cannot become ${dtype} yet`);
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
