// A minimal WebAssembly binary writer: LEB128, sections, and an instruction
// buffer with named opcodes. Just enough for the kernel emitter; no parser,
// no text format, no toolchain shipped to a tab.

export const enum T { i32 = 0x7f, i64 = 0x7e, f32 = 0x7d, f64 = 0x7c, v128 = 0x7b, void = 0x40 }

export function uleb(n: number | bigint, out: number[] = []): number[] {
  let v = BigInt(n);
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

export function sleb(n: number | bigint, out: number[] = []): number[] {
  let v = BigInt(n);
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && (byte & 0x40) === 0) || (v === -1n && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const str = (s: string): number[] => { const b = [...new TextEncoder().encode(s)]; return [...uleb(b.length), ...b]; };
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];

/** Instruction bytes for one function body. */
export class Code {
  readonly bytes: number[] = [];
  op(...b: number[]): this { this.bytes.push(...b); return this; }
  i32(v: number): this { this.bytes.push(0x41, ...sleb(v | 0)); return this; }
  i64(v: number | bigint): this { this.bytes.push(0x42, ...sleb(BigInt.asIntN(64, BigInt(v)))); return this; }
  f32(v: number): this { const b = new Uint8Array(new Float32Array([v]).buffer); this.bytes.push(0x43, ...b); return this; }
  f64(v: number): this { const b = new Uint8Array(new Float64Array([v]).buffer); this.bytes.push(0x44, ...b); return this; }
  get(l: number): this { this.bytes.push(0x20, ...uleb(l)); return this; }
  set(l: number): this { this.bytes.push(0x21, ...uleb(l)); return this; }
  tee(l: number): this { this.bytes.push(0x22, ...uleb(l)); return this; }
  call(f: number): this { this.bytes.push(0x10, ...uleb(f)); return this; }
  /** Memory access with natural alignment log2 `align` and byte offset. */
  mem(opcode: number, align: number, offset = 0): this { this.bytes.push(opcode, align, ...uleb(offset)); return this; }
  block(t: T | number = T.void): this { this.bytes.push(0x02, t); return this; }
  loop(t: T | number = T.void): this { this.bytes.push(0x03, t); return this; }
  if(t: T | number = T.void): this { this.bytes.push(0x04, t); return this; }
  else(): this { this.bytes.push(0x05); return this; }
  end(): this { this.bytes.push(0x0b); return this; }
  br(d: number): this { this.bytes.push(0x0c, ...uleb(d)); return this; }
  brIf(d: number): this { this.bytes.push(0x0d, ...uleb(d)); return this; }
  /** 0xFC-prefixed instruction (saturating truncations, bulk memory). */
  fc(sub: number): this { this.bytes.push(0xfc, ...uleb(sub)); return this; }
  /** 0xFD-prefixed SIMD128 instruction, with its immediate bytes (lane index, shuffle pattern). */
  v(sub: number, ...imm: number[]): this { this.bytes.push(0xfd, ...uleb(sub), ...imm); return this; }
  /** SIMD128 memory access: subopcode, alignment log2, byte offset (and a lane index for *_lane). */
  vmem(sub: number, align: number, offset = 0, ...lane: number[]): this { this.bytes.push(0xfd, ...uleb(sub), align, ...uleb(offset), ...lane); return this; }
  /** v128.const of sixteen zero bytes. */
  vzero(): this { this.bytes.push(0xfd, 0x0c, ...new Array<number>(16).fill(0)); return this; }
  /** v128.const of four 32-bit lanes. */
  vconst32(lanes: readonly number[]): this {
    const b = new Uint8Array(new Uint32Array(lanes.map((x) => x >>> 0)).buffer);
    this.bytes.push(0xfd, 0x0c, ...b);
    return this;
  }
}

/** SIMD128 subopcodes used by the emitters (after the 0xFD prefix). */
export const V = {
  load: 0x00, load32_splat: 0x09, load64_splat: 0x0a, store: 0x0b, shuffle: 0x0d,
  f32x4_splat: 0x13, f64x2_splat: 0x14, i64x2_splat: 0x12,
  f32x4_extract: 0x1f, f32x4_replace: 0x20, f64x2_extract: 0x21, f64x2_replace: 0x22, i64x2_extract: 0x1d,
  f32x4_eq: 0x41, f32x4_ne: 0x42, f32x4_lt: 0x43, f32x4_gt: 0x44, f32x4_le: 0x45, f32x4_ge: 0x46,
  f64x2_eq: 0x47, f64x2_ne: 0x48, f64x2_lt: 0x49, f64x2_gt: 0x4a, f64x2_le: 0x4b, f64x2_ge: 0x4c,
  i32x4_bitmask: 0xa4, i64x2_bitmask: 0xc4,
  not: 0x4d, and: 0x4e, andnot: 0x4f, or: 0x50, bitselect: 0x52, any_true: 0x53,
  store32_lane: 0x5a, store64_lane: 0x5b, load64_zero: 0x5d, f64x2_promote_low_f32x4: 0x5f,
  xor: 0x51, i32x4_splat: 0x11, i32x4_add: 0xae, i32x4_mul: 0xb5, i32x4_shr_u: 0xad, f64x2_convert_low_i32x4_s: 0xfe,
  i64x2_add: 0xce, i64x2_eq: 0xd6, i64x2_extmul_low_i32x4_u: 0xde, i64x2_extmul_high_i32x4_u: 0xdf,
  f32x4_abs: 0xe0, f32x4_neg: 0xe1, f32x4_sqrt: 0xe3, f32x4_add: 0xe4, f32x4_sub: 0xe5, f32x4_mul: 0xe6, f32x4_div: 0xe7, f32x4_min: 0xe8, f32x4_max: 0xe9,
  f64x2_abs: 0xec, f64x2_neg: 0xed, f64x2_sqrt: 0xef, f64x2_add: 0xf0, f64x2_sub: 0xf1, f64x2_mul: 0xf2, f64x2_div: 0xf3, f64x2_min: 0xf4, f64x2_max: 0xf5,
} as const;

export interface FuncType { params: T[]; results: T[] }
export interface Func { type: number; locals: T[]; code: Code; export?: string }
export interface Import { module: string; name: string; type: number }

/**
 * A module of one exported function `name` over a plain (unshared) imported
 * memory env.memory of at least one page: the hand-written kernels'
 * (k-nearest neighbours, k-means), each instance owned by one thread.
 */
export function assembleOne(name: string, params: T[], results: T[], locals: T[], code: Code): Uint8Array<ArrayBuffer> {
  const typeSec = section(1, vec([[0x60, ...vec(params.map((p) => [p])), ...vec(results.map((r) => [r]))]]));
  const importSec = section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, ...uleb(1)]]));
  const funcSec = section(3, vec([uleb(0)]));
  const exportSec = section(7, vec([[...str(name), 0x00, ...uleb(0)]]));
  const groups: number[][] = [];
  for (const t of locals) {
    const last = groups[groups.length - 1];
    if (last && last[1] === t) last[0]!++;
    else groups.push([1, t]);
  }
  const body = [...vec(groups.map(([k, t]) => [...uleb(k!), t!])), ...code.bytes, 0x0b];
  const codeSec = section(10, vec([[...uleb(body.length), ...body]]));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...typeSec, ...importSec, ...funcSec, ...exportSec, ...codeSec]);
}

