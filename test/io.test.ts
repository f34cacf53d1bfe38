// src/api/io.ts against NumPy: files written by NumPy (test/fixtures/gen_io.py
// → test/fixtures/io/) read with mt.load/loadtxt and compared exactly; files
// written by Tessera compared byte for byte with np.save's and loaded back by
// NumPy itself (python3 -c ..., skipped with a message only where python3
// with NumPy is absent); savetxt's text against np.savetxt's; errors.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

const FIX = join(__dirname, 'fixtures', 'io');
const E = JSON.parse(readFileSync(join(FIX, 'expected.json'), 'utf8'));
const TMP = mkdtempSync(join(tmpdir(), 'tessera-io-'));
afterAll(async () => { rmSync(TMP, { recursive: true, force: true }); await mt.shutdown(); });

type Enc = number | string | boolean;
interface Described { shape: number[]; dtype: string; values: Enc[] }

/** Values as gen_io.py's enc() writes them: 'nan', 'inf', '-inf', '-0', big integers as strings. */
function enc(v: number | bigint, dtype: string): Enc {
  if (dtype === 'bool') return v !== 0;
  if (typeof v === 'bigint') return v > 2n ** 53n || v < -(2n ** 53n) ? v.toString() : Number(v);
  if (Number.isNaN(v)) return 'nan';
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Object.is(v, -0)) return '-0';
  return v;
}
async function describe_(t: mt.Tensor): Promise<Described> {
  const a = await t.fetch();
  return { shape: [...a.shape], dtype: a.dtype, values: Array.from(a.data as ArrayLike<number | bigint>, (v) => enc(v, a.dtype)) };
}
/** A tensor from gen_io.py's description. */
function build(d: { values: Enc[]; dtype: string; shape: number[] }): mt.Tensor {
  const dec = (v: Enc): number | bigint | boolean =>
    d.dtype === 'int64' ? BigInt(v as number | string) : v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v === '-0' ? -0 : (v as number | boolean);
  const flat = d.dtype === 'int64' ? BigInt64Array.from(d.values, (v) => dec(v) as bigint) : d.values.map(dec);
  return mt.reshape(mt.tensor(flat as number[], { dtype: d.dtype }), d.shape);
}
const npyOf = async (p: string): Promise<mt.Tensor> => (await mt.load(p)) as mt.Tensor;

describe('np.save files read by mt.load', () => {
  for (const [name, want] of Object.entries(E.npy as Record<string, Described>)) {
    it(name, async () => {
      const t = await npyOf(join(FIX, name));
      expect(t.shape).toEqual(want.shape);
      expect(await describe_(t)).toEqual(want);
    });
  }
  it('covers both byte orders, Fortran order, 0-d, empty, and format versions 2.0 and 3.0', () => {
    const head = (f: string) => readFileSync(join(FIX, f)).subarray(0, 80).toString('latin1');
    expect(head('i4_be.npy')).toContain("'descr': '>i4'");
    expect(head('fortran.npy')).toContain("'fortran_order': True");
    expect(head('scalar.npy')).toContain("'shape': ()");
    expect(head('empty.npy')).toContain("'shape': (0, 3)");
    expect([...readFileSync(join(FIX, 'v2.npy')).subarray(6, 8)]).toEqual([2, 0]);
    expect([...readFileSync(join(FIX, 'v3.npy')).subarray(6, 8)]).toEqual([3, 0]);
  });
  for (const [name, dtype] of Object.entries(E.errors as Record<string, string>)) {
    it(`refuses ${name} (${dtype}) naming the dtype`, async () => {
      const err = await mt.load(join(FIX, name), { allow_pickle: true }).then(() => undefined, (e: Error) => e);
      expect(err).toBeInstanceOf(TypeError);
      const key = name === 'str.npy' ? '<U3' : name === 'structured.npy' ? 'structured' : dtype;
      expect(err!.message).toContain(key);
    });
  }
  it('refuses object arrays without allow_pickle with NumPy\'s message', async () => {
    await expect(mt.load(join(FIX, 'object.npy'))).rejects.toThrow('Object arrays cannot be loaded when allow_pickle=False');
  });
});

