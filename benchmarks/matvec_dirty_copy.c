/* The bench's fresh copy of the inputs before each timed run, against a read of a matrix that
   is not dirty in the caches: does the copy's write-back show in a matrix-vector kernel's % triad?

       gcc -O3 -march=native -fopenmp benchmarks/matvec_dirty_copy.c -o /tmp/dirty
       OMP_NUM_THREADS=2 /tmp/dirty 15

   A 71.7 MB matrix (atax's bench size) summed on 2 threads right after a memcpy into it (the
   bench's order), after the copy and a 96 MB read (the copy's dirty lines written back before
   the timing), and after the copy and a 96 MB write (the caches full of other dirty lines); best
   of the rounds, interleaved.  Session 34 (bw43): at load 11 on the 2 cores the numbers were noise
   (3-19 GB/s); run it on a quiet machine.  docs/performance.md, *Session 34*.  Session 35 (mv45):
   the sum is a vector reduction (``simd``; gcc keeps a plain reduction a scalar chain without
   -ffast-math, bound by the add latency at ~7 GB/s per core, below what it was to measure), and
   the copy here (glibc's memcpy of 71.7 MB) stores non-temporally, as NumPy's copy does: none of
   it is in the caches afterwards, dirty or clean (benchmarks/mv_copy_ab.py shows it per input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <time.h>
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+1e-9*t.tv_nsec;}
static double rsum(const double *a, size_t n) { double s = 0;
  #pragma omp parallel for simd reduction(+:s)
  for (size_t k = 0; k < n; k++) s += a[k];
  return s; }
int main(int argc, char **argv) {
  int rounds = atoi(argv[1]); size_t n = (size_t)2800 * 3200;
  double *A = malloc(8 * n), *B = malloc(8 * n); size_t fn = (size_t)12 << 20; double *F = malloc(8 * fn);
  for (size_t k = 0; k < n; k++) A[k] = k % 7;
  for (size_t k = 0; k < fn; k++) F[k] = 1;
  double best[3] = {1e9, 1e9, 1e9}, acc = 0;
  for (int it = 0; it < rounds; it++) for (int v = 0; v < 3; v++) {
    memcpy(B, A, 8 * n);                /* the bench's fresh copy: B's tail dirty in cache */
    if (v == 1) acc += rsum(F, fn);      /* read 96 MB: B's dirty lines written back before timing */
    if (v == 2) { acc += rsum(F, fn); memset(F, it, 8 * fn); } /* cache full of other dirty lines */
    double t0 = now(); acc += rsum(B, n); double t = now() - t0;
    if (t < best[v]) best[v] = t; }
  printf("read 71.7MB after copy: %.2f ms %.1f GB/s | after copy+flush read: %.2f ms %.1f GB/s | after copy+dirty flush: %.2f ms %.1f GB/s (%g)\n",
    best[0]*1e3, 8.0*n/best[0]/1e9, best[1]*1e3, 8.0*n/best[1]/1e9, best[2]*1e3, 8.0*n/best[2]/1e9, acc > 0 ? 1.0 : 0.0);
}
