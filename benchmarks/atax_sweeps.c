/* atax (y = A^T (A x)) at the bench size: how its two sweeps over a block of rows could overlap
   memory with compute.  Each thread takes a contiguous half of the rows and sums into its own
   partial y (as polyfuse's private sums do), the partials added at the end.

       gcc -O3 -march=native -ffast-math -mprefer-vector-width=512 -fopenmp \
           benchmarks/atax_sweeps.c -o /tmp/atax_sweeps
       OMP_NUM_THREADS=2 /tmp/atax_sweeps 30      # rounds; OMP_NUM_THREADS=1 for one core

   Ways, interleaved in each round (min over rounds of the wall time, of the summed thread CPU
   time, and of the slowest thread's CPU time):
     block8   polyfuse's shape: per 8 rows, a sweep of the 8 dot products (the rows from memory),
              then a sweep adding the 8 rows into y's partial (from L1/L2: memory idles there)
     skew8    one sweep per 8 rows: the dot products of the next 8 rows and the update of y with
              this block's 8 rows side by side (the next block streams in while this one is added)
     row1     per row: the dot product, then y += tmp[i] * A[i, :] at once (the row in L1)
     skew1    per row, skewed: the dot product of row i + 1 beside the update with row i
     block8pf block8, its second sweep prefetching the first lines of the next block's 8 rows
   -ffast-math only lets gcc vectorize the dot products (polyfuse reassociates them the same way
   under its private sums); every way's y is checked against block8's.  docs/performance.md,
   *Session 35 (mv45)*. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { M = 2800, N = 3200, B = 8, WAYS = 5 };
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }

static void block8(const double *A, const double *x, double *yp, double *tmp, int r0, int r1) {
  int i = r0;
  for (; i + B <= r1; i += B) {
    double t[B] = {0};
    for (int j = 0; j < N; j++)
      for (int r = 0; r < B; r++) t[r] += A[(size_t)(i + r) * N + j] * x[j];
    for (int r = 0; r < B; r++) tmp[i + r] = t[r];
    for (int j = 0; j < N; j++) {
      double s = yp[j];
      for (int r = 0; r < B; r++) s += A[(size_t)(i + r) * N + j] * t[r];
      yp[j] = s; } }
  for (; i < r1; i++) {
    double t = 0;
    for (int j = 0; j < N; j++) t += A[(size_t)i * N + j] * x[j];
    tmp[i] = t;
    for (int j = 0; j < N; j++) yp[j] += A[(size_t)i * N + j] * t; }
}

/* block8 with software prefetch in the second sweep: one line per 8 elements of the next block's
   first lines (row j/8 % 8, line j/64), so that its streams start before its first sweep. */
static void block8pf(const double *A, const double *x, double *yp, double *tmp, int r0, int r1) {
  int i = r0;
  for (; i + B <= r1; i += B) {
    double t[B] = {0};
    for (int j = 0; j < N; j++)
      for (int r = 0; r < B; r++) t[r] += A[(size_t)(i + r) * N + j] * x[j];
    for (int r = 0; r < B; r++) tmp[i + r] = t[r];
    const double *next = A + (size_t)(i + B) * N;
    int ahead = i + 2 * B <= r1;
    for (int j = 0; j < N; j += 8) {
      if (ahead) __builtin_prefetch(next + (size_t)((j / 8) % B) * N + (j / 64) * 8, 0, 3);
      for (int k = j; k < j + 8; k++) {
        double s = yp[k];
        for (int r = 0; r < B; r++) s += A[(size_t)(i + r) * N + k] * t[r];
        yp[k] = s; } } }
  block8(A, x, yp, tmp, i, r1);
}

static void skew8(const double *A, const double *x, double *yp, double *tmp, int r0, int r1) {
  int nb = (r1 - r0) / B, i;
  double cur[B] = {0};
  if (nb > 0) {
    for (int j = 0; j < N; j++)
      for (int r = 0; r < B; r++) cur[r] += A[(size_t)(r0 + r) * N + j] * x[j];
    for (int b = 0; b < nb; b++) {
      i = r0 + b * B;
      const double *cu = A + (size_t)i * N, *nx = A + (size_t)(i + B) * N;
      double nxt[B] = {0};
      if (b + 1 < nb) {
        for (int j = 0; j < N; j++) {
          double s = yp[j];
          for (int r = 0; r < B; r++) { nxt[r] += nx[(size_t)r * N + j] * x[j]; s += cu[(size_t)r * N + j] * cur[r]; }
          yp[j] = s; }
      } else {
        for (int j = 0; j < N; j++) {
          double s = yp[j];
          for (int r = 0; r < B; r++) s += cu[(size_t)r * N + j] * cur[r];
          yp[j] = s; } }
      for (int r = 0; r < B; r++) { tmp[i + r] = cur[r]; cur[r] = nxt[r]; } } }
  for (i = r0 + nb * B; i < r1; i++) {
    double t = 0;
    for (int j = 0; j < N; j++) t += A[(size_t)i * N + j] * x[j];
    tmp[i] = t;
    for (int j = 0; j < N; j++) yp[j] += A[(size_t)i * N + j] * t; }
}

