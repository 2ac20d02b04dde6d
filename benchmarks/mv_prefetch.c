/* Software prefetch in a matrix-vector sweep over 8 rows side by side (bicg's fused pair: q[i] = A[i, :] . p
   and s += r[i] A[i, :]), at atax's bench size (2800 x 3200 float64, 71.7 MB), one thread.

       gcc -O3 -march=native -ffast-math -mprefer-vector-width=512 benchmarks/mv_prefetch.c -o /tmp/mv_prefetch
       /tmp/mv_prefetch 25 64      # rounds, prefetch distance in doubles (0: none)

   Ways, interleaved in each round (thread CPU ms, min over rounds):
     dot8     the 8 dot products only (a pure read of A, the bound)
     fused8   bicg's shape as plain C (gcc vectorizes it)
     fused8v  the same with AVX-512 intrinsics, one zmm per row per step, and a prefetcht0 per row per step
              (one per line) DIST doubles ahead
     block8   atax's shape: the 8 dot products, then y's partial += the 8 rows from L2
   POLYFUSE_PREFETCH is the same idea in polyfuse's generated code.  docs/performance.md, *Session 37:
   matrix-vector kernels against the triad (mv50)*. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M = 2800, N = 3200, B = 8, WAYS = 4 };
static int DIST = 0;
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static void dot8(const double *A, const double *p, double *q, double *sp, const double *r) {
  (void)sp; (void)r;
  for (int i = 0; i < M; i += B) {
    double t[B] = {0};
    for (int j = 0; j < N; j++)
      for (int k = 0; k < B; k++) t[k] += A[(size_t)(i + k) * N + j] * p[j];
    for (int k = 0; k < B; k++) q[i + k] = t[k];
  }
}

static void fused8(const double *A, const double *p, double *q, double *sp, const double *r) {
  for (int i = 0; i < M; i += B) {
    double t[B] = {0};
    for (int j = 0; j < N; j++) {
      double s = sp[j];
      for (int k = 0; k < B; k++) { double a = A[(size_t)(i + k) * N + j]; t[k] += a * p[j]; s += r[i + k] * a; }
      sp[j] = s;
    }
    for (int k = 0; k < B; k++) q[i + k] = t[k];
  }
}

static void fused8v(const double *A, const double *p, double *q, double *sp, const double *r) {
  for (int i = 0; i < M; i += B) {
    __m512d t[B], rr[B];
    const double *row[B];
    for (int k = 0; k < B; k++) { t[k] = _mm512_setzero_pd(); rr[k] = _mm512_set1_pd(r[i + k]); row[k] = A + (size_t)(i + k) * N; }
    for (int j = 0; j < N; j += 8) {
      __m512d pj = _mm512_loadu_pd(p + j), s = _mm512_loadu_pd(sp + j);
      if (DIST)
        for (int k = 0; k < B; k++) _mm_prefetch((const char *)(row[k] + j + DIST), _MM_HINT_T0);
      for (int k = 0; k < B; k++) {
        __m512d a = _mm512_loadu_pd(row[k] + j);
        t[k] = _mm512_fmadd_pd(a, pj, t[k]);
        s = _mm512_fmadd_pd(rr[k], a, s);
      }
      _mm512_storeu_pd(sp + j, s);
    }
    for (int k = 0; k < B; k++) q[i + k] = _mm512_reduce_add_pd(t[k]);
  }
}

static void block8(const double *A, const double *p, double *q, double *sp, const double *r) {
  (void)r;
  for (int i = 0; i < M; i += B) {
    double t[B] = {0};
    for (int j = 0; j < N; j++)
      for (int k = 0; k < B; k++) t[k] += A[(size_t)(i + k) * N + j] * p[j];
    for (int k = 0; k < B; k++) q[i + k] = t[k];
    for (int j = 0; j < N; j++) {
      double s = sp[j];
      for (int k = 0; k < B; k++) s += A[(size_t)(i + k) * N + j] * t[k];
      sp[j] = s;
    }
  }
}

typedef void (*way_fn)(const double *, const double *, double *, double *, const double *);

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 25;
  DIST = argc > 2 ? atoi(argv[2]) : 0;
  double *A = aligned_alloc(64, sizeof(double) * M * N), *p = malloc(8 * N), *q = malloc(8 * M);
  double *sp = aligned_alloc(64, 8 * N), *r = malloc(8 * M);
  for (size_t i = 0; i < (size_t)M * N; i++) A[i] = (i % 7) * 0.1;
  for (int j = 0; j < N; j++) p[j] = 1.0 + j % 3;
  for (int i = 0; i < M; i++) r[i] = 0.5 + i % 5;
  way_fn fns[WAYS] = {dot8, fused8, fused8v, block8};
  const char *names[WAYS] = {"dot8", "fused8", "fused8v", "block8"};
  double best[WAYS];
  for (int w = 0; w < WAYS; w++) best[w] = 1e9;
  for (int round = 0; round < rounds; round++)
    for (int w = 0; w < WAYS; w++) {
      memset(sp, 0, 8 * N);
      double c = now();
      fns[w](A, p, q, sp, r);
      c = now() - c;
      if (c < best[w]) best[w] = c;
    }
  for (int w = 0; w < WAYS; w++) printf("%-8s %.3f ms  %.1f GB/s\n", names[w], best[w] * 1e3, 8.0 * M * N / best[w] / 1e9);
  return 0;
}
