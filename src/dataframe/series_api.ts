// pandas 1.5's Series methods that build on a frame or on ./columns.ts:
// fillna, dropna, map, the `str` accessor, value_counts, unique, nunique,
// nlargest and nsmallest, quantile, agg and describe. They are attached to
// Series.prototype here, as ./frame.ts attaches to_frame, so that
// ./series.ts need not import the frame (an import cycle). Everything stays
// lazy; a string column's functions run once per dictionary entry.

import * as mt from '../api/tensor.js';
import { DataFrame } from './frame.js';
import {
  DESCRIBE, DESCRIBE_STRINGS, checkReduction, describeNumbers, describeStrings, fillColumn, isNumber, mapColumn, missingOf, namesLabels,
  nuniqueOf, quantileOf, reduceColumn, stringBools, stringNumbers, stringStrings, uniqueOf, valueCounts,
} from './columns.js';
import { type Column, Series, dtypeName } from './series.js';

/** value_counts' options (pandas' keywords). */
export interface ValueCountsOptions {
  readonly normalize?: boolean;
  readonly sort?: boolean;
  readonly ascending?: boolean;
  readonly dropna?: boolean;
}

/** Regular-expression characters: a pattern without them means the same with regex true or false. */
const REGEX_CHARS = /[.^$*+?()[\]{}|\\]/;

/**
 * pandas' `s.str`: string functions of a string (object) Series, each
 * computed once per dictionary entry. Boolean results are false where a
 * value is missing (pandas gives NaN there, an object Series); len() is
 * float64 with NaN there (pandas' int64 when no value is missing: the
 * dtype here is set before the rows are read).
 */
export class StringMethods {
  constructor(private readonly s: Series) {
    if (!s.column.dict) {
      throw new Error(`AttributeError: Can only use .str accessor with string values, not ${s.dtype}`);
    }
  }

  private bools(f: (x: string) => boolean): Series { return this.derive({ values: stringBools(this.s.column, f) }); }
  private derive(c: Column): Series { return new Series(c, this.s.name, this.s.labels); }

  /** Whether each value starts with `prefix`. */
  startswith(prefix: string): Series { return this.bools((x) => x.startsWith(prefix)); }
  /** Whether each value ends with `suffix`. */
  endswith(suffix: string): Series { return this.bools((x) => x.endsWith(suffix)); }
  /** Whether each value contains `pat` as plain text (regex false; a pattern that only a regular expression reads differently is refused). */
  contains(pat: string, opts: { regex?: boolean; case?: boolean } = {}): Series {
    if (opts.regex === true || (opts.regex === undefined && REGEX_CHARS.test(pat))) {
      const why = `regular expressions are not supported (pattern ${JSON.stringify(pat)})`;
      throw new Error(`Series.str.contains: ${why}; pass { regex: false } to match it as text`);
    }
    if (opts.case === false) { const p = pat.toLowerCase(); return this.bools((x) => x.toLowerCase().includes(p)); }
    return this.bools((x) => x.includes(pat));
  }
  /** Each value's length in code points, as Python counts them. */
  len(): Series { return this.derive({ values: stringNumbers(this.s.column, (x) => [...x].length) }); }
  /** Each value in lower case (values that become equal share one code). */
  lower(): Series { return this.derive(stringStrings(this.s.column, (x) => x.toLowerCase())); }
  /** Each value in upper case. */
  upper(): Series { return this.derive(stringStrings(this.s.column, (x) => x.toUpperCase())); }
  /** Each value without its leading and trailing whitespace. */
  strip(): Series { return this.derive(stringStrings(this.s.column, (x) => x.trim())); }
}

declare module './series.js' {
  interface Series {
    /** Missing values replaced by `value` (a value of another kind is refused, naming the dtypes). */
    fillna(value: number | string | boolean): Series;
    /** The values that are not missing, with their labels. */
    dropna(): Series;
    /**
     * Each value's entry in `mapping` (missing where it has none): numbers
     * to float64, strings to strings. A function maps a string Series, once
     * per dictionary entry, missing values left missing (pandas'
     * na_action='ignore'); over numbers it would run per row on the host: refused.
     */
    map(mapping: Readonly<Record<string, unknown>> | ReadonlyMap<unknown, unknown> | ((value: string) => unknown)): Series;
    /** String functions (a string Series only). */
    readonly str: StringMethods;
    /** Rows per distinct value: a Series named as this one, over the values (pandas 1.5). Ties keep the order of first appearance. */
    value_counts(opts?: ValueCountsOptions): Series;
    /** The distinct values in order of first appearance, missing included: a Series (pandas gives an ndarray). */
    unique(): Series;
    /** How many distinct values: a 0-d int64 tensor. */
    nunique(opts?: { dropna?: boolean }): mt.Tensor;
    /** The n largest values, largest first, with their labels (NaN left out; ties in row order, keep='first'). */
    nlargest(n?: number): Series;
    /** The n smallest values, smallest first, with their labels. */
    nsmallest(n?: number): Series;
    /** Quantile q (linear, NaN skipped): a 0-d float64 tensor; a list of q: a Series over them. */
    quantile(q?: number | readonly number[]): mt.Tensor | Series;
    /** A reduction by name (a 0-d tensor), or several: a Series over their names. */
    agg(f: string | readonly string[]): mt.Tensor | Series;
    /** count, mean, std, min, quartiles, max (a number Series); count, unique, top, freq (a string or bool Series). */
    describe(): Series;
  }
}