describe('np.savez files read by mt.load', () => {
  for (const [name, members] of Object.entries(E.npz as Record<string, Record<string, Described>>)) {
    it(name, async () => {
      const z = await mt.load(join(FIX, name));
      expect(z).toBeInstanceOf(mt.NpzFile);
      const npz = z as mt.NpzFile;
      expect(npz.files).toEqual(Object.keys(members));
      for (const [k, want] of Object.entries(members)) {
        expect(await describe_(npz.get(k))).toEqual(want);
        expect(npz.get(`${k}.npy`)).toBe(npz.get(k));
      }
      expect(Object.keys(npz.toObject())).toEqual(npz.files);
      expect([...npz].map(([k]) => k)).toEqual(npz.files);
      expect(() => npz.get('missing')).toThrow('missing is not a file in the archive');
    });
  }
});

describe('mt.save writes np.save\'s bytes', () => {
  for (const c of E.save_bytes as { file: string; values: Enc[]; dtype: string; shape: number[] }[]) {
    it(`${c.dtype} ${JSON.stringify(c.shape)}`, async () => {
      const out = join(TMP, c.file);
      await mt.save(out, build(c));
      expect(readFileSync(out).equals(readFileSync(join(FIX, c.file)))).toBe(true);
    });
  }
  it('adds .npy to a path without it, writes C order for a transposed tensor, and round-trips', async () => {
    const x = mt.transpose(mt.reshape(mt.arange(6, { dtype: 'int16' }), [2, 3]));
    await mt.save(join(TMP, 'tr'), x);
    const back = await npyOf(join(TMP, 'tr.npy'));
    expect(back.shape).toEqual([3, 2]);
    expect(Array.from((await back.fetch()).data as Int16Array)).toEqual([0, 3, 1, 4, 2, 5]);
  });
  it('writes to a sink with write(bytes)', async () => {
    const chunks: Uint8Array[] = [];
    await mt.save({ write: (b: Uint8Array) => { chunks.push(b); } }, mt.tensor([1, 2], 'float64'));
    expect(Buffer.concat(chunks).subarray(0, 6).toString('latin1')).toBe('\x93NUMPY');
    const t = (await mt.load(Buffer.concat(chunks))) as mt.Tensor;
    expect(Array.from((await t.fetch()).data as Float64Array)).toEqual([1, 2]);
  });
});

describe('sources', () => {
  const bytes = readFileSync(join(FIX, 'i4_be.npy'));
  const want = E.npy['i4_be.npy'] as Described;
  it('reads a Uint8Array, an ArrayBuffer, a Blob, a Response and a file: URL alike', async () => {
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    for (const src of [new Uint8Array(bytes), ab, new Blob([bytes]), new Response(bytes), pathToFileURL(join(FIX, 'i4_be.npy')), pathToFileURL(join(FIX, 'i4_be.npy')).href]) {
      expect(await describe_((await mt.load(src as mt.Source)) as mt.Tensor)).toEqual(want);
    }
  });
});

describe('errors name the problem', () => {
  const good = readFileSync(join(FIX, 'f8.npy'));
  const load = (b: Uint8Array) => mt.load(b);
  it('bad magic', async () => {
    await expect(load(new TextEncoder().encode('hello world, not numpy'))).rejects.toThrow(/not a \.npy or \.npz file: bad magic string/);
  });
  it('truncated data', async () => {
    await expect(load(good.subarray(0, good.length - 3))).rejects.toThrow(/truncated \.npy data: shape \(3, 4\) of '<f8' needs 96 bytes, the file has 93/);
  });
  it('truncated header', async () => {
    await expect(load(good.subarray(0, 40))).rejects.toThrow(/truncated \.npy header/);
    await expect(load(good.subarray(0, 8))).rejects.toThrow(/truncated \.npy header/);
  });
  it('unknown version, unknown dtype, a damaged header', async () => {
    const v9 = new Uint8Array(good); v9[6] = 9;
    await expect(load(v9)).rejects.toThrow('we only support format version (1,0), (2,0), and (3,0), not (9, 0)');
    const text = (s: string) => { const b = new Uint8Array(good); b.set(new TextEncoder().encode(s), 10); return b; };
    await expect(load(text("{'descr': '<q9'"))).rejects.toThrow(/dtype '<q9' is not supported/);
    await expect(load(text("{'descr': '<f8', 'fortran_order': Fxlse"))).rejects.toThrow(/cannot parse \.npy header/);
  });
  it('a header longer than max_header_size', async () => {
    await expect(mt.load(good, { max_header_size: 50 })).rejects.toThrow(/Header info length \(118\) is large/);
    expect((await mt.load(good, { max_header_size: 50, allow_pickle: true }) as mt.Tensor).shape).toEqual([3, 4]);
  });
  it('a damaged .npz', async () => {
    const z = readFileSync(join(FIX, 'plain.npz'));
    await expect(mt.load(z.subarray(0, 60))).rejects.toThrow(/not a valid \.npz archive/);
  });
  it('mmap_mode', async () => {
    expect(((await mt.load(good, { mmap_mode: 'r' })) as mt.Tensor).shape).toEqual([3, 4]);
    await expect(mt.load(good, { mmap_mode: 'r+' })).rejects.toThrow(/writes back to the file/);
    await expect(mt.load(good, { mmap_mode: 'x' as 'r' })).rejects.toThrow(/mode must be one of/);
  });
});

