#!/usr/bin/env node
// Installs what the tests need from the system, once: Debian's chromium (its
// SwiftShader Vulkan driver runs WebGPU on the CPU where there is no GPU, and
// it is the browser the page tests drive) and libvulkan1 (the Vulkan loader
// the `webgpu` package's Dawn opens), and /usr/bin/python3's pandas,
// scikit-learn and SciPy, which regenerate the committed fixtures
// (test/fixtures/gen_*.py) and give the benchmarks their reference answers.
// `npm test` runs this first; it does nothing when all are present.
// Installing needs root and apt-get.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const ICDS = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib/chromium-browser/vk_swiftshader_icd.json'];
const has = {
  chromium: ['/usr/bin/chromium', '/usr/bin/chromium-browser'].some((p) => existsSync(p)) && ICDS.some((p) => existsSync(p)),
  libvulkan1: (() => {
    try { return execFileSync('ldconfig', ['-p'], { encoding: 'utf8' }).includes('libvulkan.so.1'); } catch { return false; }
  })(),
  ...Object.fromEntries([['python3-pandas', 'pandas'], ['python3-sklearn', 'sklearn'], ['python3-scipy', 'scipy']].map(([pkg, mod]) => [pkg, (() => {
    try { execFileSync('/usr/bin/python3', ['-c', `import ${mod}`], { stdio: 'ignore' }); return true; } catch { return false; }
  })()])),
};
const missing = Object.entries(has).filter(([, ok]) => !ok).map(([name]) => name);
if (missing.length === 0) process.exit(0);

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const apt = existsSync('/usr/bin/apt-get');
if (!root || !apt) {
  console.error(`tessera: the tests need ${missing.join(', ')} from Debian; run as root: apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  process.exit(1);
}
console.error(`tessera: installing ${missing.join(', ')} (apt-get) for the tests and their fixtures`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
const install = () => execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
try {
  install();
} catch {
  execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  install();
}
