// Numerical and scientific-computing programs, written as a NumPy user
// writes them (the import and an await aside): quadrature (trapezoid,
// Simpson and cumulative rules by hand), finite differences (diff, gradient),
// polynomials (polyfit, polyval, Horner, roots, polyder/polyint), interp,
// explicit and implicit heat stepping, the Game of Life, rule 30, Mandelbrot
// escape counts, chaotic maps (logistic, Lorenz: one rounding unlike NumPy's
// would grow to O(1)), Newton, bisection, Euler, RK4 and leapfrog
// integration, power iteration and conjugate gradients, convolution,
// bincount deposits, polar grids, cross products, float32 unit conversions,
// log-sum-exp, Welford's variance, linspace/arange/logspace/geomspace,
// rounding, special values and signed zeros, integer overflow and division
// of negative numbers, negative powers, sign rules and angle wrapping.
// Inputs and NumPy's outputs come from fixtures/programs_science.json
// (gen_programs_science.py, NumPy 2.4); the programs marked `tiled` run a
// second time with their inputs (and the arrays they create) cut into chunks
// of 7 elements, to check results do not hang on tiling.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as mt from '../src/api/tensor.js';

afterAll(() => mt.shutdown());

type Val = number | boolean | string | Val[];
interface EncIn { data?: Val; shape?: number[]; dtype?: string; scalar?: Val }
interface EncOut { data?: Val[]; shape?: number[]; dtype?: string; scalar?: Val }
interface Program { name: string; inputs: Record<string, EncIn>; outputs: Record<string, EncOut> }

const fixture: Program[] = JSON.parse(readFileSync(new URL('./fixtures/programs_science.json', import.meta.url), 'utf8'));

const dec = (v: Val): unknown => (Array.isArray(v) ? v.map(dec) : v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v);

type Ck = { chunkSize?: number };
type Inp = (name: string) => mt.Tensor;
type Out = Record<string, mt.Tensor | number | boolean>;
interface Spec {
  run: (I: Inp, ck: Ck) => Out;
  // float64 relative tolerance where 1e-12 is too tight (reason given beside each)
  rtol?: number;
  // check the sign of zeros (-0 against 0) of float results
  signedZeros?: boolean;
  // run a second time with chunkSize 7
  tiled?: boolean;
}

const F64 = { dtype: 'float64' } as const;
// NumPy functions of this area that Tessera lacks (no spelling of them in src/api): called as a
// user calls them, so the programs fail until they exist
const mx = mt as typeof mt & Record<'roots' | 'unwrap' | 'polyder' | 'polyint' | 'polymul', (...args: unknown[]) => mt.Tensor>;

