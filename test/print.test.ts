// src/api/print.ts against NumPy 2 (test/fixtures/gen_print.py writes
// print_cases.json): repr, str and array2string with options, and repr/str
// under set_printoptions, compared character for character. Plus the NDArray
// hooks (toString, Node's inspect) and the async forms for a Tensor.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { NDArray } from '../src/api/convert.js';
import { ARRAY_CTOR, type DType } from '../src/graph/dtype.js';
import { halfBits } from '../src/graph/half.js';

afterAll(() => mt.shutdown());

interface Case {
  dtype: DType;
  shape: number[];
  data: (number | string | boolean)[];
  repr: string;
  str: string;
  printoptions?: Partial<mt.PrintOptions>;
  array2string: { options: mt.Array2StringOptions; out: string }[];
}

const { cases } = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'print_cases.json'), 'utf8')) as { cases: Case[] };

const SPECIAL: Record<string, number> = { nan: NaN, inf: Infinity, '-inf': -Infinity, '-0': -0 };

// Each float16 value in the fixture is exact, so its bits are halfBits of it (no rounding happens).
function build(c: Case): NDArray {
  const data = new ARRAY_CTOR[c.dtype](c.data.length);
  c.data.forEach((v, i) => {
    const x = typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? SPECIAL[v]! : v;
    (data as unknown as (number | bigint)[])[i] = c.dtype === 'int64' ? BigInt(v as string) : c.dtype === 'float16' ? halfBits(x) : x;
  });
  return new NDArray(c.shape, c.dtype, data);
}

const label = (c: Case) => `${c.dtype} ${JSON.stringify(c.shape)} ${c.data.slice(0, 4).join(',')}${c.printoptions ? ' ' + JSON.stringify(c.printoptions) : ''}`;

describe('NumPy fixtures', () => {
  afterEach(() => mt.set_printoptions({ precision: 8, threshold: 1000, edgeitems: 3, linewidth: 75, suppress: false, nanstr: 'nan', infstr: 'inf', sign: '-', floatmode: 'maxprec' }));

  it.each(cases.map((c) => [label(c), c] as const))('%s', (_, c) => {
    const a = build(c);
    if (c.printoptions) mt.set_printoptions(c.printoptions);
    expect(mt.array_repr(a)).toBe(c.repr);
    expect(mt.array_str(a)).toBe(c.str);
    expect(String(a)).toBe(c.str);
    for (const { options, out } of c.array2string) expect([options, mt.array2string(a, options)]).toEqual([options, out]);
  });
});

describe('NDArray and Tensor hooks', () => {
  it('console.log shows the repr; template strings the str', async () => {
    const x = await mt.tensor([1, 2.5]).fetch();
    expect(inspect(x)).toBe('array([1. , 2.5])');
    expect(`${x}`).toBe('[1.  2.5]');
  });

  it('takes a Tensor asynchronously', async () => {
    const t = mt.tensor([[1, 2], [3, 4]], { dtype: 'int32' });
    await expect(mt.array_repr(t)).resolves.toBe('array([[1, 2],\n       [3, 4]], dtype=int32)');
    await expect(mt.array_str(t)).resolves.toBe('[[1 2]\n [3 4]]');
    await expect(mt.array2string(t, { separator: ',' })).resolves.toBe('[[1,2],\n [3,4]]');
  });

  it('prints a float16 Tensor with float16 digits', async () => {
    const t = mt.tensor([0.1, 1 / 3, -2], { dtype: 'float16' });
    await expect(mt.array_repr(t)).resolves.toBe('array([ 0.1   ,  0.3333, -2.    ], dtype=float16)');
    await expect(mt.array_str(t)).resolves.toBe('[ 0.1     0.3333 -2.    ]');
  });

  it('get_printoptions returns a copy; bad options are refused', () => {
    const o = mt.get_printoptions();
    o.precision = 2;
    expect(mt.get_printoptions().precision).toBe(8);
    expect(() => mt.set_printoptions({ floatmode: 'bad' as mt.FloatMode })).toThrow(RangeError);
    expect(() => mt.set_printoptions({ precision: -1 })).toThrow(RangeError);
  });
});
