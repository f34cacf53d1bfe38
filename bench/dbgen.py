#!/usr/bin/env python3
"""The h2o db-benchmark's data, as CSV files in bench/data/, for bench/dataframe.js.

Follows the db-benchmark's own generators (h2oai/db-benchmark, _data/):

- groupby-datagen.R, G1_<N>_<K>_0_0.csv (no NAs, random order): id1, id2
  "id%03d" of K values, id3 "id%010d" of N/K values, id4, id5 ints 1..K,
  id6 int 1..N/K, v1 int 1..5, v2 int 1..15, v3 uniform(0, 100) rounded to 6
  decimals.
- join-datagen.R, J1_<N>_NA_0_0.csv and its right-hand tables of N/1e6
  (small), N/1e3 (medium) and N (big) rows: the keys of each id column are
  split 0.9 : 0.1 : 0.1 into common (x), left-only (l) and right-only (r);
  the left table draws its id1..id3 from x + l, every key at least once
  (sample_all), the right tables from x + r; id4..id6 are "id%.0f" of
  id1..id3; v1 (left) and v2 (right) uniform(0, 100) rounded to 6 decimals.
  (The R script needs N >= 1e7; below, the small table keeps one key.)
- ML_<N>.csv, MovieLens-shaped ratings (not part of the db-benchmark):
  userId 1..162000 and movieId 1..59000 drawn with log-normal weights (a few
  heavy users and popular movies, as in MovieLens 25M), rating 0.5..5.0 in
  steps of 0.5 written "3.5", "4.0", timestamp an int of 1996-2019 seconds.

NumPy's generator seeded with 108 (the R scripts' seed; R's stream is not
reproduced, so values differ from the db-benchmark's files but follow the
same distributions). Rows are formatted without a per-row Python loop: each
field is written as digits into one byte buffer per block of rows, at
offsets from the cumulative row lengths, as data.table's fwrite prints them
(shortest decimals: 50 for 50.000000, 23.57 for 23.570000). A file that
already exists is kept.

  python3 bench/dbgen.py [--rows 1e7] [--k 100] [--ratings 2e7] [--out bench/data]

prints one JSON line: {"groupby": path, "join": {"x", "small", "medium",
"big"}, "ratings": path, "made": [files written this time], "seconds"}.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

BLOCK = 1 << 20
SEED = 108


def pretty_sci(n):
    """1e7 -> '1e7', 2e6 -> '2e6', as the db-benchmark names its files."""
    n = int(n)
    e = len(str(n)) - 1
    return f"{n // 10 ** e}e{e}"


class Int:
    """An int field: prefix, then the value's decimal digits, zero-padded to pad."""

    def __init__(self, values, prefix=b"", pad=1):
        self.v = np.asarray(values, dtype=np.int64)
        self.prefix = np.frombuffer(prefix, dtype=np.uint8)
        self.pad = pad

    def __len__(self):
        return len(self.v)

    def take(self, sl):
        return Int(self.v[sl], self.prefix.tobytes(), self.pad)

    def digits(self):
        nd = np.ones(len(self.v), dtype=np.int64)
        for p in range(1, 19):
            nd += self.v >= 10 ** p
        return np.maximum(nd, self.pad)

    def lengths(self):
        self.nd = self.digits()
        return len(self.prefix) + self.nd

    def write(self, buf, pos):
        for j, c in enumerate(self.prefix):
            buf[pos + j] = c
        end = pos + len(self.prefix) + self.nd - 1
        v = self.v.copy()
        for j in range(int(self.nd.max(initial=1))):
            m = self.nd > j
            buf[end[m] - j] = 48 + v[m] % 10
            v //= 10


