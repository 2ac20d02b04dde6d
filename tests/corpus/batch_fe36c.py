"""fe36's batch, part 3: more numba loop kernels and NumPy programs from scientific code
(integrators, particle binning, finite volumes, string-free text statistics on codes, sparse
graph sweeps, image morphology); written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def cic_deposit(x, L, ng):
    rho = np.zeros(ng)
    dx = L / ng
    for p in range(x.shape[0]):
        s = x[p] / dx
        i = int(np.floor(s))
        f = s - i
        rho[i % ng] += 1.0 - f
        rho[(i + 1) % ng] += f
    return rho / dx


def upwind_advect(u, c, dx, dt, steps):
    u = u.copy()
    for _ in range(steps):
        un = u.copy()
        u[1:] = un[1:] - c * dt / dx * (un[1:] - un[:-1])
        u[0] = un[0] - c * dt / dx * (un[0] - un[-1])
    return u


def velocity_verlet_sho(x0, v0, k, dt, steps):
    x, v = x0, v0
    xs = np.empty(steps + 1)
    xs[0] = x
    a = -k * x
    for n in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -k * x
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
        xs[n + 1] = x
    return xs, v


def bigram_counts(codes, k):
    M = np.zeros((k, k), dtype=np.int64)
    for i in range(codes.shape[0] - 1):
        M[codes[i], codes[i + 1]] += 1
    return M


def entropy_bits(labels, k):
    counts = np.bincount(labels, minlength=k)
    p = counts[counts > 0] / labels.shape[0]
    return -(p * np.log2(p)).sum()


def jacobi_sweeps(A, b, iters):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diag(D)
    for _ in range(iters):
        x = (b - R @ x) / D
    return x


def gauss_seidel(A, b, iters):
    n = b.shape[0]
    x = np.zeros(n)
    for _ in range(iters):
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            x[i] = s / A[i, i]
    return x


def dilate_bool(mask):
    out = mask.copy()
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def label_runs(row):
    labels = np.zeros(row.shape[0], dtype=np.int64)
    cur = 0
    for i in range(row.shape[0]):
        if row[i]:
            if i == 0 or not row[i - 1]:
                cur += 1
            labels[i] = cur
    return labels, cur


def power_iteration(A, iters):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = v @ w
        nrm = np.linalg.norm(w)
        if nrm == 0:
            break
        v = w / nrm
    return lam, v


def csr_spmv_sweep(indptr, indices, data, x, iters):
    y = x.copy()
    n = indptr.shape[0] - 1
    for _ in range(iters):
        z = np.zeros(n)
        for i in range(n):
            for p in range(indptr[i], indptr[i + 1]):
                z[i] += data[p] * y[indices[p]]
        y = 0.5 * (y + z)
    return y


def moving_zscore(x, w):
    c1 = np.cumsum(np.concatenate(([0.0], x)))
    c2 = np.cumsum(np.concatenate(([0.0], x * x)))
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(w, n + 1):
        s = c1[i] - c1[i - w]
        s2 = c2[i] - c2[i - w]
        m = s / w
        var = s2 / w - m * m
        out[i - 1] = (x[i - 1] - m) / np.sqrt(var) if var > 1e-12 else 0.0
    return out


def sdf_circle_grid(nx, ny, cx, cy, r):
    ys = np.arange(ny)[:, None]
    xs = np.arange(nx)[None, :]
    return np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2) - r


def logistic_map(r, x0, n):
    out = np.empty(n)
    x = x0
    for i in range(n):
        x = r * x * (1.0 - x)
        out[i] = x
    return out


def cumulative_trapz(y, x):
    out = np.zeros_like(y)
    out[1:] = np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(x))
    return out


def _spd(r):
    n = _n(r, 4, 1)
    M = r.standard_normal((n, n))
    return M @ M.T + n * np.eye(n)


def _csr(r):
    n = int(r.integers(1, 6))
    dense = (r.random((n, n)) < 0.5) * r.standard_normal((n, n))
    nz = dense != 0
    indptr = np.concatenate(([0], np.cumsum(nz.sum(axis=1)))).astype(np.int64)
    rows, cols = np.nonzero(nz)
    return indptr, cols.astype(np.int64), dense[rows, cols], r.standard_normal(n), int(r.integers(0, 4))


CASES = [
    Case("cic_deposit", cic_deposit, lambda r: (r.random(_n(r, 10, 1)) * 4.0, 4.0, 8), rtol=1e-7, atol=1e-9),
    Case("upwind_advect", upwind_advect, lambda r: (r.random(_n(r, 9, 2)), 1.0, 0.1, 0.05, int(r.integers(0, 5))),
         rtol=1e-7, atol=1e-9),
    Case("velocity_verlet_sho", velocity_verlet_sho, lambda r: (1.0, 0.0, 2.0, 0.1, int(r.integers(0, 8))),
         rtol=1e-7, atol=1e-9),
    Case("bigram_counts", bigram_counts, lambda r: (r.integers(0, 4, _n(r, 12, 1)), 4)),
    Case("entropy_bits", entropy_bits, lambda r: (r.integers(0, 5, _n(r, 12, 1)), 5), rtol=1e-7, atol=1e-9),
    Case("jacobi_sweeps", jacobi_sweeps, lambda r: (lambda A: (A, r.standard_normal(A.shape[0]), 5))(_spd(r)),
         rtol=1e-7, atol=1e-9),
    Case("gauss_seidel", gauss_seidel, lambda r: (lambda A: (A, r.standard_normal(A.shape[0]), 3))(_spd(r)),
         rtol=1e-7, atol=1e-9),
    Case("dilate_bool", dilate_bool, lambda r: (r.random((_n(r, 5, 1), 4)) < 0.2,)),
    Case("label_runs", label_runs, lambda r: (r.random(_n(r, 12, 1)) < 0.5,)),
    Case("power_iteration", power_iteration, lambda r: (_spd(r), int(r.integers(0, 6))), rtol=1e-7, atol=1e-9),
    Case("csr_spmv_sweep", csr_spmv_sweep, _csr, rtol=1e-7, atol=1e-9),
    Case("moving_zscore", moving_zscore, lambda r: (r.standard_normal(_n(r, 10, 2)), 3), rtol=1e-7, atol=1e-9),
    Case("sdf_circle_grid", sdf_circle_grid, lambda r: (_n(r, 5, 1), 4, 2.0, 1.5, 1.0), rtol=1e-7, atol=1e-9),
    Case("logistic_map", logistic_map, lambda r: (3.7, 0.2, _n(r, 10, 0)), rtol=1e-7, atol=1e-9),
    Case("cumulative_trapz", cumulative_trapz, lambda r: (lambda n: (r.standard_normal(n), np.sort(r.random(n))))(
        _n(r, 7, 1)), rtol=1e-7, atol=1e-9),
]