/** A Series over the frame's rows of its one column: this Series' rows after a frame operation. */
const fromFrame = (s: Series, f: DataFrame): Series => new Series(f.column(f.columns[0]!), s.name, f.labels);
const frameOf = (s: Series): DataFrame => s.to_frame('value');

Object.defineProperty(Series.prototype, 'str', { get(this: Series) { return new StringMethods(this); } });

Object.assign(Series.prototype, {
  fillna(this: Series, value: number | string | boolean): Series {
    return new Series(fillColumn(this.column, value, `Series.fillna (dtype ${this.dtype})`), this.name, this.labels);
  },
  dropna(this: Series): Series {
    if (!this.column.dict && !this.dtype.startsWith('float')) return this;
    return fromFrame(this, frameOf(this).get(new Series({ values: mt.logical_not(missingOf(this.column)) })));
  },
  map(
    this: Series, mapping: Readonly<Record<string, unknown>> | ReadonlyMap<unknown, unknown> | ((value: string) => unknown),
  ): Series {
    if (typeof mapping === 'function') {
      const dict = this.column.dict;
      if (!dict) throw new TypeError(`Series.map: a function of a ${this.dtype} Series runs per row on the host: use tensor operations`);
      const mapped = mapColumn(this.column, new Map(dict.map((s) => [s, mapping(s)])));
      // (missing strings stay as they were: None prints as None)
      const { missing: _nan, ...kept } = mapped;
      return new Series(mapped.dict && !this.column.missing ? kept : mapped, this.name, this.labels);
    }
    // (a JS object's keys are strings: numbers for a number Series)
    const key = (k: string): unknown => (this.column.dict ? k : Number(k));
    const m = mapping instanceof Map ? mapping : new Map(Object.entries(mapping).map(([k, v]) => [key(k), v]));
    return new Series(mapColumn(this.column, m), this.name, this.labels);
  },
  value_counts(this: Series, opts: ValueCountsOptions = {}): Series {
    const { keys, counts } = valueCounts(this.column, opts);
    return new Series({ values: counts }, this.name, { kind: 'index', names: [null], cols: [keys] });
  },
  unique(this: Series): Series { return new Series(uniqueOf(this.column), this.name); },
  nunique(this: Series, opts: { dropna?: boolean } = {}): mt.Tensor { return nuniqueOf(this.column, opts.dropna ?? true); },
  nlargest(this: Series, n = 5): Series { return extremes(this, n, true); },
  nsmallest(this: Series, n = 5): Series { return extremes(this, n, false); },
  quantile(this: Series, q: number | readonly number[] = 0.5): mt.Tensor | Series {
    const values = quantileOf(this.column, q, 'Series.quantile');
    if (typeof q === 'number') return values;
    const index = { values: mt.tensor(Float64Array.from(q)) };
    return new Series({ values }, this.name, { kind: 'index', names: [null], cols: [index] });
  },
  agg(this: Series, f: string | readonly string[]): mt.Tensor | Series {
    if (typeof f === 'string') return reduceColumn(this.column, checkReduction(f));
    const fs = f.map(checkReduction);
    return new Series({ values: mt.stack(fs.map((g) => reduceColumn(this.column, g))) }, this.name, namesLabels(fs));
  },
  describe(this: Series): Series {
    if (!isNumber(this.column)) return new Series(describeStrings(this.column), this.name, namesLabels(DESCRIBE_STRINGS));
    return new Series({ values: describeNumbers(this.column) }, this.name, namesLabels(DESCRIBE));
  },
});

/** nlargest / nsmallest: the values without NaN, in a stable order of the key, the first n. */
function extremes(s: Series, n: number, largest: boolean): Series {
  if (!isNumber(s.column)) {
    throw new TypeError(`Cannot use method '${largest ? 'nlargest' : 'nsmallest'}' with dtype ${dtypeName(s.column)}`);
  }
  const kept = s.values.dtype.startsWith('float') ? s.dropna() : s;
  const key = largest ? mt.negative(mt.astype(kept.values, 'float64')) : kept.values;
  const order = mt.argsort(key, { kind: 'stable' }).get(mt.slice(0, Math.max(0, n)));
  return fromFrame(s, frameOf(kept).take(order));
}