describe('frombuffer, fromfile, tofile', () => {
  it('frombuffer with byte order, count and offset', async () => {
    const b = readFileSync(join(FIX, 'i4_be.npy'));
    const off = b.length - 48;
    expect(await describe_(mt.frombuffer(b, '>i4', { offset: off }))).toEqual({ shape: [12], dtype: 'int32', values: [-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8] });
    expect(await describe_(mt.frombuffer(b, '>i4', 2, off + 4))).toEqual({ shape: [2], dtype: 'int32', values: [-2, -1] });
    expect(await describe_(mt.frombuffer(new Float32Array([1.5, -2]), 'float32'))).toEqual({ shape: [2], dtype: 'float32', values: [1.5, -2] });
    expect(await describe_(mt.frombuffer(new Uint8Array([0, 0x3c, 0, 0xc0]), 'f2'))).toEqual({ shape: [2], dtype: 'float16', values: [1, -2] });
    expect((await mt.frombuffer(new Uint8Array(0), 'int8').fetch()).shape).toEqual([0]);
  });
  it('frombuffer errors are NumPy\'s', () => {
    const b = new Uint8Array(10);
    expect(() => mt.frombuffer(b, 'float64')).toThrow('buffer size must be a multiple of element size');
    expect(() => mt.frombuffer(b, 'int32', 3)).toThrow('buffer is smaller than requested size');
    expect(() => mt.frombuffer(b, 'int8', { offset: 11 })).toThrow('offset must be non-negative and no greater than buffer length (10)');
    expect(() => mt.frombuffer(b, 'c16')).toThrow(/'c16' \(complex128\) is not supported/);
  });
  it('tofile and fromfile, binary and text', async () => {
    const x = mt.tensor([[1.5, -2], [3, 4.25]], 'float32');
    await mt.tofile(x, join(TMP, 'x.bin'));
    expect(readFileSync(join(TMP, 'x.bin')).length).toBe(16);
    expect(await describe_(await mt.fromfile(join(TMP, 'x.bin'), 'float32'))).toEqual({ shape: [4], dtype: 'float32', values: [1.5, -2, 3, 4.25] });
    expect(await describe_(await mt.fromfile(join(TMP, 'x.bin'), 'float32', { count: 1, offset: 4 }))).toEqual({ shape: [1], dtype: 'float32', values: [-2] });
    await mt.tofile(x, join(TMP, 'x.txt'), ', ', '%.2f');
    expect(readFileSync(join(TMP, 'x.txt'), 'utf8')).toBe('1.50, -2.00, 3.00, 4.25');
    expect(await describe_(await mt.fromfile(join(TMP, 'x.txt'), 'float64', { sep: ',' }))).toEqual({ shape: [4], dtype: 'float64', values: [1.5, -2, 3, 4.25] });
  });
});

