"""pandas' merge on bench/merge.js's shapes: x of n rows (string keys id1 of
100 distinct values and id2 of 1e4, a float v1) merged on a string key with
a small table (100 rows) and a medium one (1e4 rows), inner and left. The
strings are Python objects, as pandas 1.5 reads them. Prints one JSON line
per case (the fastest of `runs`).

    /usr/bin/python3 bench/merge_pandas.py [n] [runs]"""
import json, sys, time
import numpy as np
import pandas as pd

n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
rng = np.random.default_rng(1)
names = lambda k, f=1: np.array([f'id{i + f}' for i in range(k)], dtype=object)
x = pd.DataFrame({'id1': names(100)[rng.integers(0, 100, n)], 'id2': names(10000)[rng.integers(0, 10000, n)], 'v1': rng.random(n)})
tables = {'small': ('id1', pd.DataFrame({'id1': names(100, 11), 'v2': rng.random(100)})),
          'medium': ('id2', pd.DataFrame({'id2': names(10000, 1001), 'v2': rng.random(10000)}))}
for size, (on, y) in tables.items():
    for how in ['inner', 'left']:
        best, rows = float('inf'), 0
        for _ in range(runs):
            t = time.perf_counter()
            rows = len(x.merge(y, on=on, how=how))
            best = min(best, time.perf_counter() - t)
        print(json.dumps({'case': f'{size} ({len(y)} rows) {how} on a string key', 'n': n, 'ms': round(best * 1000), 'rows': rows}))
