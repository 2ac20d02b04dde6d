"""fe36's batch: kernels as people publish them (signal processing, simple physics, statistics,
image operations, graph algorithms on arrays), numba-style loops and NumPy array code mixed;
written before looking at what is supported."""

import numpy as np
from corpus_case import Case


def _n(rng, big=8, edge=1):
    return big if rng.integers(0, 3) else edge


def zero_crossing_rate(x):
    return np.sum(np.abs(np.diff(np.sign(x)))) / (2.0 * len(x))


def autocorrelation(x, maxlag):
    n = x.shape[0]
    xm = x - x.mean()
    denom = np.sum(xm * xm)
    r = np.zeros(maxlag + 1)
    for lag in range(maxlag + 1):
        s = 0.0
        for i in range(n - lag):
            s += xm[i] * xm[i + lag]
        r[lag] = s / denom
    return r


def biquad(x, b0, b1, b2, a1, a2):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(x.shape[0]):
        xn = x[n]
        yn = b0 * xn + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xn
        y2, y1 = y1, yn
        y[n] = yn
    return y


def fftshift_spectrum(power):
    n = power.shape[0]
    shifted = np.roll(power, n // 2)
    freqs = (np.arange(n) - n // 2) / n
    return freqs, shifted / shifted.max()


def nbody_step(pos, vel, mass, dt, steps):
    n = pos.shape[0]
    pos = pos.copy()
    vel = vel.copy()
    for _ in range(steps):
        acc = np.zeros_like(pos)
        for i in range(n):
            for j in range(n):
                if i != j:
                    dx = pos[j, 0] - pos[i, 0]
                    dy = pos[j, 1] - pos[i, 1]
                    r2 = dx * dx + dy * dy + 0.01
                    inv = mass[j] / (r2 * np.sqrt(r2))
                    acc[i, 0] += dx * inv
                    acc[i, 1] += dy * inv
        vel += dt * acc
        pos += dt * vel
    return pos, vel


def lennard_jones_energy(pos, eps, sigma):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            sr6 = (sigma * sigma / r2) ** 3
            e += 4.0 * eps * (sr6 * sr6 - sr6)
    return e


def spring_chain(x, v, k, dt, steps):
    n = x.shape[0]
    for _ in range(steps):
        f = np.zeros(n)
        f[1:] -= k * (x[1:] - x[:-1])
        f[:-1] += k * (x[1:] - x[:-1])
        v = v + dt * f
        x = x + dt * v
    return x, v


def welford(x):
    mean = 0.0
    m2 = 0.0
    count = 0
    for v in x:
        count += 1
        delta = v - mean
        mean += delta / count
        m2 += delta * (v - mean)
    if count < 2:
        return mean, 0.0
    return mean, m2 / (count - 1)


def bootstrap_means(x, idx):
    samples = x[idx]
    means = samples.mean(axis=1)
    return means.mean(), means.std()


def rolling_corr(x, y, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    for i in range(w - 1, n):
        xs = x[i - w + 1:i + 1]
        ys = y[i - w + 1:i + 1]
        xm = xs - xs.mean()
        ym = ys - ys.mean()
        out[i] = (xm * ym).sum() / np.sqrt((xm * xm).sum() * (ym * ym).sum())
    return out


def gaussian_blur(img, sigma):
    radius = 2
    t = np.arange(-radius, radius + 1)
    g = np.exp(-(t * t) / (2.0 * sigma * sigma))
    g = g / g.sum()
    h, w = img.shape
    tmp = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            acc = 0.0
            for k in range(-radius, radius + 1):
                jj = min(max(j + k, 0), w - 1)
                acc += g[k + radius] * img[i, jj]
            tmp[i, j] = acc
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            acc = 0.0
            for k in range(-radius, radius + 1):
                ii = min(max(i + k, 0), h - 1)
                acc += g[k + radius] * tmp[ii, j]
            out[i, j] = acc
    return out


def erode3(img):
    h, w = img.shape
    out = img.copy()
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            m = img[i, j]
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if img[i + di, j + dj] < m:
                        m = img[i + di, j + dj]
            out[i, j] = m
    return out


def bilinear_resize(img, oh, ow):
    h, w = img.shape
    out = np.empty((oh, ow))
    sy = (h - 1) / max(oh - 1, 1)
    sx = (w - 1) / max(ow - 1, 1)
    for i in range(oh):
        y = i * sy
        y0 = int(np.floor(y))
        y1 = min(y0 + 1, h - 1)
        fy = y - y0
        for j in range(ow):
            x = j * sx
            x0 = int(np.floor(x))
            x1 = min(x0 + 1, w - 1)
            fx = x - x0
            top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
            bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
            out[i, j] = top * (1 - fy) + bot * fy
    return out


def equalize_hist(img):
    hist = np.bincount(img.ravel(), minlength=256)
    cdf = np.cumsum(hist)
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) * 255.0 / max(cdf[-1] - cdf_min, 1))
    lut = np.clip(lut, 0, 255).astype(np.uint8)
    return lut[img]


def bfs_levels(indptr, indices, src):
    n = indptr.shape[0] - 1
    level = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    level[src] = 0
    queue[0] = src
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            if level[v] < 0:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    return level


def pagerank(A, d, iters):
    n = A.shape[0]
    out_deg = A.sum(axis=1)
    out_deg[out_deg == 0] = 1.0
    P = A / out_deg[:, None]
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        r = (1 - d) / n + d * (P.T @ r)
    return r


def floyd_warshall(D):
    n = D.shape[0]
    dist = D.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                alt = dist[i, k] + dist[k, j]
                if alt < dist[i, j]:
                    dist[i, j] = alt
    return dist


def union_find_components(u, v, n):
    parent = np.arange(n)
    for e in range(u.shape[0]):
        a = u[e]
        while parent[a] != a:
            a = parent[a]
        b = v[e]
        while parent[b] != b:
            b = parent[b]
        if a != b:
            parent[max(a, b)] = min(a, b)
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = i
        while parent[r] != r:
            r = parent[r]
        labels[i] = r
    return labels


def dijkstra_dense(W, src):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[src] = 0.0
    for _ in range(n):
        best = -1
        bd = np.inf
        for i in range(n):
            if not done[i] and dist[i] < bd:
                bd = dist[i]
                best = i
        if best < 0:
            break
        done[best] = True
        for j in range(n):
            w = W[best, j]
            if w > 0 and dist[best] + w < dist[j]:
                dist[j] = dist[best] + w
    return dist


def spectral_centroid(mag, freqs):
    total = mag.sum(axis=1)
    total = np.where(total == 0, 1.0, total)
    return (mag * freqs[None, :]).sum(axis=1) / total


def _lorenz(s, sigma, rho, beta):
    return np.array([sigma * (s[1] - s[0]), s[0] * (rho - s[2]) - s[1], s[0] * s[1] - beta * s[2]])


def rk4_lorenz(s0, dt, steps):
    s = s0.copy()
    traj = np.empty((steps + 1, 3))
    traj[0] = s
    for t in range(steps):
        k1 = _lorenz(s, 10.0, 28.0, 8.0 / 3.0)
        k2 = _lorenz(s + 0.5 * dt * k1, 10.0, 28.0, 8.0 / 3.0)
        k3 = _lorenz(s + 0.5 * dt * k2, 10.0, 28.0, 8.0 / 3.0)
        k4 = _lorenz(s + dt * k3, 10.0, 28.0, 8.0 / 3.0)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        traj[t + 1] = s
    return traj


def ising_energy(S, J):
    right = np.roll(S, -1, axis=1)
    down = np.roll(S, -1, axis=0)
    return -J * np.sum(S * (right + down)), np.abs(S.sum()) / S.size


def _csr(r):
    n = int(r.integers(2, 6))
    dense = r.random((n, n)) < 0.4
    indptr = np.concatenate(([0], np.cumsum(dense.sum(axis=1)))).astype(np.int64)
    indices = np.nonzero(dense)[1].astype(np.int64)
    return indptr, indices, int(r.integers(0, n))


def _weights(r):
    n = _n(r, 5, 1)
    W = r.random((n, n)) * (r.random((n, n)) < 0.6)
    return W, int(r.integers(0, n))


def _chain(r, n):
    return r.standard_normal(n), r.standard_normal(n), 1.0, 0.05, int(r.integers(0, 4))


def _adjacency(r, n):
    return (r.random((n, n)) < 0.5).astype(np.float64)


def _edges(r):
    n = _n(r, 7, 2)
    m = int(r.integers(0, 6))
    return r.integers(0, n, m), r.integers(0, n, m), n


CASES = [
    Case("zero_crossing_rate", zero_crossing_rate, lambda r: (r.standard_normal(_n(r, 12, 1)),)),
    Case("autocorrelation", autocorrelation, lambda r: (r.standard_normal(_n(r, 12, 4)), int(r.integers(0, 4)))),
    Case("biquad", biquad, lambda r: (r.standard_normal(_n(r, 10)), 0.2, 0.4, 0.2, -0.3, 0.1)),
    Case("fftshift_spectrum", fftshift_spectrum, lambda r: (r.random(_n(r, 9, 2)) + 0.1,)),
    Case("nbody_step", nbody_step, lambda r: (r.standard_normal((4, 2)), r.standard_normal((4, 2)),
                                             r.random(4) + 0.5, 0.01, int(r.integers(0, 3))), rtol=1e-7, atol=1e-9),
    Case("lennard_jones_energy", lennard_jones_energy,
         lambda r: (np.arange(_n(r, 5, 1))[:, None] * 1.1 + 0.1 * r.random((1, 3)), 1.0, 1.0), rtol=1e-7, atol=1e-9),
    Case("spring_chain", spring_chain, lambda r: _chain(r, _n(r, 6, 2))),
    Case("welford", welford, lambda r: (r.standard_normal(_n(r, 9, 1)),), rtol=1e-7, atol=1e-9),
    Case("bootstrap_means", bootstrap_means, lambda r: (lambda n: (r.standard_normal(n), r.integers(0, n, (5, n))))(
        _n(r, 6, 1)), rtol=1e-7, atol=1e-9),
    Case("rolling_corr", rolling_corr, lambda r: (r.standard_normal(10), r.standard_normal(10), int(r.integers(2, 5))),
         rtol=1e-7, atol=1e-9),
    Case("gaussian_blur", gaussian_blur, lambda r: (r.random((_n(r, 6, 1), 5)), 1.0), rtol=1e-7, atol=1e-9),
    Case("erode3", erode3, lambda r: (r.random((_n(r, 6, 2), 5)),)),
    Case("bilinear_resize", bilinear_resize, lambda r: (r.random((4, 5)), int(r.integers(1, 7)), int(r.integers(1, 7))),
         rtol=1e-7, atol=1e-9),
    Case("equalize_hist", equalize_hist, lambda r: (r.integers(0, 256, (_n(r, 6, 1), 5)).astype(np.uint8),)),
    Case("bfs_levels", bfs_levels, _csr),
    Case("pagerank", pagerank, lambda r: (_adjacency(r, _n(r, 5, 1)), 0.85, int(r.integers(0, 6))),
         rtol=1e-7, atol=1e-9),
    Case("floyd_warshall", floyd_warshall, lambda r: (lambda n: (r.random((n, n)) * 10,))(_n(r, 5, 1))),
    Case("union_find_components", union_find_components, _edges),
    Case("dijkstra_dense", dijkstra_dense, _weights, rtol=1e-7, atol=1e-9),
    Case("spectral_centroid", spectral_centroid, lambda r: (r.random((_n(r, 4, 1), 6)) * (r.random() < 0.8),
                                                            np.linspace(0, 100, 6)), rtol=1e-7, atol=1e-9),
    Case("rk4_lorenz", rk4_lorenz, lambda r: (r.standard_normal(3), 0.01, int(r.integers(0, 5))), rtol=1e-7, atol=1e-9),
    Case("ising_energy", ising_energy, lambda r: (r.choice([-1, 1], (_n(r, 5, 1), 4)).astype(np.int64), 1.0)),
]