/** Assembles a module that imports a shared memory as env.memory. */
export function assemble(types: FuncType[], imports: Import[], funcs: Func[], maxPages: number): Uint8Array {
  const typeSec = section(1, vec(types.map((t) => [0x60, ...vec(t.params.map((p) => [p])), ...vec(t.results.map((r) => [r]))])));
  const memImport = [...str('env'), ...str('memory'), 0x02, 0x03, ...uleb(1), ...uleb(maxPages)];
  const importSec = section(2, vec([...imports.map((i) => [...str(i.module), ...str(i.name), 0x00, ...uleb(i.type)]), memImport]));
  const funcSec = section(3, vec(funcs.map((f) => uleb(f.type))));
  const exports = funcs.map((f, i) => ({ f, i })).filter(({ f }) => f.export);
  const exportSec = section(7, vec(exports.map(({ f, i }) => [...str(f.export!), 0x00, ...uleb(imports.length + i)])));
  const codeSec = section(10, vec(funcs.map((f) => {
    const groups: number[][] = [];
    for (const t of f.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]!++;
      else groups.push([1, t]);
    }
    const body = [...vec(groups.map(([n, t]) => [...uleb(n!), t!])), ...f.code.bytes, 0x0b];
    return [...uleb(body.length), ...body];
  })));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...typeSec, ...importSec, ...funcSec, ...exportSec, ...codeSec]);
}
