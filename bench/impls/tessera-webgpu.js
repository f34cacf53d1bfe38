// Tessera with options.device = 'webgpu': the same programs as tessera.js,
// their float32 and 32-bit integer kernels on the WebGPU adapter (Dawn in
// Node; SwiftShader on the CPU where the machine has no GPU), float64 work
// on WASM. Float64 cases are skipped: they would only repeat the WASM row.

import { setup as tessera } from './tessera.js';

export async function setup() {
  const t = await tessera({ device: 'webgpu' });
  const { runtime } = await import(new URL('../../dist/runtime/runtime.js', import.meta.url).href);
  const gpu = await runtime.gpuDevice();
  return {
    ...t,
    info: { version: t.info.version, threads: gpu ? gpu.info.adapter : 'no WebGPU adapter' },
    async prepare(c) {
      if (c.dtype === 'float64') return { skip: 'float64 runs on WASM' };
      if (!gpu) return { skip: 'no WebGPU adapter' };
      return t.prepare(c);
    },
  };
}
