// numpy.fft, as far as it stays real: the sample frequencies (fftfreq,
// rfftfreq) and the shifts of the zero frequency to the centre and back
// (fftshift, ifftshift), in NumPy's formulas. The transforms themselves
// return complex arrays, which Tessera does not have: each raises a
// TypeError saying so (and is listed as such in COVERAGE.md), rather than
// being missing. In: lengths and spacings (JS numbers), tensors and axes.
// Out: lazy tensors.

import { type Refusal, unsupported } from './refuse.js';
import { roll } from './manipulate.js';
import { kwargs } from './bind.js';
import { type Operand, Tensor, arange, concatenate, multiply, tensor, toTensor, whenKnown } from './core.js';
import { repr } from '../graph/shape.js';

type Args = unknown[];

/** n as NumPy's fftfreq takes it: an integer (a bool is one), else NumPy's ValueError. */
function length(fn: string, n: unknown): number {
  if (typeof n === 'boolean') return Number(n);
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new RangeError(`${fn}(): n should be an integer, got ${repr(n)}`);
  return n;
}

/** 1 / (n d), refusing what NumPy's division refuses. */
function scale(fn: string, n: number, d: unknown): number {
  if (typeof d !== 'number') throw new TypeError(`${fn}(): d must be a number, got ${repr(d)}`);
  if (n * d === 0) throw new RangeError(`${fn}(): float division by zero (n * d is 0)`);
  return 1 / (n * d);
}

/**
 * fftfreq(n, d=1.0): the sample frequencies of an n-point FFT with sample
 * spacing d, [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n), float64.
 */
export function fftfreq(n: number, ...args: Args): Tensor {
  const o = kwargs<{ d?: number }>('fftfreq', args, ['d'], ['device']);
  const m = length('fftfreq', n);
  const val = scale('fftfreq', m, o.d ?? 1);
  const half = Math.floor((m - 1) / 2) + 1;
  const ks = concatenate([arange(0, half), arange(-Math.floor(m / 2), 0)]);
  return multiply(ks, tensor(val, { dtype: 'float64' })); // val is a Python float in NumPy: the product is float64 even where it is whole
}

/** rfftfreq(n, d=1.0): the non-negative sample frequencies of rfft, [0, 1, ..., n // 2] / (d n), float64. */
export function rfftfreq(n: number, ...args: Args): Tensor {
  const o = kwargs<{ d?: number }>('rfftfreq', args, ['d'], ['device']);
  const m = length('rfftfreq', n);
  const val = scale('rfftfreq', m, o.d ?? 1);
  return multiply(arange(0, Math.floor(m / 2) + 1), tensor(val, { dtype: 'float64' }));
}

/** fftshift / ifftshift: roll each axis (all of them by default) by half its length, forward or back. */
function shift(fn: string, x: Operand, args: Args, sign: 1 | -1): Tensor {
  const o = kwargs<{ axes?: number | readonly number[] | null }>(fn, args, ['axes']);
  const t = toTensor(x);
  const later = whenKnown(fn, [t], (u) => shift(fn, u, [{ axes: o.axes ?? null }], sign));
  if (later) return later;
  const axes = o.axes === undefined || o.axes === null ? t.shape.map((_, i) => i) : typeof o.axes === 'number' ? [o.axes] : [...o.axes];
  if (!axes.length) return t;
  const shifts = axes.map((a) => {
    const ax = a < 0 ? a + t.ndim : a;
    if (!Number.isInteger(a) || ax < 0 || ax >= t.ndim) throw new RangeError(`${fn}(): axis ${String(a)} is out of bounds for array of dimension ${t.ndim}`);
    return sign * Math.floor(t.shape[ax]! / 2);
  });
  return roll(t, shifts, { axis: axes });
}

/** fftshift(x, axes=None): the zero-frequency term moved to the centre. */
export const fftshift = (x: Operand, ...args: Args): Tensor => shift('fftshift', x, args, 1);
/** ifftshift(x, axes=None): fftshift undone (they differ for odd lengths). */
export const ifftshift = (x: Operand, ...args: Args): Tensor => shift('ifftshift', x, args, -1);

const COMPLEX = 'returns complex values, and Tessera has no complex dtypes';
const TRANSFORMS = ['fft', 'ifft', 'fft2', 'ifft2', 'fftn', 'ifftn', 'rfft', 'irfft', 'rfft2', 'irfft2', 'rfftn', 'irfftn', 'hfft', 'ihfft'] as const;

/** numpy.fft: the real helpers, and the transforms as clear refusals. */
export const fft = {
  fftfreq, rfftfreq, fftshift, ifftshift,
  ...(Object.fromEntries(TRANSFORMS.map((n) => [n, unsupported(`np.fft.${n}`, COMPLEX)])) as Record<(typeof TRANSFORMS)[number], Refusal>),
};
