// What the DataFrame tests share over their pandas 1.5 fixtures
// (test/fixtures/gen_*.py, encoded by pandas_lib.py): a fixture value back
// as a JS one, and a fixture frame (its columns' values and pandas' dtypes)
// as an md.DataFrame given as a user would give it.

import * as mt from '../src/api/tensor.js';
import * as md from '../src/dataframe/index.js';

/** A value as the fixtures hold it: floats' specials and -0 as strings, a missing value as null. */
export type V = number | boolean | string | null;

/** A fixture value as a JS value: 'nan', 'inf', '-inf' and '-0' to numbers. */
export const num = (v: V): V => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v === '-0' ? -0 : v);

/** A frame as the generators write it: columns of values, and pandas' dtype of each. */
export interface FixtureFrame { readonly data: Record<string, V[]>; readonly dtypes: Record<string, string> }

/**
 * The frame, as a user gives it: a float column as a Float64Array (JS has
 * no 1.0), an empty string or int64 column by its dtype (no values to infer
 * it from), others as JS values; over chunks of `chunkSize` rows if given.
 */
export function frameFrom({ data, dtypes }: FixtureFrame, chunkSize?: number): md.DataFrame {
  const opts = chunkSize ? { chunkSize } : {};
  const cols: Record<string, md.ColumnData> = {};
  for (const [k, vs] of Object.entries(data)) {
    if (dtypes[k] === 'float64') cols[k] = Float64Array.from(vs.map((v) => (v === null ? NaN : (num(v) as number))));
    else if (dtypes[k] === 'object' && vs.length === 0) cols[k] = new md.Series({ values: mt.tensor(new Int32Array(0), opts), dict: [] });
    else if (dtypes[k] === 'int64' && vs.length === 0) cols[k] = new BigInt64Array(0);
    else cols[k] = vs as md.ColumnData;
  }
  return new md.DataFrame(cols, opts);
}