const programs: Record<string, Spec> = {
  // ---------------------------------------------------------------- quadrature
  trapezoid_sine: {
    run: (_, ck) => {
      const x = mt.linspace(0, Math.PI, 101, ck);
      const y = mt.sin(x);
      const i1 = mt.trapezoid(y, x);
      const i2 = mt.trapezoid(y, { dx: x.get(1).subtract(x.get(0)) as unknown as number });
      const manual = y.get('1:').add(y.get(':-1')).divide(2).multiply(mt.diff(x)).sum();
      const err = mt.abs(i1.subtract(2.0));
      return { i1, i2, manual, err };
    },
    // err = |I - 2| ~ 1.6e-4: the last ulp of sin and of the sum, amplified 1e4 by the cancellation
    rtol: 1e-9,
    tiled: true,
  },
  trapezoid_2d_nonuniform: {
    run: (I) => {
      const x = I('x'), f = I('f');
      const rows = mt.trapezoid(f, x, { axis: 1 });
      const cols = mt.trapezoid(f, { axis: 0, dx: 0.5 });
      const total = mt.trapezoid(mt.trapezoid(f, x), { dx: 0.25 });
      return { rows, cols, total };
    },
    tiled: true,
  },
  cumulative_trapezoid_by_hand: {
    run: (I) => {
      const x = I('x');
      const y = mt.exp(mt.negative(x)).multiply(mt.cos(x.multiply(3)));
      const dx = mt.diff(x);
      const c = mt.concatenate([[0.0], mt.cumsum(y.get('1:').add(y.get(':-1')).multiply(dx).divide(2))]);
      const end = mt.trapezoid(y, x);
      return { c, end };
    },
    rtol: 1e-10, // exp and cos to the last ulp, then a running sum that crosses zero
    tiled: true,
  },
  simpson_by_hand: {
    run: (_, ck) => {
      const a = 0.0, b = 2.0, n = 64;
      const x = mt.linspace(a, b, n + 1, ck);
      const y = mt.divide(1.0, mt.add(1.0, x.power(2)));
      const h = (b - a) / n;
      const s = y.get(0).add(y.get('1:-1:2').sum().multiply(4)).add(y.get('2:-1:2').sum().multiply(2)).add(y.get(-1)).multiply(h / 3);
      const err = mt.abs(s.subtract(mt.arctan(2.0)));
      return { s, err_small: err.less(1e-8) };
    },
    tiled: true,
  },
  trapezoid_convergence_richardson: {
    run: () => {
      const ests: mt.Tensor[] = [], errs: mt.Tensor[] = [];
      for (const n of [4, 8, 16, 32]) {
        const x = mt.linspace(0, 1, n + 1);
        const est = mt.trapezoid(mt.exp(x), x);
        ests.push(est);
        errs.push(mt.abs(est.subtract(Math.E - 1)));
      }
      const E = mt.array(ests), R = mt.array(errs);
      const rich = E.get('1:').multiply(4).subtract(E.get(':-1')).divide(3);
      const ratio = R.get(':-1').divide(R.get('1:'));
      return { ests: E, rich, ratio };
    },
    // ratio of errors ~1e-4 that are differences of numbers ~1.7: exp's last ulp amplified ~1e4
    rtol: 1e-9,
  },

  // ------------------------------------------------------- finite differences
  diff_orders_and_axes: {
    run: (I) => {
      const a = I('a'), k = I('k');
      return {
        d2: mt.diff(a, { n: 2, axis: 0 }),
        dlast: mt.diff(a, { axis: -1 }),
        d3: mt.diff(k, { n: 3 }),
        dp: mt.diff(k, { prepend: 0 }),
        da: mt.diff(a, { axis: 1, append: a.get(':, :1') }),
      };
    },
    tiled: true,
  },
  gradient_spacing_edge_order: {
    run: (I) => {
      const x = I('x');
      const y = x.power(3).subtract(x.multiply(2));
      const g_uniform = mt.gradient(y, 0.1) as mt.Tensor;
      const g_x = mt.gradient(y, x) as mt.Tensor;
      const g_x2 = mt.gradient(y, x, { edge_order: 2 }) as mt.Tensor;
      const exact = x.power(2).multiply(3).subtract(2);
      const err = mt.max(mt.abs(g_x2.subtract(exact)));
      return { g_uniform, g_x, g_x2, err };
    },
    // nonuniform-spacing weights are quotients of differences of close abscissae (cancellation)
    rtol: 1e-10,
    tiled: true,
  },
  gradient_2d_field: {
    run: (I) => {
      const f = I('f');
      const [gy, gx] = mt.gradient(f, 0.5, 0.25) as mt.Tensor[];
      const mag = mt.hypot(gx!, gy!);
      const gx_only = mt.gradient(f, { axis: 1, edge_order: 2 }) as mt.Tensor;
      return { gy: gy!, gx: gx!, mag, gx_only };
    },
    tiled: true,
  },
  central_difference_error: {
    run: (_, ck) => {
      const x = mt.linspace(0, 1, 41, ck);
      const h = 1e-4;
      const d = mt.exp(x.add(h)).subtract(mt.exp(x.subtract(h))).divide(2 * h);
      const err = mt.max(mt.abs(d.subtract(mt.exp(x))));
      return { d, ok: err.less(1e-6) };
    },
    rtol: 1e-9, // the difference of two exps 2e-4 apart: their last ulp amplified 5e3 times
  },

  // -------------------------------------------------- polynomials, interpolation
  polyfit_quadratic: {
    run: (I) => {
      const x = mt.linspace(-1, 1, 30);
      const y = I('y');
      const p = mt.polyfit(x, y, 2) as mt.Tensor;
      const yfit = mt.polyval(p, x);
      const resid = mt.sum(y.subtract(yfit).power(2));
      return { p, yfit, resid };
    },
    // least squares by another factorisation than LAPACK's; resid is a sum of squares of
    // differences ~1e-2 of values ~5, so the fit's last bits are amplified ~1e3
    rtol: 1e-9,
  },
  horner_by_hand: {
    run: (I) => {
      const coeffs = I('coeffs'), x = I('x');
      let r = mt.zeros_like(x);
      for (let i = 0; i < coeffs.shape[0]!; i++) r = r.multiply(x).add(coeffs.get(i));
      const ref = mt.polyval(coeffs, x);
      return { r, ref };
    },
  },
  polyval_int_coeffs: {
    run: (I) => {
      const p = I('p');
      const xi = mt.arange(-4, 5);
      return { yi: mt.polyval(p, xi), yf: mt.polyval(p, xi.divide(2)) };
    },
  },
  roots_cubic: {
    run: (I) => {
      const p = I('p');
      const r = mt.sort(mx.roots(p)); // np.roots: missing in Tessera
      const check = mt.polyval(p, r);
      return { r, check };
    },
    rtol: 1e-9, // companion-matrix eigenvalues; check is a residual near zero
  },
  interp_table: {
    run: (I, ck) => {
      const xp = I('xp');
      const fp = mt.sin(xp);
      const xq = mt.linspace(-1, 11, 37, ck);
      const a = mt.interp(xq, xp, fp);
      const b = mt.interp(xq, xp, fp, { left: -9.0, right: 9.0 });
      const ang = mt.interp([350.0, 5.0, 180.0], [0.0, 90.0, 270.0], [0.0, 1.0, 3.0], { period: 360 });
      return { a, b, ang };
    },
    tiled: true,
  },

  // ----------------------------------------- PDEs, cellular automata, fractals
  heat_equation_slices: {
    run: (_, ck) => {
      const n = 41;
      let u = mt.zeros(n, ck);
      u = u.set(`${Math.floor(n / 2) - 3}:${Math.floor(n / 2) + 3}`, 100.0);
      const r = 0.4;
      for (let s = 0; s < 50; s++) {
        u = u.set('1:-1', u.get('1:-1').add(u.get('2:').subtract(u.get('1:-1').multiply(2)).add(u.get(':-2')).multiply(r)));
      }
      return { u, total: u.sum(), peak: u.max() };
    },
    tiled: true,
  },
  heat_equation_roll_periodic: {
    run: (I) => {
      let u = I('u0');
      const r = 0.25;
      for (let s = 0; s < 50; s++) u = u.add(mt.roll(u, 1).subtract(u.multiply(2)).add(mt.roll(u, -1)).multiply(r));
      return { u, mean: u.mean() };
    },
    tiled: true,
  },
  heat_equation_large_tiled: {
    run: () => {
      const enc = fixture.find((p) => p.name === 'heat_equation_large_tiled')!.inputs.u0!;
      let u = mt.tensor(dec(enc.data!) as number[], { dtype: 'float64', chunkSize: 256 });
      for (let s = 0; s < 50; s++) {
        const lap = mt.roll(u, 1).subtract(u.multiply(2)).add(mt.roll(u, -1));
        u = u.add(lap.multiply(0.2));
      }
      const hot = u.greater(0.5);
      return { u, hot: mt.count_nonzero(hot), var: u.var(), edges: u.get([0, -1]) };
    },
  },
  game_of_life: {
    run: (I) => {
      let g = I('g');
      for (let s = 0; s < 4; s++) {
        let n: mt.Tensor | number = 0;
        for (const i of [-1, 0, 1]) for (const j of [-1, 0, 1]) if (i !== 0 || j !== 0) n = mt.add(n, mt.roll(mt.roll(g, i, 0), j, 1));
        const nn = n as mt.Tensor;
        g = nn.equal(3).bitwise_or(g.equal(1).bitwise_and(nn.equal(2))).astype('int64');
      }
      return { g, alive: g.sum() };
    },
    tiled: true,
  },
  game_of_life_tuple_roll: {
    run: (I) => {
      let g = I('g');
      for (let s = 0; s < 3; s++) {
        let n = mt.zeros_like(g);
        for (const dy of [-1, 0, 1]) for (const dx of [-1, 0, 1]) if (dy || dx) n = n.add(mt.roll(g, [dy, dx], { axis: [0, 1] }));
        g = mt.where(n.equal(3).bitwise_or(g.equal(1).bitwise_and(n.equal(2))), 1, 0).astype('int8');
      }
      return { g, alive: mt.count_nonzero(g) };
    },
    tiled: true,
  },
  mandelbrot_escape: {
    run: (_, ck) => {
      const x = mt.linspace(-2.0, 0.5, 30, ck), y = mt.linspace(-1.2, 1.2, 21, ck);
      const [X, Y] = mt.meshgrid(x, y) as mt.Tensor[];
      let zr = mt.zeros_like(X!), zi = mt.zeros_like(X!);
      let count = mt.zeros(X!.shape, { dtype: 'int64', ...ck });
      for (let s = 0; s < 25; s++) {
        const mask = zr.power(2).add(zi.power(2)).less_equal(4.0);
        const zr_new = zr.multiply(zr).subtract(zi.multiply(zi)).add(X!);
        const zi_new = zr.multiply(2).multiply(zi).add(Y!);
        zr = mt.where(mask, zr_new, zr);
        zi = mt.where(mask, zi_new, zi);
        count = count.add(mask);
      }
      return { count, inside: count.equal(25).sum() };
    },
    tiled: true,
  },
  jacobi_poisson_roll: {
    run: (I) => {
      const n = 16, f = I('f');
      let u = mt.zeros([n, n]);
      const h2 = (1.0 / n) ** 2;
      const nb = (v: mt.Tensor) => mt.roll(v, 1, 0).add(mt.roll(v, -1, 0)).add(mt.roll(v, 1, 1)).add(mt.roll(v, -1, 1));
      for (let s = 0; s < 20; s++) u = nb(u).subtract(f.multiply(h2)).multiply(0.25);
      const res = mt.abs(nb(u).subtract(u.multiply(4)).subtract(f.multiply(h2))).max();
      return { u, res };
    },
    tiled: true,
  },
  box_blur_shifted_slices: {
    run: (I) => {
      const img = I('img');
      const p = mt.pad(img, 1, { mode: 'edge' });
      const [h, w] = img.shape as number[];
      let acc = mt.zeros_like(img);
      for (let dy = 0; dy < 3; dy++) for (let dx = 0; dx < 3; dx++) acc = acc.add(p.get(`${dy}:${dy + h!}, ${dx}:${dx + w!}`));
      const blur = acc.divide(9);
      return { blur, mean_diff: mt.abs(blur.subtract(img)).mean() };
    },
    tiled: true,
  },

  // ------------------------------------------------- iterative solvers, ODEs
  newton_sqrt: {
    run: (I) => {
      const a = I('a');
      let x = mt.copy(a);
      for (let s = 0; s < 8; s++) x = x.add(a.divide(x)).multiply(0.5);
      const err = mt.max(mt.abs(x.subtract(mt.sqrt(a))).divide(mt.sqrt(a)));
      return { x, converged: err.less(1e-12) };
    },
    tiled: true,
  },
  bisection_vectorized: {
    run: (I) => {
      const c = I('c');
      let lo = mt.zeros_like(c), hi = mt.full_like(c, 2.0);
      for (let s = 0; s < 40; s++) {
        const mid = lo.add(hi).divide(2);
        const f = mid.power(3).add(mid).subtract(c);
        lo = mt.where(f.less(0), mid, lo);
        hi = mt.where(f.less(0), hi, mid);
      }
      const root = lo.add(hi).divide(2);
      return { root, width: hi.subtract(lo).max() };
    },
    // a last-ulp difference in mid**3 may flip a branch where f is within an ulp of 0:
    // the root then moves by at most the final bracket width (2/2**40 ~ 2e-12)
    rtol: 1e-10,
    tiled: true,
  },
  projectile_euler_stack: {
    run: () => {
      const dt = 0.05, k = 0.02;
      let pos = mt.array([0.0, 0.0], F64);
      let vel = mt.array([mt.cos(mt.radians(40)).multiply(20), mt.sin(mt.radians(40)).multiply(20)]);
      const g = mt.array([0.0, -9.81]);
      const traj = [pos];
      for (let s = 0; s < 60; s++) {
        vel = vel.add(g.subtract(vel.multiply(k).multiply(mt.linalg.norm(vel))).multiply(dt));
        pos = pos.add(vel.multiply(dt));
        traj.push(pos);
      }
      const T = mt.stack(traj);
      const top = T.get(':, 1').max();
      const land = mt.argmax(T.get('1:, 1').less(0)).add(1);
      return { traj: T, top, land };
    },
    rtol: 1e-10, // cos/sin of the launch angle and 60 steps of norms
  },
  rk4_harmonic_oscillator: {
    run: (I) => {
      const omega = I('omega');
      const dt = 0.05;
      const f = (s: mt.Tensor) => mt.stack([s.get(1), mt.negative(omega.power(2)).multiply(s.get(0))]);
      let s = mt.stack([mt.ones(5), mt.zeros(5)]);
      for (let i = 0; i < 40; i++) {
        const k1 = f(s);
        const k2 = f(s.add(k1.multiply(dt / 2)));
        const k3 = f(s.add(k2.multiply(dt / 2)));
        const k4 = f(s.add(k3.multiply(dt)));
        s = s.add(k1.add(k2.multiply(2)).add(k3.multiply(2)).add(k4).multiply(dt / 6));
      }
      const exact = mt.cos(omega.multiply(40).multiply(dt));
      const energy = s.get(1).power(2).multiply(0.5).add(omega.power(2).multiply(0.5).multiply(s.get(0).power(2)));
      return { s, err: mt.abs(s.get(0).subtract(exact)).max(), energy };
    },
    // err ~1e-7 is the difference of the RK4 state and cos(): cos's last ulp amplified ~1e9
    rtol: 1e-7,
  },
  batch_euler_decay: {
    run: (I) => {
      const rates = I('rates'), y0 = I('y0');
      const dt = 0.01;
      const ys = [y0];
      let y = y0;
      for (let s = 0; s < 30; s++) {
        y = y.subtract(rates.multiply(y).multiply(dt));
        ys.push(y);
      }
      const hist = mt.stack(ys, { axis: 1 });
      const ex = y0.multiply(mt.exp(mt.negative(rates).multiply(0.3)));
      const rel = mt.abs(hist.get(':, -1').subtract(ex)).divide(ex);
      return { hist, rel };
    },
    rtol: 1e-10, // rel ~1e-3 is a difference against exp(): its last ulp amplified 1e3
    tiled: true,
  },

  // ------------------------------------------- convolution, geometry, units
  convolve_modes: {
    run: (I) => {
      const x = I('x');
      const k = mt.array([0.25, 0.5, 0.25]);
      return {
        full: mt.convolve(x, k),
        same: mt.convolve(x, k, { mode: 'same' }),
        valid: mt.convolve(x, k, 'valid'),
        ma: mt.convolve(x, mt.ones(5).divide(5), { mode: 'valid' }),
        ints: mt.convolve([1, 2, 3], [0, 1, 0.5]),
        ii: mt.convolve(mt.arange(6), [1, -1]),
      };
    },
    tiled: true,
  },
  polar_grid_hypot_arctan2: {
    run: (_, ck) => {
      const [X, Y] = mt.meshgrid(mt.linspace(-2, 2, 9, ck), mt.linspace(-1, 1, 5, ck)) as mt.Tensor[];
      const r = mt.hypot(X!, Y!);
      const th = mt.arctan2(Y!, X!);
      const deg = mt.degrees(th);
      const back_x = r.multiply(mt.cos(th));
      const near = mt.sum(r.less(1.0));
      return { r, th, deg, back_x, near };
    },
    tiled: true,
  },
  outer_and_cross: {
    run: (I) => {
      const a = I('a'), b = I('b'), rvec = I('rvec'), F = I('F');
      const o = mt.outer(a, b);
      const torque = mt.cross(rvec, F);
      const work = mt.einsum('ij,ij->i', F, rvec);
      const total = torque.sum({ axis: 0 });
      const z = mt.cross([1, 0, 0], [0, 1, 0]);
      return { o, torque, work, total, z };
    },
    tiled: true,
  },
  float32_unit_conversions: {
    run: (I) => {
      const c = I('c'), km = I('km');
      const f = c.multiply(9).divide(5).add(32);
      const k = c.add(mt.tensor(273.15, { dtype: 'float32' }));
      const miles = km.multiply(0.621371);
      const total = miles.sum();
      const kph = km.divide(mt.tensor(2.5, { dtype: 'float32' }));
      return { f, k, miles, total, kph };
    },
    tiled: true,
  },
  logsumexp_stable: {
    run: (I) => {
      const x = I('x');
      const lse = mt.logaddexp.reduce(x, { axis: 1 });
      const m = x.max({ axis: 1, keepdims: true });
      const manual = m.get(':, 0').add(mt.log(mt.sum(mt.exp(x.subtract(m)), { axis: 1 })));
      const flat = mt.logaddexp.reduce(x.ravel());
      const softmax = mt.exp(x.subtract(lse.get(':, None')));
      return { lse, manual, flat, softmax };
    },
    rtol: 1e-10, // chains of exp/log1p
    tiled: true,
  },
  welford_vs_var: {
    run: (I) => {
      const x = I('x');
      let n = 0;
      let mean: mt.Tensor | number = 0.0, m2: mt.Tensor | number = 0.0;
      for (let i = 0; i < x.shape[0]!; i++) {
        const v = x.get(i);
        n += 1;
        const delta = v.subtract(mean);
        mean = mt.add(mean, delta.divide(n));
        m2 = mt.add(m2, delta.multiply(v.subtract(mean)));
      }
      const var_w = mt.divide(m2, n);
      return { var_w, var_np: mt.var(x), var1: mt.var(x, { ddof: 1 }), mean: mean as mt.Tensor };
    },
    // var of values ~1e6 with spread ~1: the mean's last ulp (1e-10) shifts every deviation
    rtol: 1e-9,
    tiled: true,
  },

  // ------------------------------------------------------ grids and rounding
  linspace_retstep_endpoint_false: {
    run: () => {
      const [x, dx] = mt.linspace(0, 2 * Math.PI, 16, { endpoint: false, retstep: true });
      const s = mt.sum(mt.sin(x).power(2)).multiply(dx);
      const c = mt.sum(mt.cos(x.multiply(3)).multiply(mt.cos(x.multiply(3)))).multiply(dx);
      return { x, dx, s, c };
    },
  },
  logspace_geomspace: {
    run: () => {
      const a = mt.logspace(0, 3, 7);
      const b = mt.logspace(0, 1, 5, { base: 2 });
      const c = mt.geomspace(1, 1000, 4);
      const d = mt.geomspace(-1, -1000, 4);
      const e = mt.logspace(-2, 2, 5, { endpoint: false });
      const ratio = c.get('1:').divide(c.get(':-1'));
      return { a, b, c, d, e, ratio };
    },
  },
  round_decimals: {
    run: (I) => {
      const x = I('x');
      const halves = mt.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.125, 2.675]);
      const ints = mt.array([15, 25, -35, 144, 149]);
      return {
        r2: mt.round(x, 2), rm1: mt.round(x, -1), r0: mt.round(x),
        h: mt.round(halves), h2: mt.round(halves, 2), ri: mt.round(ints, -1),
        a32: mt.round(x.astype('float32'), 1),
      };
    },
    signedZeros: true,
    tiled: true,
  },

  // -------------------------------------- special values, integer/float rules
  special_values_propagation: {
    run: () => {
      const z = mt.array([0.0, 1.0, -1.0, Infinity, -Infinity, NaN]);
      const a = z.get(3).subtract(z.get(3));
      const q = z.divide(0.0);
      const lg = mt.log(z);
      const sq = mt.sqrt(z);
      const m = mt.maximum(z, 0.5);
      const fm = mt.fmax(z, 0.5);
      const bad = mt.count_nonzero(mt.invert(mt.isfinite(lg)));
      const s = mt.sum(z);
      return { a, q, lg, sq, m, fm, bad, s, nansum: mt.nansum(z.get(':3')) };
    },
    signedZeros: true,
  },
  nan_to_num_cleanup: {
    run: () => {
      const x = mt.array([1.0, NaN, Infinity, -Infinity, -2.5, 0.0]);
      const x32 = x.astype('float32');
      return {
        a: mt.nan_to_num(x),
        b: mt.nan_to_num(x, { nan: -1.0, posinf: 1e10, neginf: -1e10 }),
        c: mt.nan_to_num(x32),
        d: mt.nan_to_num(mt.log(mt.array([0.0, 1.0, Math.E])), { neginf: 0.0 }),
      };
    },
  },
  int_floor_divide_mod_negative: {
    run: (I) => {
      const a = I('a'), b = I('b');
      const a32 = a.astype('int32');
      return {
        fd: mt.floor_divide(a, b), md: mt.mod(a, b), fmod: mt.fmod(a, b), q32: mt.floor_divide(a32, 3),
        r32: mt.mod(a32, -3), check: mt.floor_divide(a, b).multiply(b).add(mt.mod(a, b)), rem: mt.remainder(a, 4),
        fdf: mt.floor_divide(a.astype('float64'), b), mdf: mt.mod(-7.5, b),
      };
    },
    signedZeros: true,
    tiled: true,
  },
  power_negative_exponents: {
    run: (I) => {
      const x = I('x');
      return {
        // NumPy's float bases 2.0 and -2.0 are integral JS numbers, which Tessera reads as Python ints
        // (README, dtypes), and int ** negative int raises: the float base is a float64 0-d tensor
        p2: mt.power(x, -2), ph: x.power(-0.5), two: mt.power(mt.tensor(2.0, F64), mt.arange(-3, 4)),
        inv: mt.divide(1.0, x.power(3)), fp: mt.float_power(mt.arange(1, 6), -1), neg: mt.power(mt.tensor(-2.0, F64), mt.array([-1, -2, -3])),
      };
    },
  },
  sign_copysign_fmod: {
    run: () => {
      const x = mt.array([-3.5, -0.0, 0.0, 2.25, NaN, -Infinity, 7.0]);
      return {
        sign: mt.sign(x), cs: mt.copysign(3.0, x), fm: mt.fmod(x, 3.0), md: mt.mod(x, 3.0),
        sb: mt.signbit(x), isign: mt.sign(mt.array([-4, 0, 9])), cs2: mt.copysign(x, -1.0),
      };
    },
    signedZeros: true,
  },
  angle_wrapping: {
    run: (I) => {
      const theta = I('theta');
      const wrapped = mt.mod(theta.add(Math.PI), 2 * Math.PI).subtract(Math.PI);
      const diff = mt.mod(mt.diff(theta).add(Math.PI), 2 * Math.PI).subtract(Math.PI);
      const ok = mt.all(wrapped.greater_equal(-Math.PI).bitwise_and(wrapped.less(Math.PI)));
      const same = mt.allclose(mt.cos(wrapped), mt.cos(theta));
      const deg = mt.mod(mt.degrees(theta), 360.0);
      return { wrapped, diff, ok, same, deg };
    },
    tiled: true,
  },
  unwrap_phase: {
    run: () => {
      const t = mt.linspace(0, 4 * Math.PI, 50);
      const phase = t.multiply(1.7);
      const wrapped = mt.mod(phase.add(Math.PI), 2 * Math.PI).subtract(Math.PI);
      const un = mx.unwrap(wrapped); // np.unwrap: missing in Tessera
      const deg = mx.unwrap(mt.array([350.0, 355.0, 2.0, 10.0, 5.0], F64), { period: 360 });
      return { un, deg, back: mt.allclose(un.subtract(un.get(0)), phase.subtract(phase.get(0))) };
    },
  },
  compound_interest_cumprod: {
    run: (I) => {
      const r = I('r');
      const bal = mt.cumprod(r.add(1)).multiply(1000.0);
      const log_bal = mt.log(1000.0).add(mt.cumsum(mt.log1p(r)));
      const dd = bal.divide(mt.maximum.accumulate(bal)).subtract(1);
      return { bal, log_bal, drawdown: dd.min() };
    },
    rtol: 1e-10, // log/log1p to the last ulp, then a running sum
    tiled: true,
  },

  // -------------------------------------------------------------- more edges
  float_division_edges: {
    run: () => {
      const a = mt.array([-7.0, 7.0, 0.0, -0.0, 5.5, Infinity, NaN, -1.0]);
      const b = mt.array([0.0, -2.0, 0.0, 3.0, -2.0, 2.0, 1.0, Infinity]);
      const [q, r] = mt.divmod(a, b);
      const ai = mt.array([7, -7, 0]), zi = mt.array([0, 0, 3]);
      return {
        fd: mt.floor_divide(a, b), md: mt.mod(a, b), q: q!, r: r!, fm: mt.fmod(a, b),
        tdiv: a.divide(b), ifd: mt.floor_divide(ai, zi), imd: mt.mod(ai, zi), ifm: mt.fmod(ai, zi),
      };
    },
    signedZeros: true,
  },
  int_overflow_wraparound: {
    run: (I) => {
      const a8 = I('a8'), u8 = I('u8'), i32 = I('i32');
      return {
        add8: a8.add(mt.tensor(10, { dtype: 'int8' })), abs8: mt.abs(a8), neg8: mt.negative(a8), addu: u8.add(mt.tensor(10, { dtype: 'uint8' })),
        negu: mt.negative(u8), mul32: i32.multiply(2), sq32: i32.multiply(i32), pw: mt.power(mt.arange(1, 5), 40),
        cs8: mt.cumsum(a8), sum8: a8.sum(), mean8: a8.mean(),
      };
    },
    tiled: true,
  },
  transcendental_edges: {
    run: () => {
      const z = mt.array([0.0, -0.0, 0.0, -0.0, Infinity, -Infinity, 1.0]);
      const w = mt.array([0.0, 0.0, -0.0, -0.0, Infinity, Infinity, -Infinity]);
      const small = mt.array([1e-18, -1e-10, 1e-5, 0.5]);
      return {
        at2: mt.arctan2(z, w), hyp: mt.hypot(mt.array([Infinity, NaN, 3.0, -Infinity]), mt.array([NaN, Infinity, 4.0, 0.0])),
        lae: mt.logaddexp(mt.array([-Infinity, Infinity, 0.0, -Infinity]), mt.array([-Infinity, Infinity, 0.0, 3.0])),
        l1p: mt.log1p(mt.array([-1.0, -2.0, 1e-18, 1e300])), em1: mt.expm1(small), lg1p: mt.log1p(small),
        sq0: mt.sqrt(mt.array([-0.0, 4.0, -4.0])), cb: mt.cbrt(mt.array([-8.0, 27.0, -0.0, 1e-300])),
        ovf: mt.exp(mt.array([709.0, 710.0, -746.0, -745.0], F64)), ovf32: mt.exp(mt.array([88.0, 89.0, -104.0], { dtype: 'float32' })),
        sqrt32: mt.sqrt(mt.array([-1.0, 2.0], { dtype: 'float32' })), log0: mt.log(mt.array([0.0, -0.0, -1e-300])),
      };
    },
    signedZeros: true,
  },
  float_decomposition: {
    run: () => {
      const x = mt.array([8.0, 0.1, -3.75, 1e-310, 0.0, Infinity]);
      const [m, e] = mt.frexp(x);
      const back = mt.ldexp(m!, e!);
      const sp = mt.spacing(mt.array([1.0, 1e10, -1.0, 0.0], F64));
      const na = mt.nextafter(mt.array([1.0, 1.0, 0.0], F64), mt.array([2.0, 0.0, -1.0], F64)).subtract(mt.array([1.0, 1.0, 0.0], F64));
      const l2 = mt.log2(mt.array([1.0, 2.0, 1024.0, 0.125, 2.0 ** -1074]));
      const e2 = mt.exp2(mt.array([-1074.0, 10.0, 0.5, 1024.0]));
      const [fr, ip] = mt.modf(mt.array([3.75, -3.75, -0.0, Infinity]));
      return { m: m!, e: e!, back, sp, na, l2, e2, fr: fr!, ip: ip! };
    },
    signedZeros: true,
  },
  float_grids: {
    run: () => {
      const a = mt.arange(0, 1, 0.1);
      const b = mt.arange(0.5, 2.0, 0.3);
      const c = mt.arange(10, 0, -1.5);
      const d = mt.arange(-1, 1, 0.25, { dtype: 'float32' });
      const e = mt.linspace(0, 10, 7, { dtype: 'int64' });
      const f = mt.linspace(mt.array([0.0, 1.0], F64), mt.array([1.0, 3.0], F64), 5, { axis: 1 });
      const [X, Y] = mt.meshgrid(mt.arange(3), mt.linspace(0, 1, 4), { indexing: 'ij' }) as mt.Tensor[];
      const [xs, ys] = mt.meshgrid(mt.arange(4, F64), mt.arange(2, F64), { sparse: true }) as mt.Tensor[];
      const r = mt.sqrt(xs!.power(2).add(ys!.power(2)));
      return { a, b, c, d, e, f, X: X!, Y: Y!, r };
    },
  },
  implicit_heat_solve: {
    run: () => {
      const n = 12, r = 0.8;
      const A = mt.eye(n).multiply(1 + 2 * r).subtract(mt.eye(n, { k: 1 }).add(mt.eye(n, { k: -1 })).multiply(r));
      let u = mt.zeros(n).set(Math.floor(n / 2), 1.0);
      const hist: mt.Tensor[] = [];
      for (let s = 0; s < 10; s++) {
        u = mt.linalg.solve(A, u);
        hist.push(u.sum());
      }
      return { u, hist: mt.array(hist), sym: mt.allclose(u, u.get('::-1')) };
    },
    rtol: 1e-10, // ten LU solves (another pivot order's rounding than LAPACK's)
  },
  polynomial_calculus: {
    run: () => {
      // np.polyder, np.polyint, np.polymul: missing in Tessera (no spelling of them in src/api)
      const p = mt.array([3.0, -2.0, 0.5, 4.0]);
      const dp = mx.polyder(p);
      const ip = mx.polyint(p);
      const area = mt.polyval(ip, 2.0).subtract(mt.polyval(ip, -1.0));
      const prod = mx.polymul(p, mt.array([1.0, -1.0], F64));
      return { dp, ip, area, prod };
    },
  },
  float32_long_sums: {
    run: (I) => {
      const x = I('x');
      return {
        s: mt.sum(x), s64: mt.sum(x, { dtype: 'float64' }), m: x.mean(), sd: x.std(),
        cs: mt.cumsum(x).get('::25'), cs64: mt.cumsum(x.astype('float64')).get('::500'),
      };
    },
    tiled: true,
  },
  heat_2d_interior_slices: {
    run: (_, ck) => {
      let u = mt.zeros([12, 12], ck);
      u = u.set('0, :', 100.0);
      const r = 0.2;
      for (let s = 0; s < 30; s++) {
        const c = u.get('1:-1, 1:-1');
        u = u.set('1:-1, 1:-1', c.add(u.get('2:, 1:-1').add(u.get(':-2, 1:-1')).add(u.get('1:-1, 2:')).add(u.get('1:-1, :-2')).subtract(c.multiply(4)).multiply(r)));
      }
      return { u, center: u.get(6, 6), row_means: u.mean({ axis: 1 }) };
    },
    tiled: true,
  },

  // --------------- chaotic maps, linear-algebra loops, particles
  logistic_map_chaotic: {
    // a chaotic map: one rounding that differs from NumPy's grows to O(1) within ~50 steps
    run: (_, ck) => {
      const r = mt.linspace(3.6, 4.0, 64, ck);
      let x = mt.full(64, 0.2, ck);
      for (let s = 0; s < 1000; s++) x = r.multiply(x).multiply(mt.subtract(1, x));
      const orbit: mt.Tensor[] = [];
      for (let s = 0; s < 8; s++) {
        x = r.multiply(x).multiply(mt.subtract(1, x));
        orbit.push(x);
      }
      return { x, orbit: mt.array(orbit).T, chaotic_mean: x.get(r.greater(3.7)).mean() };
    },
    tiled: true,
  },
  lorenz_euler: {
    run: (I) => {
      let s = I('s0');
      const sigma = 10.0, rho = 28.0, beta = 8.0 / 3.0, dt = 0.005;
      for (let i = 0; i < 400; i++) {
        const x = s.get(':, 0'), y = s.get(':, 1'), z = s.get(':, 2');
        const d = mt.stack([y.subtract(x).multiply(sigma), x.multiply(mt.subtract(rho, z)).subtract(y), x.multiply(y).subtract(z.multiply(beta))], { axis: 1 });
        s = s.add(d.multiply(dt));
      }
      return { s, radius: mt.linalg.norm(s, { axis: 1 }) };
    },
    tiled: true,
  },
  rule30_automaton: {
    run: () => {
      const n = 31;
      let row = mt.zeros(n, { dtype: 'uint8' }).set(Math.floor(n / 2), 1);
      const rows = [row];
      for (let s = 0; s < 15; s++) {
        const left = mt.roll(row, 1);
        const right = mt.roll(row, -1);
        const pattern = left.left_shift(2).bitwise_or(row.left_shift(1)).bitwise_or(right);
        row = mt.right_shift(mt.tensor(30, { dtype: 'uint8' }), pattern).bitwise_and(1);
        rows.push(row);
      }
      const grid = mt.array(rows);
      return { grid, counts: mt.count_nonzero(grid, { axis: 1 }) };
    },
  },
  power_iteration: {
    run: (I) => {
      const B = I('B');
      const A = mt.matmul(B, B.T).add(mt.eye(6).multiply(6));
      let v = mt.ones(6);
      for (let s = 0; s < 60; s++) {
        const w = mt.matmul(A, v);
        v = w.divide(mt.linalg.norm(w));
      }
      const lam = mt.matmul(mt.matmul(v, A), v);
      const top = mt.linalg.eigvalsh(A).get(-1);
      return { lam, top, v: v.multiply(mt.sign(v.get(0))) };
    },
    rtol: 1e-10, // matrix products summed in another order, then Jacobi against LAPACK's eigvalsh
    tiled: true,
  },
  conjugate_gradient: {
    run: (I) => {
      const M = I('M'), b = I('b');
      const A = mt.matmul(M.T, M).add(mt.eye(8).multiply(8));
      let x = mt.zeros(8);
      let r = b.subtract(mt.matmul(A, x));
      let p = mt.copy(r);
      let rs = mt.matmul(r, r);
      for (let s = 0; s < 8; s++) {
        const Ap = mt.matmul(A, p);
        const alpha = rs.divide(mt.matmul(p, Ap));
        x = x.add(alpha.multiply(p));
        r = r.subtract(alpha.multiply(Ap));
        const rs_new = mt.matmul(r, r);
        p = r.add(rs_new.divide(rs).multiply(p));
        rs = rs_new;
      }
      return { x, solve: mt.linalg.solve(A, b), res_small: mt.linalg.norm(mt.matmul(A, x).subtract(b)).less(1e-8) };
    },
    rtol: 1e-9, // dot products summed in another order, amplified by CG's recurrences
    tiled: true,
  },
  nbody_leapfrog: {
    run: (I) => {
      let pos = I('pos'), vel = I('vel');
      const m = I('m');
      const dt = 0.01, eps = 0.1;
      const accel = (p: mt.Tensor) => {
        const d = p.get('None, :, :').subtract(p.get(':, None, :'));
        const r2 = d.power(2).sum({ axis: -1 }).add(eps ** 2);
        const inv3 = r2.power(-1.5);
        return d.multiply(m.get('None, :, None').multiply(inv3.get(':, :, None'))).sum({ axis: 1 });
      };
      let a = accel(pos);
      for (let s = 0; s < 25; s++) {
        vel = vel.add(a.multiply(0.5 * dt));
        pos = pos.add(vel.multiply(dt));
        a = accel(pos);
        vel = vel.add(a.multiply(0.5 * dt));
      }
      const com = m.get(':, None').multiply(pos).sum({ axis: 0 }).divide(m.sum());
      return { pos, vel, com };
    },
    rtol: 1e-10, // r2 ** -1.5 to the last ulp, 25 steps
    tiled: true,
  },
  particle_deposit_bincount: {
    run: (I) => {
      const n = 16, xp = I('xp'), q = I('q');
      const i = mt.floor(xp).astype('int64');
      const frac = xp.subtract(i);
      const rho = mt.bincount(i, { weights: q.multiply(mt.subtract(1, frac)), minlength: n })
        .add(mt.bincount(mt.mod(i.add(1), n), { weights: q.multiply(frac), minlength: n }));
      const counts = mt.bincount(i, { minlength: n });
      return { rho, counts, total: rho.sum(), dense: mt.argmax(rho) };
    },
    tiled: true,
  },
};