describe('loadtxt against np.loadtxt', () => {
  for (const c of E.loadtxt as (Described & { file: string; opts: Record<string, unknown> })[]) {
    it(`${c.file} ${JSON.stringify(c.opts)}`, async () => {
      const t = await mt.loadtxt(join(FIX, c.file), c.opts as mt.LoadtxtOpts);
      expect(await describe_(t)).toEqual({ shape: c.shape, dtype: c.dtype, values: c.values });
    });
  }
  it('empty input, ndmin, lines given as strings, gzip', async () => {
    expect((await mt.loadtxt(['# nothing'])).shape).toEqual([0]);
    expect((await mt.loadtxt(['# nothing'], { ndmin: 2 })).shape).toEqual([0, 1]);
    expect((await mt.loadtxt(['# nothing'], { usecols: [0, 1] })).shape).toEqual([0, 2]);
    expect((await mt.loadtxt(['5'])).shape).toEqual([]);
    expect((await mt.loadtxt(['1', '2'], { ndmin: 2 })).shape).toEqual([2, 1]);
    expect((await mt.loadtxt(['1 2 3'], { ndmin: 2 })).shape).toEqual([1, 3]);
    await mt.savetxt(join(TMP, 'g.txt.gz'), mt.tensor([[1, 2], [3, 4]], 'float64'));
    expect(readFileSync(join(TMP, 'g.txt.gz'))[0]).toBe(0x1f);
    expect(await describe_(await mt.loadtxt(join(TMP, 'g.txt.gz')))).toEqual({ shape: [2, 2], dtype: 'float64', values: [1, 2, 3, 4] });
  });
  it('NumPy\'s errors', async () => {
    await expect(mt.loadtxt(['# c', '1 2', '', '3 x'])).rejects.toThrow("could not convert string 'x' to float64 at row 1, column 2.");
    await expect(mt.loadtxt(['1,,3'], { delimiter: ',' })).rejects.toThrow("could not convert string '' to float64 at row 0, column 2.");
    await expect(mt.loadtxt(['1.5 2'], { dtype: 'int64' })).rejects.toThrow("could not convert string '1.5' to int64 at row 0, column 1.");
    await expect(mt.loadtxt(['1 2', '# c', '', '3 4 5'])).rejects.toThrow('the number of columns changed from 2 to 3 at row 2; use `usecols` to select a subset and avoid this error');
    await expect(mt.loadtxt(['1 2', '3 4'], { usecols: 5 })).rejects.toThrow('invalid column index 5 at row 1 with 2 columns');
    await expect(mt.loadtxt(['1 0x10'])).rejects.toThrow("could not convert string '0x10' to float64 at row 0, column 2.");
  });
});

describe('savetxt against np.savetxt', () => {
  for (const c of E.savetxt as { array: Described; opts: mt.SavetxtOpts; text: string }[]) {
    it(`${c.array.dtype} ${JSON.stringify(c.opts)}`, async () => {
      const out = join(TMP, 'st.txt');
      await mt.savetxt(out, build(c.array), c.opts);
      expect(readFileSync(out, 'utf8')).toBe(c.text);
    });
  }
  it('NumPy\'s errors', async () => {
    const x = mt.tensor([[1, 2]], 'float64');
    await expect(mt.savetxt(join(TMP, 'e.txt'), mt.tensor(1, 'float64'))).rejects.toThrow('Expected 1D or 2D array, got 0D array instead');
    await expect(mt.savetxt(join(TMP, 'e.txt'), x, { fmt: '%d %d %d' })).rejects.toThrow('fmt has wrong number of % formats:  %d %d %d');
    await expect(mt.savetxt(join(TMP, 'e.txt'), x, { fmt: ['%d'] })).rejects.toThrow(/fmt has wrong shape/);
    await expect(mt.savetxt(join(TMP, 'e.txt'), x, { fmt: '%x' })).rejects.toThrow(/Mismatch between array dtype \('float64'\) and format specifier \('%x %x'\)/);
  });
});

describe('genfromtxt', () => {
  it('missing values become NaN or filling_values', async () => {
    const lines = ['a,b,c', '1,,3', '4,N/A,6', '# skip', '7,8,'];
    expect(await describe_(await mt.genfromtxt(lines, { delimiter: ',', skip_header: 1, missing_values: 'N/A' }))).toEqual({ shape: [3, 3], dtype: 'float64', values: [1, 'nan', 3, 4, 'nan', 6, 7, 8, 'nan'] });
    expect(await describe_(await mt.genfromtxt(lines, { delimiter: ',', skip_header: 1, skip_footer: 1, filling_values: -1, missing_values: 'N/A' }))).toEqual({ shape: [2, 3], dtype: 'float64', values: [1, -1, 3, 4, -1, 6] });
  });
});

