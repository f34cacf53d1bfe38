// The NumPy API coverage table (src/api/COVERAGE.md) is generated
// (scripts/coverage.mjs from test/fixtures/names.json): rendered here from
// the sources, it must equal the committed file, so the table cannot drift
// from the code. Also the refusals it counts: each raises a TypeError that
// says why, and the ndarray names added for it.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';
import { render } from '../scripts/coverage.mjs';

afterAll(() => mt.shutdown());

const names = JSON.parse(readFileSync(new URL('./fixtures/names.json', import.meta.url), 'utf8'));

describe('NumPy API coverage', () => {
  it('src/api/COVERAGE.md is the table the code gives (node scripts/coverage.mjs rewrites it)', () => {
    const committed = readFileSync(new URL('../src/api/COVERAGE.md', import.meta.url), 'utf8');
    expect(render(mt, names)).toBe(committed);
  });
  it('refused names raise a TypeError naming the reason', () => {
    expect(() => mt.fft.fft(mt.ones(4))).toThrow(new TypeError('np.fft.fft returns complex values, and Tessera has no complex dtypes'));
    expect(() => mt.fill_diagonal(mt.zeros([2, 2]), 1)).toThrow(/changes its array in place/);
    expect(() => mt.ones([2, 2]).resize()).toThrow(/use mt.resize\(x, new_shape\)/);
    expect(mt.fft.rfft2.refused).toBe('returns complex values, and Tessera has no complex dtypes');
  });
  it('ndarray: the class for instanceof, device and to_device', () => {
    const x = mt.arange(3);
    expect(x instanceof mt.ndarray).toBe(true);
    expect(x.device).toBe('cpu');
    expect(x.to_device('cpu')).toBe(x);
    expect(() => x.to_device('gpu')).toThrow('Device not understood. Only "cpu" is allowed, but received: gpu');
  });
});

describe('numpy.fft errors', () => {
  it('names a bad n, d or axis', () => {
    expect(() => mt.fft.fftfreq(2.5)).toThrow('fftfreq(): n should be an integer, got 2.5');
    expect(() => mt.fft.rfftfreq(0)).toThrow(/division by zero/);
    expect(() => mt.fft.fftfreq(4, '1' as unknown as number)).toThrow(/d must be a number/);
    expect(() => mt.fft.fftshift(mt.ones([2, 2]), { axes: 2 })).toThrow('fftshift(): axis 2 is out of bounds for array of dimension 2');
    expect(() => mt.fft.fftfreq(4, { d: 1, dx: 2 })).toThrow(/unexpected keyword argument 'dx'/);
  });
  it('fftshift and ifftshift undo each other, over a selection of run-time length too', async () => {
    const x = mt.arange(11).multiply(1.5);
    const sel = x.get(x.greater(3));
    const back = mt.fft.ifftshift(mt.fft.fftshift(sel));
    expect((await back.fetch()).toArray()).toEqual((await sel.fetch()).toArray());
    expect((await mt.fft.fftshift(sel).fetch()).toArray()).toEqual([10.5, 12, 13.5, 15, 4.5, 6, 7.5, 9]);
  });
});