// ---------------------------------------------------------------- comparison
const isFloatDtype = (d: string) => d.startsWith('float');

function closeEnough(got: number, want: number, rtol: number, atol: number): boolean {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= rtol * Math.abs(want) + atol;
}

async function compare(name: string, key: string, got: unknown, want: EncOut, spec: Spec): Promise<void> {
  const where = `${name}: ${key}`;
  if (want.scalar !== undefined) {
    // NumPy gave a Python scalar (linspace's step, count_nonzero, allclose): Tessera a JS value or a 0-d tensor
    const v = got instanceof mt.Tensor ? (await got.fetch()).item() : got;
    const w = dec(want.scalar) as number | boolean;
    if (typeof w === 'number' && !Number.isInteger(w)) {
      expect(closeEnough(Number(v), w, spec.rtol ?? 1e-12, 0), `${where}: ${String(v)} vs ${w}`).toBe(true);
    } else {
      expect(typeof w === 'boolean' ? Boolean(v) : Number(v), where).toBe(w);
    }
    return;
  }
  if (typeof got === 'number' && want.shape?.length === 0) {
    // linspace's retstep of JS number bounds is a JS number (README), NumPy's a float64 scalar
    expect(closeEnough(got, Number(dec(want.data![0]!)), spec.rtol ?? 1e-12, 0), `${where}: ${got} vs ${String(want.data![0])}`).toBe(true);
    return;
  }
  expect(got instanceof mt.Tensor, `${where} is a tensor`).toBe(true);
  const nd = await (got as mt.Tensor).fetch();
  expect(nd.dtype, `${where} dtype`).toBe(want.dtype);
  expect(Array.from(nd.shape), `${where} shape`).toEqual(want.shape);
  const gv = Array.from(nd.data as ArrayLike<number | bigint | boolean>, Number);
  const wv = (want.data ?? []).map((v) => Number(dec(v)));
  expect(gv.length, `${where} size`).toBe(wv.length);
  if (!isFloatDtype(want.dtype!)) {
    expect(gv, `${where} values`).toEqual(wv);
    return;
  }
  const f32 = want.dtype === 'float32' || want.dtype === 'float16';
  const rtol = f32 ? 1e-5 : spec.rtol ?? 1e-12;
  // noise of a few ulp of the array's largest value, for entries that cancel to ~0
  const scale = Math.max(0, ...wv.filter(Number.isFinite).map(Math.abs));
  const atol = (f32 ? 1e-6 : 1e-14) * scale;
  const bad: string[] = [];
  gv.forEach((g, i) => {
    const w = wv[i]!;
    if (!closeEnough(g, w, rtol, atol)) bad.push(`[${i}] ${g} vs ${w}`);
    else if (spec.signedZeros && w === 0 && g === 0 && Object.is(g, -0) !== Object.is(w, -0)) bad.push(`[${i}] ${Object.is(g, -0) ? '-0' : '0'} vs ${Object.is(w, -0) ? '-0' : '0'}`);
  });
  expect(bad.slice(0, 8), `${where}: ${bad.length} of ${wv.length} differ`).toEqual([]);
}

