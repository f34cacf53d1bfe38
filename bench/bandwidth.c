// Memory read bandwidth of this machine, with and without transparent huge
// pages: what bounds the sum and argmax rows (README, "Benchmarks"). Sums a
// 5000 x 5000 float64 array (200 MB) on T threads, 15 times, and prints the
// median. NumPy madvises its large arrays for huge pages; a WebAssembly memory
// cannot ask for them.
//
//   gcc -O3 -march=native -ffast-math -pthread bench/bandwidth.c -o /tmp/bandwidth
//   /tmp/bandwidth 1 0; /tmp/bandwidth 2 0; /tmp/bandwidth 1 1; /tmp/bandwidth 2 1     # threads, huge pages
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define N (5000 * 5000)
static double *a;
static volatile double res[8]; // read back, so the loops are not optimised away
static int T;

static void *run(void *p) {
  long t = (long)p;
  size_t lo = (size_t)N / T * t, hi = (size_t)N / T * (t + 1);
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = lo; i < hi; i += 4) { s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3]; }
  res[t] = s0 + s1 + s2 + s3;
  return 0;
}

static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }
static int cmp(const void *x, const void *y) { double d = *(const double *)x - *(const double *)y; return (d > 0) - (d < 0); }

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s threads(1-8) hugepages(0|1)\n", argv[0]); return 2; }
  T = atoi(argv[1]);
  int huge = atoi(argv[2]);
  if (T < 1 || T > 8) { fprintf(stderr, "threads must be 1 to 8\n"); return 2; }
  a = aligned_alloc(1 << 21, 8 * (size_t)N);
  if (huge) madvise(a, 8 * (size_t)N, MADV_HUGEPAGE);
  for (size_t i = 0; i < N; i++) a[i] = i % 7;
  double ts[15];
  for (int r = 0; r < 15; r++) {
    double t0 = now();
    pthread_t th[8];
    for (long t = 0; t < T; t++) pthread_create(&th[t], 0, run, (void *)t);
    for (int t = 0; t < T; t++) pthread_join(th[t], 0);
    ts[r] = now() - t0;
  }
  qsort(ts, 15, sizeof ts[0], cmp);
  double total = 0;
  for (int t = 0; t < T; t++) total += res[t];
  printf("threads=%d hugepages=%d median %.1f GB/s (sum %.0f)\n", T, huge, 8.0 * N / ts[7] / 1e9, total);
  return 0;
}