class Decimal:
    """A non-negative number of `places` decimals held as an int of 10**-places units:
    its integer part, then '.' and the fraction's digits without trailing zeros (at
    least `keep` of them)."""

    def __init__(self, units, places, keep=0):
        self.u = np.asarray(units, dtype=np.int64)
        self.places = places
        self.keep = keep

    def __len__(self):
        return len(self.u)

    def take(self, sl):
        return Decimal(self.u[sl], self.places, self.keep)

    def lengths(self):
        scale = 10 ** self.places
        self.whole = Int(self.u // scale)
        self.frac = self.u % scale
        nfrac = np.full(len(self.u), self.places, dtype=np.int64)
        f = self.frac.copy()
        for _ in range(self.places - self.keep):
            z = (f % 10 == 0) & (nfrac > self.keep)
            nfrac -= z
            f = np.where(z, f // 10, f)
        self.nfrac = nfrac
        self.wlen = self.whole.lengths()
        return self.wlen + np.where(nfrac > 0, 1 + nfrac, 0)

    def write(self, buf, pos):
        self.whole.write(buf, pos)
        dot = pos + self.wlen
        has = self.nfrac > 0
        buf[dot[has]] = ord(".")
        for j in range(self.places):
            m = self.nfrac > j
            buf[dot[m] + 1 + j] = 48 + (self.frac[m] // 10 ** (self.places - 1 - j)) % 10


def write_csv(path, header, fields):
    """Writes the fields (Int / Decimal of equal length) as CSV rows, BLOCK rows at a time."""
    n = len(fields[0])
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write((",".join(header) + "\n").encode())
        for a in range(0, n, BLOCK):
            sl = slice(a, min(n, a + BLOCK))
            block = [x.take(sl) for x in fields]
            lens = [x.lengths() for x in block]
            row = sum(lens) + len(block)
            start = np.concatenate(([0], np.cumsum(row)[:-1]))
            buf = np.empty(int(row.sum()), dtype=np.uint8)
            pos = start
            for i, (x, ln) in enumerate(zip(block, lens)):
                x.write(buf, pos)
                pos = pos + ln
                buf[pos] = ord("\n") if i == len(block) - 1 else ord(",")
                pos = pos + 1
            f.write(buf.tobytes())
    os.replace(tmp, path)


def uniform6(rng, n):
    """round(runif(n, max=100), 6) as an int of 1e-6 units."""
    return np.rint(rng.random(n) * 1e8).astype(np.int64)


def groupby_data(rng, n, k):
    ik = lambda hi: rng.integers(1, hi + 1, n)
    return ["id1", "id2", "id3", "id4", "id5", "id6", "v1", "v2", "v3"], [
        Int(ik(k), b"id", 3), Int(ik(k), b"id", 3), Int(ik(n // k), b"id", 10),
        Int(ik(k)), Int(ik(k)), Int(ik(n // k)),
        Int(ik(5)), Int(ik(15)), Decimal(uniform6(rng, n), 6),
    ]


def split_xlr(rng, n):
    """join-datagen.R's split_xlr: n * 1.1 keys, shuffled, as common, left-only, right-only."""
    nx, nl = max(1, int(n * 0.9)), int(n * 0.1)
    key = rng.permutation(nx + 2 * nl) + 1
    return key[:nx], key[nx:nx + nl], key[nx + nl:]


def sample_all(rng, keys, size):
    """join-datagen.R's sample_all: every key at least once, the rest drawn, shuffled."""
    return rng.permutation(np.concatenate((keys, rng.choice(keys, size - len(keys)))))


def join_data(rng, n):
    """The left table and the small, medium and big right tables, as (header, fields)."""
    keys = [split_xlr(rng, max(1, n // d)) for d in (10 ** 6, 10 ** 3, 1)]
    left = [sample_all(rng, np.concatenate((x, l)), n) for x, l, _ in keys]
    right = lambda i, size: sample_all(rng, np.concatenate((keys[i][0], keys[i][2])), size)
    tables = {"x": (left, "v1", n)}
    for name, d, ncol in (("small", 10 ** 6, 1), ("medium", 10 ** 3, 2), ("big", 1, 3)):
        size = max(1, n // d)
        tables[name] = ([right(i, size) for i in range(ncol)], "v2", size)
    out = {}
    for name, (ids, v, size) in tables.items():
        header = [f"id{i + 1}" for i in range(len(ids))] + [f"id{i + 4}" for i in range(len(ids))] + [v]
        fields = [Int(c) for c in ids] + [Int(c, b"id") for c in ids] + [Decimal(uniform6(rng, size), 6)]
        out[name] = (header, fields)
    return out


def ratings_data(rng, n):
    def skewed(count):
        w = rng.lognormal(0.0, 1.2, count)
        return np.searchsorted(np.cumsum(w / w.sum()), rng.random(n), side="right").clip(0, count - 1) + 1
    return ["userId", "movieId", "rating", "timestamp"], [
        Int(skewed(162000)), Int(skewed(59000)), Decimal(rng.integers(1, 11, n) * 5, 1, keep=1),
        Int(rng.integers(820454400, 1574380800, n)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--ratings", type=float, default=2e7)
    ap.add_argument("--only", default="groupby,join,ratings", help="the data sets to write (comma-separated)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    a = ap.parse_args()
    n, m = int(a.rows), int(a.ratings)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.perf_counter()
    at = lambda name: os.path.join(a.out, name + ".csv")
    jn = f"J1_{pretty_sci(n)}_NA_0_0"
    ydiv = {"small": 10 ** 6, "medium": 10 ** 3, "big": 1}
    paths = {
        "groupby": at(f"G1_{pretty_sci(n)}_{pretty_sci(a.k)}_0_0"),
        "join": {"x": at(jn), **{k: at(jn.replace("NA", pretty_sci(max(1, n // d)))) for k, d in ydiv.items()}},
        "ratings": at(f"ML_{pretty_sci(m)}"),
    }
    made, only = [], set(a.only.split(","))
    if "groupby" in only and not os.path.exists(paths["groupby"]):
        write_csv(paths["groupby"], *groupby_data(np.random.default_rng(SEED), n, a.k))
        made.append(paths["groupby"])
    if "join" in only and not all(os.path.exists(p) for p in paths["join"].values()):
        for name, (header, fields) in join_data(np.random.default_rng(SEED), n).items():
            write_csv(paths["join"][name], header, fields)
            made.append(paths["join"][name])
    if "ratings" in only and not os.path.exists(paths["ratings"]):
        write_csv(paths["ratings"], *ratings_data(np.random.default_rng(SEED), m))
        made.append(paths["ratings"])
    print(json.dumps({**paths, "made": made, "seconds": round(time.perf_counter() - t0, 1)}))


if __name__ == "__main__":
    sys.exit(main())
