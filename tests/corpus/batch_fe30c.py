"""fe30's batch, part 3: CSR products, union-find, ODE steps, elimination, interpolation, cellular
automata, Viterbi, counting sort, escape-time fractals."""

import math

import numpy as np
from corpus_case import Case


def _n(rng, big=9, edge=1):
    return big if rng.integers(0, 3) else edge


def csr_matvec(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * x[indices[k]]
        y[i] = s
    return y


def union_find_components(n, a, b):
    parent = np.arange(n)
    for e in range(a.shape[0]):
        ra = a[e]
        while parent[ra] != ra:
            ra = parent[ra]
        rb = b[e]
        while parent[rb] != rb:
            rb = parent[rb]
        if ra != rb:
            parent[ra] = rb
    count = 0
    for i in range(n):
        if parent[i] == i:
            count += 1
    return count


def rk4_decay(y0, k, dt, steps):
    y = y0
    for _ in range(steps):
        k1 = -k * y
        k2 = -k * (y + 0.5 * dt * k1)
        k3 = -k * (y + 0.5 * dt * k2)
        k4 = -k * (y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def gauss_solve(A, b):
    n = A.shape[0]
    M = A.copy()
    v = b.copy()
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            v[k], v[p] = v[p], v[k]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            v[i] -= f * v[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = v[i]
        for j in range(i + 1, n):
            s -= M[i, j] * x[j]
        x[i] = s / M[i, i]
    return x


def bilinear(img, ys, xs):
    h, w = img.shape
    out = np.empty(ys.shape[0])
    for k in range(ys.shape[0]):
        y = min(max(ys[k], 0.0), h - 1.0)
        x = min(max(xs[k], 0.0), w - 1.0)
        y0 = int(math.floor(y))
        x0 = int(math.floor(x))
        y1 = min(y0 + 1, h - 1)
        x1 = min(x0 + 1, w - 1)
        fy = y - y0
        fx = x - x0
        out[k] = (img[y0, x0] * (1 - fy) * (1 - fx) + img[y1, x0] * fy * (1 - fx)
                  + img[y0, x1] * (1 - fy) * fx + img[y1, x1] * fy * fx)
    return out


def life_step(g):
    h, w = g.shape
    out = np.zeros_like(g)
    for i in range(h):
        for j in range(w):
            c = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di == 0 and dj == 0:
                        continue
                    c += g[(i + di) % h, (j + dj) % w]
            if g[i, j] == 1 and (c == 2 or c == 3):
                out[i, j] = 1
            elif g[i, j] == 0 and c == 3:
                out[i, j] = 1
    return out


def viterbi(logA, logB, obs, logpi):
    S = logA.shape[0]
    T = obs.shape[0]
    V = np.empty((T, S))
    bp = np.zeros((T, S), dtype=np.int64)
    for s in range(S):
        V[0, s] = logpi[s] + logB[s, obs[0]]
    for t in range(1, T):
        for s in range(S):
            best = -np.inf
            arg = 0
            for r in range(S):
                v = V[t - 1, r] + logA[r, s]
                if v > best:
                    best = v
                    arg = r
            V[t, s] = best + logB[s, obs[t]]
            bp[t, s] = arg
    path = np.empty(T, dtype=np.int64)
    path[T - 1] = np.argmax(V[T - 1])
    for t in range(T - 1, 0, -1):
        path[t - 1] = bp[t, path[t]]
    return path


def counting_sort(x, k):
    counts = np.zeros(k, dtype=np.int64)
    for v in x:
        counts[v] += 1
    out = np.empty_like(x)
    pos = 0
    for v in range(k):
        for _ in range(counts[v]):
            out[pos] = v
            pos += 1
    return out


def mandelbrot_counts(re, im, maxit):
    out = np.zeros((im.shape[0], re.shape[0]), dtype=np.int64)
    for i in range(im.shape[0]):
        for j in range(re.shape[0]):
            zr = 0.0
            zi = 0.0
            n = 0
            while n < maxit and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + re[j], 2 * zr * zi + im[i]
                n += 1
            out[i, j] = n
    return out


def logsumexp_rows(X):
    m = np.max(X, axis=1)
    return m + np.log(np.sum(np.exp(X - m[:, None]), axis=1))


def hist_equalize(img, nbins):
    h = np.zeros(nbins)
    for v in img.ravel():
        h[int(v * (nbins - 1))] += 1
    cdf = np.cumsum(h) / img.size
    out = np.empty_like(img)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = cdf[int(img[i, j] * (nbins - 1))]
    return out


def conv2d_same(img, k):
    h, w = img.shape
    kh, kw = k.shape
    ph, pw = kh // 2, kw // 2
    pad = np.zeros((h + 2 * ph, w + 2 * pw))
    pad[ph:ph + h, pw:pw + w] = img
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            out[i, j] = np.sum(pad[i:i + kh, j:j + kw] * k)
    return out


def _csr(rng):
    n = _n(rng, 5, 1)
    nnz = rng.integers(0, 3, n)
    indptr = np.concatenate(([0], np.cumsum(nnz))).astype(np.int64)
    indices = rng.integers(0, 4, indptr[-1])
    return indptr, indices, rng.standard_normal(indptr[-1]), rng.standard_normal(4)


def _hmm(rng):
    S, O, T = 3, 4, _n(rng, 6, 1)
    A = np.log(rng.dirichlet(np.ones(S), S))
    B = np.log(rng.dirichlet(np.ones(O), S))
    return A, B, rng.integers(0, O, T), np.log(np.ones(S) / S)


CASES = [
    Case("csr_matvec", csr_matvec, _csr),
    Case("union_find_components", union_find_components, lambda r: (6, r.integers(0, 6, 5), r.integers(0, 6, 5))),
    Case("rk4_decay", rk4_decay, lambda r: (1.0, 0.7, 0.1, 10)),
    Case("gauss_solve", gauss_solve, lambda r: (r.standard_normal((4, 4)) + 4 * np.eye(4), r.standard_normal(4))),
    Case("bilinear", bilinear, lambda r: (r.standard_normal((5, 6)), r.uniform(-1, 6, 7), r.uniform(-1, 7, 7))),
    Case("life_step", life_step, lambda r: ((r.random((5, 6)) > 0.6).astype(np.int64),)),
    Case("viterbi", viterbi, _hmm),
    Case("counting_sort", counting_sort, lambda r: (r.integers(0, 5, _n(r, 9, 0)), 5)),
    Case("mandelbrot_counts", mandelbrot_counts, lambda r: (np.linspace(-2, 0.5, 6), np.linspace(-1, 1, 4), 20)),
    Case("logsumexp_rows", logsumexp_rows, lambda r: (r.standard_normal((4, 5)),)),
    Case("hist_equalize", hist_equalize, lambda r: (r.random((4, 5)), 8)),
    Case("conv2d_same", conv2d_same, lambda r: (r.standard_normal((5, 6)), r.standard_normal((3, 3)))),
]
