#!/usr/bin/env python3
"""NumPy side of `npm run bench`: the same protocol as bench/child.js.

One process serves one case. It prints {"ready": true, "version", "threads"}
first, then answers one JSON line per command read on stdin:
  {"cmd": "prepare", "bench", "size", "dtype"} -> {"ok": true, "setup_s"} | {"ok": false, "error"}
  {"cmd": "run"}                               -> {"t", "answer"} | {"error"}
  {"cmd": "end"}                               -> {"max_rss_bytes"}, then exits
Inputs are the deterministic arrays of bench/data.js (the same uint32 hash,
with wrapping uint32 arithmetic), so answers match the other libraries'.
Monte Carlo sizes above 1e8 are drawn in 1e7-point pieces, as a NumPy user
would do to stay within memory.
"""
import json
import os
import resource
import sys
import time

try:
    import numpy as np
except Exception as e:  # reported by run.js as "not run"
    print(json.dumps({"ready": False, "error": f"numpy import failed: {e}"}), flush=True)
    sys.exit(0)

STREAM = 0x9E3779B9
STREAMS = {"a": 1, "b": 2, "x": 3, "y": 4}
PI_WHOLE_MAX = 100_000_000
PI_CHUNK = 10_000_000


def fill(s, n, dtype):
    """Element i of stream s: (lowbias32(i + s * 0x9E3779B9) + 0.5) / 2**32 (see bench/data.js)."""
    x = np.arange(n, dtype=np.uint32)
    x += np.uint32((s * STREAM) % 2**32)
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    v = x.astype(np.float64)
    del x
    v += 0.5
    v /= 4294967296.0
    return v if dtype == "float64" else v.astype(dtype)


def probe(n):
    j = np.arange(n, dtype=np.uint32) + np.uint32(0x51ED27)
    j ^= j >> np.uint32(16)
    j *= np.uint32(0x7FEB352D)
    j ^= j >> np.uint32(15)
    j *= np.uint32(0x846CA68B)
    j ^= j >> np.uint32(16)
    return np.where(j & np.uint32(1), 1.0, -1.0)


def pieces(n):
    if n <= PI_WHOLE_MAX:
        return [n]
    return [min(PI_CHUNK, n - k) for k in range(0, n, PI_CHUNK)]


def prepare(c):
    bench, n, dt = c["bench"], int(c["size"]), c.get("dtype", "float64")
    if bench == "mc_pi":
        rng = np.random.default_rng(1)
        ps = pieces(n)

        def run():
            inside = 0
            for m in ps:
                # float32: NumPy's own float32 draws (24 bits), then float32 arithmetic
                d = rng.random((m, 2), dtype=np.float32) * 2 - 1 if dt == "float32" else rng.uniform(-1, 1, (m, 2))
                inside += int((np.sqrt((d**2).sum(axis=1)) < 1).sum())
            return 4 * inside / n

        note = f"in 1e{len(str(PI_CHUNK)) - 1}-point pieces" if len(ps) > 1 else None
        return run, lambda pi: pi, note
    if bench == "mean_expr":
        a = fill(STREAMS["a"], n, dt)
        b = fill(STREAMS["b"], n, dt)
        return (lambda: float(((a * 2 + b) ** 2).mean())), (lambda v: v), None
    if bench in ("sum_axis0", "sum_axis1", "argmax_axis0", "argmax_axis1"):
        x = fill(STREAMS["x"], n * n, dt).reshape(n, n)
        fn = np.sum if bench.startswith("sum") else np.argmax
        axis = int(bench[-1])
        return (lambda: fn(x, axis=axis)), (lambda r: r.tolist()), None
    if bench == "matmul":
        x = fill(STREAMS["x"], n * n, dt).reshape(n, n)
        y = fill(STREAMS["y"], n * n, dt).reshape(n, n)
        w = probe(n)
        return (lambda: x @ y), (lambda r: (r.astype(np.float64) @ w).tolist()), None
    raise ValueError(f"unknown bench {bench}")


def main():
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or str(os.cpu_count())
    print(json.dumps({"ready": True, "version": np.__version__, "threads": f"1 thread; BLAS on {threads}"}), flush=True)
    run = answer = None
    for line in sys.stdin:
        if not line.strip():
            continue
        m = json.loads(line)
        try:
            if m["cmd"] == "prepare":
                t0 = time.perf_counter()
                run, answer, note = prepare(m)
                out = {"ok": True, "setup_s": time.perf_counter() - t0}
                if note:
                    out["note"] = note
            elif m["cmd"] == "run":
                t0 = time.perf_counter()
                r = run()
                t = time.perf_counter() - t0
                out = {"t": t, "answer": answer(r)}
                r = None
            elif m["cmd"] == "end":
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
                print(json.dumps({"max_rss_bytes": rss}), flush=True)
                return
            else:
                out = {"error": f"unknown command {m['cmd']}"}
        except Exception as e:
            key = "error"
            out = {"ok": False, key: f"{type(e).__name__}: {e}"[:240]} if m.get("cmd") == "prepare" else {key: f"{type(e).__name__}: {e}"[:240]}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