async function runProgram(p: Program, spec: Spec, chunkSize?: number): Promise<void> {
  const ck: Ck = chunkSize === undefined ? {} : { chunkSize };
  const I: Inp = (name) => {
    const e = p.inputs[name];
    if (!e) throw new Error(`${p.name}: no input ${name}`);
    return mt.tensor(dec(e.data!) as number[], { dtype: e.dtype as mt.DType, ...ck });
  };
  const out = spec.run(I, ck);
  expect(Object.keys(out).sort(), `${p.name} outputs`).toEqual(Object.keys(p.outputs).sort());
  for (const [key, want] of Object.entries(p.outputs)) await compare(p.name, key, out[key], want, spec);
}

describe('science programs against NumPy', () => {
  it('has a translation for every program of the fixture', () => {
    expect(Object.keys(programs).sort()).toEqual(fixture.map((p) => p.name).sort());
  });
  for (const p of fixture) {
    const spec = programs[p.name];
    if (!spec) continue;
    it(p.name, async () => { await runProgram(p, spec); });
  }
});

describe('science programs, inputs in chunks of 7', () => {
  for (const p of fixture) {
    const spec = programs[p.name];
    if (!spec?.tiled) continue;
    it(p.name, async () => { await runProgram(p, spec, 7); });
  }
});
