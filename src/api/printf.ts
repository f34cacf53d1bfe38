// Python's printf-style `%` formatting, as np.savetxt applies it to a row of
// NumPy scalars: `format % tuple(row)`. In: a format string and the row's
// values (JS numbers for floats, bigints for int64, booleans for bool, with
// the row's dtype saying how `%s` prints them). Out: the formatted text.
//
// Floats are formatted from their exact binary value (BigInt arithmetic) and
// rounded half to even, as CPython does, so `%.18e`, `%.3f` and `%g` agree
// with NumPy digit for digit, ties included (JS's toFixed rounds ties away
// from zero). `%s` of a float prints NumPy's scalar str (the shortest
// round-tripping digits, in Python's repr layout: 1e+16, 0.0001, 1e-05).

export type Scalar = number | bigint | boolean;

/** Python's str() of a NumPy scalar of this kind ('f' float64, 'f4' float32, 'i' integer, 'b' bool). */
export function pyStr(v: Scalar, kind: 'f' | 'f4' | 'i' | 'b'): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'bigint') return v.toString();
  if (kind === 'b') return v ? 'True' : 'False';
  if (kind === 'i') return String(v);
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  let digits = v.toExponential(); // the shortest digits that round-trip a float64
  if (kind === 'f4') {
    for (let p = 0; p < 9; p++) {
      const s = v.toExponential(p);
      if (Math.fround(Number(s)) === v) { digits = s; break; }
    }
  }
  const [mant, exp] = digits.split('e') as [string, string];
  const e = Number(exp);
  const neg = mant.startsWith('-');
  const ds = mant.replace('-', '').replace('.', '');
  let out: string;
  if (e >= -4 && e < 16) {
    if (e >= 0) {
      const int = ds.slice(0, e + 1).padEnd(e + 1, '0');
      out = `${int}.${ds.slice(e + 1) || '0'}`;
    } else out = `0.${'0'.repeat(-e - 1)}${ds}`;
  } else out = `${ds[0]}${ds.length > 1 ? `.${ds.slice(1)}` : ''}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  return neg ? `-${out}` : out;
}

// ---------------------------------------------------------------------------
// Exact decimal digits of a double

/** |x| = int(digits) × 10^-shift exactly (finite x). */
function exact(x: number): { digits: string; shift: number } {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, Math.abs(x));
  const hi = v.getUint32(0);
  const lo = v.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (e) m |= 1n << 52n;
  const e2 = (e || 1) - 1075;
  if (m === 0n) return { digits: '0', shift: 0 };
  if (e2 >= 0) return { digits: (m << BigInt(e2)).toString(), shift: 0 };
  return { digits: (m * 5n ** BigInt(-e2)).toString(), shift: -e2 };
}

/**
 * The first `keep` digits of `ds`, rounded half to even on what follows; the
 * result may have one digit more (999 → 1000). keep ≤ 0 rounds to a digit
 * before the first one ('' stands for zero).
 */
function roundDigits(ds: string, keep: number): string {
  if (keep >= ds.length) return ds + '0'.repeat(keep - ds.length);
  if (keep < 0) return '';
  const head = ds.slice(0, keep);
  const first = ds.charCodeAt(keep) - 48;
  const rest = /[1-9]/.test(ds.slice(keep + 1));
  const lastOdd = keep > 0 && (ds.charCodeAt(keep - 1) - 48) % 2 === 1;
  const up = first > 5 || (first === 5 && (rest || lastOdd));
  if (!up) return head;
  return keep === 0 ? '1' : (BigInt(head) + 1n).toString().padStart(keep, '0');
}

/** Scientific: [digit string of p+1 digits, decimal exponent]. */
function sci(x: number, p: number): [string, number] {
  const { digits, shift } = exact(x);
  if (digits === '0') return ['0'.repeat(p + 1), 0];
  let exp = digits.length - 1 - shift;
  let r = roundDigits(digits, p + 1);
  if (r.length > p + 1) { r = r.slice(0, p + 1); exp++; }
  return [r, exp];
}

/** Fixed with p decimals, without sign. */
function fixed(x: number, p: number): string {
  const { digits, shift } = exact(x);
  const keep = digits.length - shift + p; // digits of `digits` down to 10^-p
  const r = (roundDigits(digits, keep) || '0').padStart(p + 1, '0');
  return p > 0 ? `${r.slice(0, r.length - p)}.${r.slice(r.length - p)}` : r;
}

const expStr = (e: number): string => `${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;

function floatConv(x: number, conv: string, prec: number | undefined, alt: boolean): string {
  const upper = conv === 'E' || conv === 'F' || conv === 'G';
  if (!Number.isFinite(x)) {
    const s = Number.isNaN(x) ? 'nan' : 'inf';
    return upper ? s.toUpperCase() : s;
  }
  const c = conv.toLowerCase();
  let s: string;
  if (c === 'f') {
    s = fixed(x, prec ?? 6);
    if (alt && (prec ?? 6) === 0) s += '.';
  } else if (c === 'e') {
    const p = prec ?? 6;
    const [r, e] = sci(x, p);
    s = `${r[0]}${p > 0 || alt ? '.' : ''}${r.slice(1)}e${expStr(e)}`;
  } else {
    const p = prec === 0 ? 1 : prec ?? 6;
    const [, e] = sci(x, p - 1);
    if (e >= -4 && e < p) s = fixed(x, p - 1 - e);
    else { const [r] = sci(x, p - 1); s = `${r[0]}${p > 1 || alt ? '.' : ''}${r.slice(1)}e${expStr(e)}`; }
    if (!alt) s = s.replace(/\.?0+(?=e|$)/, (m) => (s.includes('.') ? '' : m));
  }
  return upper ? s.toUpperCase() : s;
}

// ---------------------------------------------------------------------------
// The `%` operator

const SPEC = /%(?:\(([^)]*)\))?([-+ #0]*)(\d+|\*)?(?:\.(\d*|\*))?[hlL]?([diouxXeEfFgGcrsa%])?/g;

/** Counts of conversions NumPy's savetxt checks ('%' characters, as str.count('%')). */
export const percentCount = (fmt: string): number => fmt.split('%').length - 1;

/** `fmt % tuple(values)` in Python. Throws TypeError as Python does for a mismatch. */
export function pyFormat(fmt: string, values: readonly Scalar[], kind: 'f' | 'f4' | 'i' | 'b'): string {
  let next = 0;
  const out = fmt.replace(SPEC, (whole, name: string | undefined, flags: string, width: string | undefined, prec: string | undefined, conv: string | undefined) => {
    if (conv === '%' && whole === '%%') return '%';
    if (conv === undefined) throw new TypeError(`unsupported format character in ${JSON.stringify(whole)}`);
    if (name !== undefined || width === '*' || prec === '*') throw new TypeError(`format ${JSON.stringify(whole)} is not supported (mapping keys and '*' widths need Python objects)`);
    if (next >= values.length) throw new TypeError('not enough arguments for format string');
    const v = values[next++]!;
    const left = flags.includes('-');
    const plus = flags.includes('+');
    const space = flags.includes(' ');
    const zero = flags.includes('0') && !left;
    const alt = flags.includes('#');
    const p = prec === undefined ? undefined : Number(prec || '0');
    let body: string;
    let neg = false;
    let prefix = '';
    const asNumber = (): number => (typeof v === 'boolean' ? Number(v) : Number(v));
    switch (conv) {
      case 'd': case 'i': case 'u': {
        let n: bigint;
        if (typeof v === 'bigint') n = v;
        else {
          const f = asNumber();
          if (Number.isNaN(f)) throw new RangeError('cannot convert float NaN to integer');
          if (!Number.isFinite(f)) throw new RangeError('cannot convert float infinity to integer');
          n = BigInt(Math.trunc(f));
        }
        neg = n < 0n;
        body = (neg ? -n : n).toString();
        if (p !== undefined) body = body.padStart(p, '0');
        break;
      }
      case 'o': case 'x': case 'X': {
        if (kind === 'f' || kind === 'f4') throw new TypeError(`%${conv} format: an integer is required, not a float`);
        const n = typeof v === 'bigint' ? v : BigInt(asNumber());
        neg = n < 0n;
        body = (neg ? -n : n).toString(conv === 'o' ? 8 : 16);
        if (conv === 'X') body = body.toUpperCase();
        if (p !== undefined) body = body.padStart(p, '0');
        if (alt) prefix = conv === 'o' ? '0o' : conv === 'x' ? '0x' : '0X';
        break;
      }
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
        const f = asNumber();
        neg = f < 0 || Object.is(f, -0);
        body = floatConv(Math.abs(f), conv, p, alt);
        break;
      }
      case 's': case 'r': {
        if (conv === 'r') throw new TypeError("format '%r' is not supported (it prints Python reprs such as np.float64(1.0))");
        body = pyStr(v, kind);
        if (p !== undefined) body = body.slice(0, p);
        const w = Number(width ?? 0);
        return left ? body.padEnd(w) : body.padStart(w);
      }
      default:
        throw new TypeError(`format character '${conv}' is not supported`);
    }
    const sign = neg ? '-' : plus ? '+' : space ? ' ' : '';
    const w = Number(width ?? 0);
    const len = sign.length + prefix.length + body.length;
    if (len >= w) return sign + prefix + body;
    if (left) return (sign + prefix + body).padEnd(w);
    if (zero) return sign + prefix + body.padStart(w - sign.length - prefix.length, '0');
    return (sign + prefix + body).padStart(w);
  });
  if (next < values.length) throw new TypeError('not all arguments converted during string formatting');
  return out;
}
