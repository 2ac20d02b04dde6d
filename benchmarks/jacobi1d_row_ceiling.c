/* jacobi-1d at PolyBench LARGE (n = 2000, tsteps = 500: both rows in L1) written with AVX-512
 * intrinsics four ways, to see how far polyfuse's row loop is from hand-written code.
 *
 *     gcc -O3 -march=native -o /tmp/j1d benchmarks/jacobi1d_row_ceiling.c && taskset -c 0 /tmp/j1d
 *
 * Each variant computes B[i] = 0.33333 * ((A[i-1] + A[i]) + A[i+1]) for i in 1..n-2, then the same
 * from B into A, tsteps times (the suite's jacobi_1d, same operations in the same order, so the
 * results are bit for bit equal; checked below).  The last, partial vector of a row is done by one
 * overlapping vector, as polyfuse's row tails are.  Arrays are 64-byte aligned; B starts
 * `dist` bytes after a 4096-byte boundary (the first argument, default 3840) to show 4K aliasing.
 *
 * - vperm: two loads (A[i-1..], A[i+1..]) and A[i..] shifted out of the previous and the current
 *   register (valignq): what LLVM makes of polyfuse's (and numba's) loop after its load PRE;
 * - aligned: one aligned load per vector, A[i-1..] and A[i+1..] from valignq of neighbouring
 *   registers, aligned stores (the row head peeled by one overlapping vector);
 * - 3 loads: aligned store, three loads (two of them split across cache lines);
 * - fused: both sweeps of a time step in one pass, B[i] then A[i - 1] (vperm's loads for B, the
 *   B values A needs from registers): what polyfuse's fused row sweeps and carried loads give
 *   (schedule/time_tiling.py fused_sweeps, backends/cpu/carries.py).
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 2000
#define T 500
#define ALIGNR(hi, lo, k) \
    _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(hi), _mm512_castpd_si512(lo), k))

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static inline __m512d point(__m512d x, __m512d y, __m512d z) {
    return _mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(x, y), z), _mm512_set1_pd(0.33333));
}

static inline void edge(const double *a, double *b, int i) {
    _mm512_storeu_pd(b + i, point(_mm512_loadu_pd(a + i - 1), _mm512_loadu_pd(a + i), _mm512_loadu_pd(a + i + 1)));
}

static void row_vperm(const double *restrict a, double *restrict b, int n) {
    __m512d prev = _mm512_set1_pd(a[1]); /* lane 7: A[i] of the first vector */
    int i = 1;
    for (; i + 8 <= n - 1; i += 8) {
        __m512d z = _mm512_loadu_pd(a + i + 1);
        _mm512_storeu_pd(b + i, point(_mm512_loadu_pd(a + i - 1), ALIGNR(z, prev, 7), z));
        prev = z;
    }
    edge(a, b, n - 9);
}

static void row_aligned(const double *restrict a, double *restrict b, int n) {
    edge(a, b, 1);
    __m512d prev = _mm512_load_pd(a), cur = _mm512_load_pd(a + 8);
    for (int i = 8; i + 16 <= n; i += 8) {
        __m512d next = _mm512_load_pd(a + i + 8);
        _mm512_store_pd(b + i, point(ALIGNR(cur, prev, 7), cur, ALIGNR(next, cur, 1)));
        prev = cur;
        cur = next;
    }
    edge(a, b, n - 9);
}

static void row_loads(const double *restrict a, double *restrict b, int n) {
    edge(a, b, 1);
    for (int i = 8; i + 16 <= n; i += 8)
        _mm512_store_pd(b + i, point(_mm512_loadu_pd(a + i - 1), _mm512_load_pd(a + i), _mm512_loadu_pd(a + i + 1)));
    edge(a, b, n - 9);
}

typedef void (*Row)(const double *restrict, double *restrict, int);

/* Both sweeps of a time step in one pass, the second one point behind the first (B[i] then A[i - 1]):
 * A is loaded once per vector, the B values the second sweep reads come from registers. */
static void step_fused(double *restrict a, double *restrict b, int n) {
    __m512d prev = _mm512_set1_pd(a[1]), bprev = _mm512_set1_pd(b[0]);
    int i = 1;
    for (; i + 8 <= n - 1; i += 8) {
        __m512d z = _mm512_loadu_pd(a + i + 1);
        __m512d bv = point(_mm512_loadu_pd(a + i - 1), ALIGNR(z, prev, 7), z);
        _mm512_storeu_pd(b + i, bv);
        __m512d av = point(ALIGNR(bv, bprev, 6), ALIGNR(bv, bprev, 7), bv);
        if (i == 1) {  /* A[0] is not written */
            double lanes[8];
            _mm512_storeu_pd(lanes, av);
            for (int k = 1; k < 8; k++) a[k] = lanes[k];
        } else {
            _mm512_storeu_pd(a + i - 1, av);
        }
        prev = z;
        bprev = bv;
    }
    for (int k = i; k < n - 1; k++) b[k] = 0.33333 * ((a[k - 1] + a[k]) + a[k + 1]);
    for (int k = i - 1; k < n - 1; k++) a[k] = 0.33333 * ((b[k - 1] + b[k]) + b[k + 1]);
}

static double run_fused(double *A, double *B) {
    for (int i = 0; i < N; i++) { A[i] = (i % 7) * 0.1; B[i] = (i % 5) * 0.1; }
    double start = now();
    for (int t = 0; t < T; t++) step_fused(A, B, N);
    return now() - start;
}

static double run(Row row, double *A, double *B) {
    for (int i = 0; i < N; i++) { A[i] = (i % 7) * 0.1; B[i] = (i % 5) * 0.1; }
    double start = now();
    for (int t = 0; t < T; t++) { row(A, B, N); row(B, A, N); }
    return now() - start;
}

int main(int argc, char **argv) {
    int dist = argc > 1 ? atoi(argv[1]) : 3840;
    double *A = aligned_alloc(4096, 8 * (N + 64)), *B0 = aligned_alloc(4096, 8 * (N + 64) + 4096);
    double *B = B0 + dist / 8, *A2 = aligned_alloc(64, 8 * (N + 64)), *B2 = aligned_alloc(64, 8 * (N + 64));
    Row rows[] = {row_vperm, row_aligned, row_loads};
    const char *names[] = {"vperm", "aligned", "3 loads"};
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int r = 0; r < 100; r++) {
        for (int k = 0; k < 3; k++) { double t = run(rows[k], A, B); if (t < best[k]) best[k] = t; }
        double t = run_fused(A, B);
        if (t < best[3]) best[3] = t;
    }
    int bad = 0;
    for (int k = 1; k < 3; k++) {
        run(rows[0], A2, B2);
        run(rows[k], A, B);
        for (int i = 0; i < N; i++) bad += A[i] != A2[i] || B[i] != B2[i];
    }
    run(rows[0], A2, B2);
    run_fused(A, B);
    for (int i = 0; i < N; i++) bad += A[i] != A2[i] || B[i] != B2[i];
    printf("B at %d mod 4096, thread CPU ms, min of 100:", dist);
    for (int k = 0; k < 3; k++) printf(" %s %.3f", names[k], best[k] * 1e3);
    printf(" fused %.3f", best[3] * 1e3);
    printf(" (mismatches %d)\n", bad);
    return bad != 0;
}