// ---------------------------------------------------------------------------
// NumPy reads what Tessera writes

const python = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });
const hasNumpy = python.status === 0;
if (!hasNumpy) console.warn(`io.test.ts: skipping the NumPy round trips: python3 with numpy is not available (${python.error?.message ?? python.stderr.trim()})`);

function py(code: string): unknown {
  const r = spawnSync('python3', ['-c', `import json, numpy as np\n${code}`], { encoding: 'utf8', cwd: TMP });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
const PY_DESCRIBE = `
def enc(v):
    import math
    if isinstance(v, bool): return v
    if isinstance(v, int): return str(v) if abs(v) > 2**53 else v
    if math.isnan(v): return 'nan'
    if math.isinf(v): return 'inf' if v > 0 else '-inf'
    if v == 0 and math.copysign(1, v) < 0: return '-0'
    return v
def describe(a):
    return {'shape': list(a.shape), 'dtype': a.dtype.name, 'values': [enc(v) for v in a.ravel().tolist()]}
`;

describe.skipIf(!hasNumpy)('np.load reads mt.save/savez, np.loadtxt reads mt.savetxt', () => {
  const arrays: Record<string, Described> = {
    f8: E.npy['f8.npy'], i8: E.npy['i8.npy'], b1: E.npy['b1.npy'], u4: E.npy['u4.npy'], empty: E.npy['empty.npy'], scalar: E.npy['scalar.npy'], f2: E.npy['f2.npy'],
    f4: { shape: [2, 2], dtype: 'float32', values: [0.5, -1, 'inf', 3] },
  };
  it('.npy', async () => {
    for (const [k, d] of Object.entries(arrays)) await mt.save(join(TMP, `rt_${k}.npy`), build(d));
    const got = py(`${PY_DESCRIBE}\nprint(json.dumps({k: describe(np.load(f'rt_{k}.npy')) for k in ${JSON.stringify(Object.keys(arrays))}}))`);
    expect(got).toEqual(arrays);
  });
  it('.npz, plain and compressed', async () => {
    const [f8, i8, b1] = [build(arrays.f8!), build(arrays.i8!), build(arrays.b1!)];
    await mt.savez(join(TMP, 'rt_plain'), f8, { ints: i8, flags: b1 });
    await mt.savez_compressed(join(TMP, 'rt_comp.npz'), { big: mt.reshape(mt.arange(5000, { dtype: 'int32' }), [50, 100]), f8 });
    const got = py(`${PY_DESCRIBE}\nout = {}\nfor n in ['rt_plain.npz', 'rt_comp.npz']:\n    with np.load(n) as z: out[n] = {k: describe(z[k]) for k in z.files}\nprint(json.dumps(out))`) as Record<string, Record<string, Described>>;
    expect(got['rt_plain.npz']).toEqual({ arr_0: arrays.f8, ints: arrays.i8, flags: arrays.b1 });
    expect(Object.keys(got['rt_comp.npz']!)).toEqual(['big', 'f8']);
    expect(got['rt_comp.npz']!.big!.values).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(readFileSync(join(TMP, 'rt_comp.npz')).length).toBeLessThan(20000 / 2);
  });
  it('savetxt', async () => {
    await mt.savetxt(join(TMP, 'rt.txt'), build(arrays.f8!));
    await mt.savetxt(join(TMP, 'rt.csv'), mt.tensor([[1, -2], [3, 4]], 'int32'), { fmt: '%d', delimiter: ',', header: 'a,b' });
    const got = py(`${PY_DESCRIBE}\nprint(json.dumps([describe(np.loadtxt('rt.txt')), describe(np.loadtxt('rt.csv', delimiter=',', dtype=np.int32))]))`);
    expect(got).toEqual([arrays.f8, { shape: [2, 2], dtype: 'int32', values: [1, -2, 3, 4] }]);
  });
});