/* A row's dot product in 4 vectors of partial sums (one chain of vector adds would be bound by
   the add latency; N is a multiple of 32). */
static double dot(const double *a, const double *x) {
  double acc[32] = {0}, t = 0;
  for (int j = 0; j < N; j += 32)
    for (int k = 0; k < 32; k++) acc[k] += a[j + k] * x[j + k];
  for (int k = 0; k < 32; k++) t += acc[k];
  return t;
}

static void row1(const double *A, const double *x, double *yp, double *tmp, int r0, int r1) {
  for (int i = r0; i < r1; i++) {
    const double *a = A + (size_t)i * N;
    double t = dot(a, x);
    tmp[i] = t;
    for (int j = 0; j < N; j++) yp[j] += a[j] * t; }
}

static void skew1(const double *A, const double *x, double *yp, double *tmp, int r0, int r1) {
  if (r1 <= r0) return;
  double cur = dot(A + (size_t)r0 * N, x);
  for (int i = r0; i < r1; i++) {
    const double *a = A + (size_t)i * N, *b = a + N;
    double nxt = 0, acc[32] = {0};
    if (i + 1 < r1) {
      for (int j = 0; j < N; j += 32)
        for (int k = 0; k < 32; k++) { acc[k] += b[j + k] * x[j + k]; yp[j + k] += a[j + k] * cur; }
      for (int k = 0; k < 32; k++) nxt += acc[k];
    } else { for (int j = 0; j < N; j++) yp[j] += a[j] * cur; }
    tmp[i] = cur; cur = nxt; }
}

typedef void (*way_fn)(const double *, const double *, double *, double *, int, int);
static const way_fn FNS[WAYS] = {block8, skew8, row1, skew1, block8pf};
static const char *NAMES[WAYS] = {"block8", "skew8", "row1", "skew1", "block8pf"};

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20, T = omp_get_max_threads();
  double *A = malloc(sizeof(double) * M * N), *x = malloc(sizeof(double) * N), *tmp = malloc(sizeof(double) * M);
  double *yp = aligned_alloc(64, sizeof(double) * N * T), *y[WAYS];
  for (size_t k = 0; k < (size_t)M * N; k++) A[k] = (double)((k * 2654435761u) % 1000) / 1000.0 / M;
  for (int j = 0; j < N; j++) x[j] = 1.0 + (j % 13) / 13.0;
  double wall[WAYS], cpu[WAYS], slow[WAYS];
  for (int w = 0; w < WAYS; w++) { wall[w] = cpu[w] = slow[w] = 1e9; y[w] = malloc(sizeof(double) * N); }
  for (int it = 0; it < rounds; it++)
    for (int w = 0; w < WAYS; w++) {
      double c[64] = {0}, t0 = now(CLOCK_MONOTONIC);
      #pragma omp parallel
      {
        int me = omp_get_thread_num(), r0 = (int)((long)M * me / T), r1 = (int)((long)M * (me + 1) / T);
        double c0 = now(CLOCK_THREAD_CPUTIME_ID), *mine = yp + (size_t)me * N;
        memset(mine, 0, sizeof(double) * N);
        FNS[w](A, x, mine, tmp, r0, r1);
        c[me] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
      }
      for (int j = 0; j < N; j++) { double s = 0; for (int t = 0; t < T; t++) s += yp[(size_t)t * N + j]; y[w][j] = s; }
      double t = now(CLOCK_MONOTONIC) - t0, sum = 0, mx = 0;
      for (int k = 0; k < T; k++) { sum += c[k]; mx = c[k] > mx ? c[k] : mx; }
      if (t < wall[w]) wall[w] = t;
      if (sum < cpu[w]) cpu[w] = sum;
      if (mx < slow[w]) slow[w] = mx; }
  double la[1] = {0};
  FILE *f = fopen("/proc/loadavg", "r"); if (f) { if (fscanf(f, "%lf", la) != 1) la[0] = -1; fclose(f); }
  printf("atax %dx%d, %d thread(s), min of %d rounds, load %.1f\n", M, N, T, rounds, la[0]);
  for (int w = 0; w < WAYS; w++) {
    double err = 0;
    for (int j = 0; j < N; j++) err = fmax(err, fabs(y[w][j] - y[0][j]) / fabs(y[0][j]));
    printf("  %-7s wall %6.2f ms (%5.1f GB/s)  cpu sum %6.2f ms  slowest thread %6.2f ms  rel diff %.1e\n",
           NAMES[w], wall[w] * 1e3, 8.0 * M * N / wall[w] / 1e9, cpu[w] * 1e3, slow[w] * 1e3, err); }
  return 0;
}
