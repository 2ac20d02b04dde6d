"""fe41's batch: numba code from domains earlier batches cover little, written before looking at
what is supported: alignment with traceback, k-mer counts and distances over arrays of
sequences, geometry (winding and crossing tests, monotone-chain hulls, closest pairs, areas),
graphs on adjacency arrays (union-find, Dijkstra with an array heap, Kahn's sort, image
labelling), numerical methods (RK4 with helpers, Newton with tolerances, SOR to convergence, LU
with row swaps, banded solves, quadrature, splines), statistics (Welford, 2-d histograms, ranks,
bootstrap on given indices), images (resize, 3x3 median, integral images, morphology, flood fill
with a stack), signals (Goertzel, sliding minimum with a deque in arrays), simulations (Life,
Ising on given numbers, SIR, particle deposit), bit code (popcount tables, CRC32, bit reversal)
and text as uint8 arrays; @njit helpers, tuple returns, while loops with break, early returns,
local arrays with dtypes, float32 data, math.*.

At 59da27b: 70 match, 9 refused on cpu and python (none wrong or crashed); after fe41's fixes 77
match, and the two refusals left are the supported answer (test_batches.REFUSED): a recursive
helper, and an early return of an empty array before a count-then-allocate buffer."""

import math

import numba
import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


# ---------------------------------------------------------------- helpers


@njit
def _max4(a, b, c, d):
    m = a
    if b > m:
        m = b
    if c > m:
        m = c
    if d > m:
        m = d
    return m


@njit(cache=True)
def _cross(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@njit
def _rhs_decay(t, y, k):
    return -k * y + math.sin(t)


@njit
def _rk4_step(t, y, h, k):
    k1 = _rhs_decay(t, y, k)
    k2 = _rhs_decay(t + 0.5 * h, y + 0.5 * h * k1, k)
    k3 = _rhs_decay(t + 0.5 * h, y + 0.5 * h * k2, k)
    k4 = _rhs_decay(t + h, y + h * k3, k)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


@njit
def _oscillator(x, v, w2):
    return v, -w2 * x


@numba.njit
def _poly_and_slope(c, x):
    p = 0.0
    dp = 0.0
    for i in range(c.shape[0]):
        dp = dp * x + p
        p = p * x + c[i]
    return p, dp


@njit
def _f_simpson(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


@njit
def _sort9(w):
    for i in range(1, 9):
        key = w[i]
        j = i - 1
        while j >= 0 and w[j] > key:
            w[j + 1] = w[j]
            j -= 1
        w[j + 1] = key


@njit
def _popcount64(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit
def _bilerp(img, y, x):
    h, w = img.shape
    y0 = int(math.floor(y))
    x0 = int(math.floor(x))
    y1 = min(y0 + 1, h - 1)
    x1 = min(x0 + 1, w - 1)
    fy = y - y0
    fx = x - x0
    top = img[y0, x0] * (1.0 - fx) + img[y0, x1] * fx
    bot = img[y1, x0] * (1.0 - fx) + img[y1, x1] * fx
    return top * (1.0 - fy) + bot * fy


@njit
def _heap_push(hk, hv, size, key, val):
    i = size
    hk[i] = key
    hv[i] = val
    while i > 0:
        p = (i - 1) // 2
        if hk[p] <= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hv[p], hv[i] = hv[i], hv[p]
        i = p
    return size + 1


@njit
def _heap_pop(hk, hv, size):
    key = hk[0]
    val = hv[0]
    size -= 1
    hk[0] = hk[size]
    hv[0] = hv[size]
    i = 0
    while True:
        left = 2 * i + 1
        right = left + 1
        s = i
        if left < size and hk[left] < hk[s]:
            s = left
        if right < size and hk[right] < hk[s]:
            s = right
        if s == i:
            break
        hk[s], hk[i] = hk[i], hk[s]
        hv[s], hv[i] = hv[i], hv[s]
        i = s
    return key, val, size


@njit
def _fib_rec(n):
    if n < 2:
        return n
    return _fib_rec(n - 1) + _fib_rec(n - 2)


# ---------------------------------------------------------------- bioinformatics


def needleman_wunsch_traceback(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    F = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        F[i, 0] = -gap * i
    for j in range(m + 1):
        F[0, j] = -gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i, j] = max(F[i - 1, j - 1] + s, F[i - 1, j] - gap, F[i, j - 1] - gap)
    i, j = n, m
    nmatch = 0
    ngaps = 0
    while i > 0 and j > 0:
        s = match if a[i - 1] == b[j - 1] else mismatch
        if F[i, j] == F[i - 1, j - 1] + s:
            if a[i - 1] == b[j - 1]:
                nmatch += 1
            i -= 1
            j -= 1
        elif F[i, j] == F[i - 1, j] - gap:
            ngaps += 1
            i -= 1
        else:
            ngaps += 1
            j -= 1
    ngaps += i + j
    return F[n, m], nmatch, ngaps


def smith_waterman_end(a, b, match, mismatch, gap):
    n, m = a.shape[0], b.shape[0]
    H = np.zeros((n + 1, m + 1), dtype=np.int32)
    best = 0
    bi = 0
    bj = 0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = H[i - 1, j - 1] + (match if a[i - 1] == b[j - 1] else mismatch)
            v = _max4(0, diag, H[i - 1, j] - gap, H[i, j - 1] - gap)
            H[i, j] = v
            if v > best:
                best = v
                bi = i
                bj = j
    return best, bi, bj


def kmer_counts(seq, k):
    n = seq.shape[0]
    counts = np.zeros(4**k, dtype=np.int64)
    for i in range(n - k + 1):
        code = 0
        for j in range(k):
            code = code * 4 + seq[i + j]
        counts[code] += 1
    return counts


def kmer_rolling(seq, k, out):
    n = seq.shape[0]
    mask = (1 << (2 * k)) - 1
    code = 0
    for i in range(n):
        code = ((code << 2) | seq[i]) & mask
        if i >= k - 1:
            out[code] += 1


def hamming_matrix(seqs):
    n, L = seqs.shape
    D = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        for j in range(i + 1, n):
            d = 0
            for p in range(L):
                if seqs[i, p] != seqs[j, p]:
                    d += 1
            D[i, j] = d
            D[j, i] = d
    return D


def edit_distance_rows(seqs, query):
    n, L = seqs.shape
    m = query.shape[0]
    out = np.empty(n, dtype=np.int64)
    prev = np.empty(m + 1, dtype=np.int64)
    cur = np.empty(m + 1, dtype=np.int64)
    for s in range(n):
        for j in range(m + 1):
            prev[j] = j
        for i in range(1, L + 1):
            cur[0] = i
            for j in range(1, m + 1):
                cost = 0 if seqs[s, i - 1] == query[j - 1] else 1
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            for j in range(m + 1):
                prev[j] = cur[j]
        out[s] = prev[m]
    return out


def gc_content_windows(seq, w):
    n = seq.shape[0]
    nw = n - w + 1
    if nw <= 0:
        return np.zeros(0)
    out = np.empty(nw)
    gc = 0
    for i in range(w):
        if seq[i] == 1 or seq[i] == 2:
            gc += 1
    out[0] = gc / w
    for i in range(1, nw):
        if seq[i - 1] == 1 or seq[i - 1] == 2:
            gc -= 1
        if seq[i + w - 1] == 1 or seq[i + w - 1] == 2:
            gc += 1
        out[i] = gc / w
    return out


def reverse_complement(seq):
    n = seq.shape[0]
    out = np.empty_like(seq)
    for i in range(n):
        out[n - 1 - i] = 3 - seq[i]
    return out


def longest_common_substring(a, b):
    n, m = a.shape[0], b.shape[0]
    prev = np.zeros(m + 1, dtype=np.int64)
    best = 0
    end = 0
    for i in range(1, n + 1):
        cur = np.zeros(m + 1, dtype=np.int64)
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best = cur[j]
                    end = i
        prev = cur
    return best, end


# ---------------------------------------------------------------- geometry


def point_in_polygon(px, py, poly):
    n = poly.shape[0]
    out = np.zeros(px.shape[0], dtype=np.bool_)
    for k in range(px.shape[0]):
        x, y = px[k], py[k]
        inside = False
        j = n - 1
        for i in range(n):
            xi, yi = poly[i, 0], poly[i, 1]
            xj, yj = poly[j, 0], poly[j, 1]
            if (yi > y) != (yj > y):
                xc = (xj - xi) * (y - yi) / (yj - yi) + xi
                if x < xc:
                    inside = not inside
            j = i
        out[k] = inside
    return out


def polygon_area(xs, ys):
    n = xs.shape[0]
    s = 0.0
    for i in range(n):
        j = (i + 1) % n
        s += xs[i] * ys[j] - xs[j] * ys[i]
    return abs(s) * 0.5


def convex_hull_monotone(pts):
    n = pts.shape[0]
    order = np.argsort(pts[:, 0] * 1000.0 + pts[:, 1])
    hull = np.empty(2 * n, dtype=np.int64)
    k = 0
    for t in range(n):
        i = order[t]
        while k >= 2 and _cross(pts[hull[k - 2], 0], pts[hull[k - 2], 1], pts[hull[k - 1], 0],
                                pts[hull[k - 1], 1], pts[i, 0], pts[i, 1]) <= 0:
            k -= 1
        hull[k] = i
        k += 1
    lower = k + 1
    for t in range(n - 2, -1, -1):
        i = order[t]
        while k >= lower and _cross(pts[hull[k - 2], 0], pts[hull[k - 2], 1], pts[hull[k - 1], 0],
                                    pts[hull[k - 1], 1], pts[i, 0], pts[i, 1]) <= 0:
            k -= 1
        hull[k] = i
        k += 1
    return hull[:k - 1].copy()


def closest_pair_brute(pts):
    n = pts.shape[0]
    best = np.inf
    bi = -1
    bj = -1
    for i in range(n):
        for j in range(i + 1, n):
            dx = pts[i, 0] - pts[j, 0]
            dy = pts[i, 1] - pts[j, 1]
            d = math.sqrt(dx * dx + dy * dy)
            if d < best:
                best = d
                bi, bj = i, j
    return best, bi, bj


def segment_intersections(seg):
    n = seg.shape[0]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            d1 = _cross(seg[j, 0], seg[j, 1], seg[j, 2], seg[j, 3], seg[i, 0], seg[i, 1])
            d2 = _cross(seg[j, 0], seg[j, 1], seg[j, 2], seg[j, 3], seg[i, 2], seg[i, 3])
            d3 = _cross(seg[i, 0], seg[i, 1], seg[i, 2], seg[i, 3], seg[j, 0], seg[j, 1])
            d4 = _cross(seg[i, 0], seg[i, 1], seg[i, 2], seg[i, 3], seg[j, 2], seg[j, 3])
            if d1 * d2 < 0 and d3 * d4 < 0:
                count += 1
    return count


def polygon_centroid(poly):
    n = poly.shape[0]
    a = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(n):
        x0, y0 = poly[i, 0], poly[i, 1]
        x1, y1 = poly[(i + 1) % n, 0], poly[(i + 1) % n, 1]
        c = x0 * y1 - x1 * y0
        a += c
        cx += (x0 + x1) * c
        cy += (y0 + y1) * c
    a *= 0.5
    if a == 0.0:
        return 0.0, 0.0
    return cx / (6.0 * a), cy / (6.0 * a)


def bounding_boxes(pts, labels, nlab):
    box = np.empty((nlab, 4), dtype=np.float32)
    box[:, 0] = np.inf
    box[:, 1] = np.inf
    box[:, 2] = -np.inf
    box[:, 3] = -np.inf
    for i in range(pts.shape[0]):
        l = labels[i]
        box[l, 0] = min(box[l, 0], pts[i, 0])
        box[l, 1] = min(box[l, 1], pts[i, 1])
        box[l, 2] = max(box[l, 2], pts[i, 0])
        box[l, 3] = max(box[l, 3], pts[i, 1])
    return box


# ---------------------------------------------------------------- graphs


def union_find_components(edges, n):
    parent = np.arange(n)
    for e in range(edges.shape[0]):
        ra = _find(parent, edges[e, 0])
        rb = _find(parent, edges[e, 1])
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    labels = np.empty(n, dtype=np.int64)
    ncomp = 0
    for i in range(n):
        labels[i] = _find(parent, i)
        if labels[i] == i:
            ncomp += 1
    return labels, ncomp


def union_find_rank(edges, n):
    parent = np.arange(n)
    rank = np.zeros(n, dtype=np.int32)
    merges = 0
    for e in range(edges.shape[0]):
        a = edges[e, 0]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        b = edges[e, 1]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a == b:
            continue
        if rank[a] < rank[b]:
            a, b = b, a
        parent[b] = a
        if rank[a] == rank[b]:
            rank[a] += 1
        merges += 1
    return merges


def dijkstra_heap(indptr, indices, weights, src):
    n = indptr.shape[0] - 1
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    m = indices.shape[0] + 1
    hk = np.empty(m)
    hv = np.empty(m, dtype=np.int64)
    size = _heap_push(hk, hv, 0, 0.0, src)
    while size > 0:
        d, u, size = _heap_pop(hk, hv, size)
        if d > dist[u]:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            nd = d + weights[e]
            if nd < dist[v]:
                dist[v] = nd
                size = _heap_push(hk, hv, size, nd, v)
    return dist


def dijkstra_dense(W, src):
    n = W.shape[0]
    dist = np.full(n, np.inf)
    done = np.zeros(n, dtype=np.bool_)
    dist[src] = 0.0
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not done[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u == -1:
            break
        done[u] = True
        for v in range(n):
            w = W[u, v]
            if w > 0 and dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
    return dist


def topo_sort_kahn(adj):
    n = adj.shape[0]
    indeg = np.zeros(n, dtype=np.int64)
    for u in range(n):
        for v in range(n):
            if adj[u, v]:
                indeg[v] += 1
    queue = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for v in range(n):
        if indeg[v] == 0:
            queue[tail] = v
            tail += 1
    order = np.full(n, -1, dtype=np.int64)
    k = 0
    while head < tail:
        u = queue[head]
        head += 1
        order[k] = u
        k += 1
        for v in range(n):
            if adj[u, v]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    queue[tail] = v
                    tail += 1
    return order, k == n


def label_components_4(img):
    h, w = img.shape
    labels = np.zeros((h, w), dtype=np.int32)
    stack = np.empty((h * w, 2), dtype=np.int64)
    nlab = 0
    for i in range(h):
        for j in range(w):
            if img[i, j] and labels[i, j] == 0:
                nlab += 1
                sp = 0
                stack[sp, 0] = i
                stack[sp, 1] = j
                sp += 1
                labels[i, j] = nlab
                while sp > 0:
                    sp -= 1
                    y = stack[sp, 0]
                    x = stack[sp, 1]
                    for d in range(4):
                        ny = y + (1 if d == 0 else (-1 if d == 1 else 0))
                        nx = x + (1 if d == 2 else (-1 if d == 3 else 0))
                        if 0 <= ny < h and 0 <= nx < w and img[ny, nx] and labels[ny, nx] == 0:
                            labels[ny, nx] = nlab
                            stack[sp, 0] = ny
                            stack[sp, 1] = nx
                            sp += 1
    return labels, nlab


def bfs_levels_csr(indptr, indices, src):
    n = indptr.shape[0] - 1
    level = -np.ones(n, dtype=np.int64)
    frontier = np.empty(n, dtype=np.int64)
    level[src] = 0
    frontier[0] = src
    head, tail = 0, 1
    while head < tail:
        u = frontier[head]
        head += 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if level[v] < 0:
                level[v] = level[u] + 1
                frontier[tail] = v
                tail += 1
    return level


def floyd_warshall_inplace(D):
    n = D.shape[0]
    for k in range(n):
        for i in range(n):
            dik = D[i, k]
            for j in range(n):
                if dik + D[k, j] < D[i, j]:
                    D[i, j] = dik + D[k, j]


# ---------------------------------------------------------------- numerical methods


def rk4_decay(y0, k, h, nsteps):
    ys = np.empty(nsteps + 1)
    ys[0] = y0
    t = 0.0
    y = y0
    for i in range(nsteps):
        y = _rk4_step(t, y, h, k)
        t += h
        ys[i + 1] = y
    return ys


def rk4_oscillator(x0, v0, w2, h, nsteps):
    x, v = x0, v0
    traj = np.empty((nsteps, 2))
    for i in range(nsteps):
        k1x, k1v = _oscillator(x, v, w2)
        k2x, k2v = _oscillator(x + 0.5 * h * k1x, v + 0.5 * h * k1v, w2)
        k3x, k3v = _oscillator(x + 0.5 * h * k2x, v + 0.5 * h * k2v, w2)
        k4x, k4v = _oscillator(x + h * k3x, v + h * k3v, w2)
        x += h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        traj[i, 0] = x
        traj[i, 1] = v
    return traj


def newton_poly_roots(c, x0s, tol, maxit):
    out = np.empty(x0s.shape[0])
    iters = np.zeros(x0s.shape[0], dtype=np.int64)
    for k in range(x0s.shape[0]):
        x = x0s[k]
        for it in range(maxit):
            p, dp = _poly_and_slope(c, x)
            if dp == 0.0:
                break
            step = p / dp
            x -= step
            iters[k] = it + 1
            if abs(step) < tol:
                break
        out[k] = x
    return out, iters


def newton_sqrt_vec(a, tol):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        if a[i] <= 0.0:
            out[i] = 0.0
            continue
        x = a[i] if a[i] > 1.0 else 1.0
        while True:
            nx = 0.5 * (x + a[i] / x)
            if abs(nx - x) <= tol * nx:
                x = nx
                break
            x = nx
        out[i] = x
    return out


def gauss_seidel_solve(A, b, tol, maxit):
    n = b.shape[0]
    x = np.zeros(n)
    it = 0
    while it < maxit:
        err = 0.0
        for i in range(n):
            s = b[i]
            for j in range(n):
                if j != i:
                    s -= A[i, j] * x[j]
            new = s / A[i, i]
            err = max(err, abs(new - x[i]))
            x[i] = new
        it += 1
        if err < tol:
            break
    return x, it


def sor_laplace(u, omega, tol, maxit):
    h, w = u.shape
    for it in range(maxit):
        diff = 0.0
        for i in range(1, h - 1):
            for j in range(1, w - 1):
                new = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
                d = new - u[i, j]
                u[i, j] += omega * d
                if abs(d) > diff:
                    diff = abs(d)
        if diff < tol:
            return it + 1
    return maxit


def lu_partial_pivot(A):
    n = A.shape[0]
    LU = A.copy()
    perm = np.arange(n)
    for k in range(n):
        p = k
        big = abs(LU[k, k])
        for i in range(k + 1, n):
            if abs(LU[i, k]) > big:
                big = abs(LU[i, k])
                p = i
        if p != k:
            for j in range(n):
                tmp = LU[k, j]
                LU[k, j] = LU[p, j]
                LU[p, j] = tmp
            perm[k], perm[p] = perm[p], perm[k]
        if LU[k, k] == 0.0:
            continue
        for i in range(k + 1, n):
            LU[i, k] /= LU[k, k]
            for j in range(k + 1, n):
                LU[i, j] -= LU[i, k] * LU[k, j]
    return LU, perm


def lu_solve_swaps(A, b):
    n = A.shape[0]
    M = A.copy()
    x = b.copy()
    for k in range(n):
        p = k + np.argmax(np.abs(M[k:, k]))
        if p != k:
            tmp = M[k, :].copy()
            M[k, :] = M[p, :]
            M[p, :] = tmp
            x[k], x[p] = x[p], x[k]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            M[i, k:] -= f * M[k, k:]
            x[i] -= f * x[k]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for j in range(i + 1, n):
            s -= M[i, j] * x[j]
        x[i] = s / M[i, i]
    return x


def tridiag_thomas_f32(a, b, c, d):
    n = d.shape[0]
    cp = np.empty(n, dtype=np.float32)
    dp = np.empty(n, dtype=np.float32)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.empty(n, dtype=np.float32)
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


def banded_lower_solve(L, b, bw):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = b[i]
        for j in range(max(0, i - bw), i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    return x


def simpson_helper(a, b, n):
    if n % 2 == 1:
        n += 1
    h = (b - a) / n
    s = _f_simpson(a) + _f_simpson(b)
    for i in range(1, n):
        x = a + i * h
        if i % 2:
            s += 4.0 * _f_simpson(x)
        else:
            s += 2.0 * _f_simpson(x)
    return s * h / 3.0


def trapezoid_nonuniform(x, y):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += 0.5 * (x[i] - x[i - 1]) * (y[i] + y[i - 1])
    return total


def natural_spline_coeffs(x, y):
    n = x.shape[0] - 1
    h = np.empty(n)
    for i in range(n):
        h[i] = x[i + 1] - x[i]
    alpha = np.zeros(n + 1)
    for i in range(1, n):
        alpha[i] = 3.0 / h[i] * (y[i + 1] - y[i]) - 3.0 / h[i - 1] * (y[i] - y[i - 1])
    l = np.ones(n + 1)
    mu = np.zeros(n + 1)
    z = np.zeros(n + 1)
    for i in range(1, n):
        l[i] = 2.0 * (x[i + 1] - x[i - 1]) - h[i - 1] * mu[i - 1]
        mu[i] = h[i] / l[i]
        z[i] = (alpha[i] - h[i - 1] * z[i - 1]) / l[i]
    c = np.zeros(n + 1)
    b = np.zeros(n)
    d = np.zeros(n)
    for j in range(n - 1, -1, -1):
        c[j] = z[j] - mu[j] * c[j + 1]
        b[j] = (y[j + 1] - y[j]) / h[j] - h[j] * (c[j + 1] + 2.0 * c[j]) / 3.0
        d[j] = (c[j + 1] - c[j]) / (3.0 * h[j])
    return b, c[:n], d


def bisection_vec(lo, hi, target, tol):
    out = np.empty(target.shape[0])
    for k in range(target.shape[0]):
        a, b = lo, hi
        while b - a > tol:
            mid = 0.5 * (a + b)
            if mid * mid * mid < target[k]:
                a = mid
            else:
                b = mid
        out[k] = 0.5 * (a + b)
    return out


# ---------------------------------------------------------------- statistics


def welford_columns(X):
    n, m = X.shape
    mean = np.zeros(m)
    m2 = np.zeros(m)
    for i in range(n):
        for j in range(m):
            d = X[i, j] - mean[j]
            mean[j] += d / (i + 1)
            m2[j] += d * (X[i, j] - mean[j])
    var = np.empty(m)
    for j in range(m):
        var[j] = m2[j] / (n - 1) if n > 1 else np.nan
    return mean, var


def welford_scalar_f32(x):
    count = 0
    mean = 0.0
    m2 = 0.0
    for v in x:
        if math.isnan(v):
            continue
        count += 1
        d = v - mean
        mean += d / count
        m2 += d * (v - mean)
    if count < 2:
        return mean, 0.0
    return mean, m2 / (count - 1)


def histogram2d_by_hand(x, y, nx, ny, x0, x1, y0, y1):
    H = np.zeros((nx, ny), dtype=np.int64)
    sx = nx / (x1 - x0)
    sy = ny / (y1 - y0)
    for k in range(x.shape[0]):
        if x[k] < x0 or x[k] >= x1 or y[k] < y0 or y[k] >= y1:
            continue
        i = int((x[k] - x0) * sx)
        j = int((y[k] - y0) * sy)
        H[i, j] += 1
    return H


def spearman_rank(x, y):
    n = x.shape[0]
    rx = np.empty(n)
    ry = np.empty(n)
    ox = np.argsort(x)
    oy = np.argsort(y)
    for i in range(n):
        rx[ox[i]] = i
        ry[oy[i]] = i
    d2 = 0.0
    for i in range(n):
        d = rx[i] - ry[i]
        d2 += d * d
    return 1.0 - 6.0 * d2 / (n * (n * n - 1))


def bootstrap_means(x, idx):
    nb, n = idx.shape
    means = np.empty(nb)
    for b in range(nb):
        s = 0.0
        for i in range(n):
            s += x[idx[b, i]]
        means[b] = s / n
    lo = np.inf
    hi = -np.inf
    for b in range(nb):
        lo = min(lo, means[b])
        hi = max(hi, means[b])
    return means, lo, hi


def pearson_pairs(X):
    n, m = X.shape
    C = np.eye(m)
    for a in range(m):
        for b in range(a + 1, m):
            ma = 0.0
            mb = 0.0
            for i in range(n):
                ma += X[i, a]
                mb += X[i, b]
            ma /= n
            mb /= n
            sab = 0.0
            saa = 0.0
            sbb = 0.0
            for i in range(n):
                da = X[i, a] - ma
                db = X[i, b] - mb
                sab += da * db
                saa += da * da
                sbb += db * db
            r = sab / math.sqrt(saa * sbb)
            C[a, b] = r
            C[b, a] = r
    return C


def ecdf_at(sorted_x, q):
    n = sorted_x.shape[0]
    out = np.empty(q.shape[0])
    for k in range(q.shape[0]):
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_x[mid] <= q[k]:
                lo = mid + 1
            else:
                hi = mid
        out[k] = lo / n
    return out


# ---------------------------------------------------------------- images


def bilinear_resize(img, oh, ow):
    h, w = img.shape
    out = np.empty((oh, ow), dtype=np.float32)
    sy = (h - 1) / max(oh - 1, 1)
    sx = (w - 1) / max(ow - 1, 1)
    for i in range(oh):
        for j in range(ow):
            out[i, j] = _bilerp(img, i * sy, j * sx)
    return out


def median3x3(img):
    h, w = img.shape
    out = img.copy()
    win = np.empty(9, dtype=img.dtype)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            k = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    win[k] = img[i + di, j + dj]
                    k += 1
            _sort9(win)
            out[i, j] = win[4]
    return out


def integral_image(img):
    h, w = img.shape
    S = np.zeros((h + 1, w + 1), dtype=np.int64)
    for i in range(h):
        row = 0
        for j in range(w):
            row += img[i, j]
            S[i + 1, j + 1] = S[i, j + 1] + row
    return S


def box_sum_queries(img, boxes):
    h, w = img.shape
    S = np.zeros((h + 1, w + 1))
    for i in range(h):
        for j in range(w):
            S[i + 1, j + 1] = img[i, j] + S[i, j + 1] + S[i + 1, j] - S[i, j]
    out = np.empty(boxes.shape[0])
    for q in range(boxes.shape[0]):
        r0, c0, r1, c1 = boxes[q, 0], boxes[q, 1], boxes[q, 2], boxes[q, 3]
        out[q] = S[r1, c1] - S[r0, c1] - S[r1, c0] + S[r0, c0]
    return out


def erode3x3(img):
    h, w = img.shape
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            v = True
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    y, x = i + di, j + dj
                    if y < 0 or y >= h or x < 0 or x >= w or not img[y, x]:
                        v = False
            out[i, j] = v
    return out


def dilate_iter(img, iters):
    h, w = img.shape
    cur = img.copy()
    for _ in range(iters):
        nxt = cur.copy()
        for i in range(h):
            for j in range(w):
                if cur[i, j]:
                    if i > 0:
                        nxt[i - 1, j] = 1
                    if i < h - 1:
                        nxt[i + 1, j] = 1
                    if j > 0:
                        nxt[i, j - 1] = 1
                    if j < w - 1:
                        nxt[i, j + 1] = 1
        cur = nxt
    return cur


def flood_fill_stack(img, sy, sx, new):
    h, w = img.shape
    old = img[sy, sx]
    if old == new:
        return 0
    stack = np.empty(h * w * 4 + 1, dtype=np.int64)
    sp = 0
    stack[sp] = sy * w + sx
    sp += 1
    filled = 0
    while sp > 0:
        sp -= 1
        p = stack[sp]
        y = p // w
        x = p % w
        if img[y, x] != old:
            continue
        img[y, x] = new
        filled += 1
        if y > 0:
            stack[sp] = p - w
            sp += 1
        if y < h - 1:
            stack[sp] = p + w
            sp += 1
        if x > 0:
            stack[sp] = p - 1
            sp += 1
        if x < w - 1:
            stack[sp] = p + 1
            sp += 1
    return filled


def otsu_threshold(img):
    hist = np.zeros(256, dtype=np.int64)
    for v in img.ravel():
        hist[v] += 1
    total = img.size
    sum_all = 0.0
    for t in range(256):
        sum_all += t * hist[t]
    wb = 0
    sb = 0.0
    best = -1.0
    thr = 0
    for t in range(256):
        wb += hist[t]
        if wb == 0:
            continue
        wf = total - wb
        if wf == 0:
            break
        sb += t * hist[t]
        mb = sb / wb
        mf = (sum_all - sb) / wf
        between = wb * wf * (mb - mf) ** 2
        if between > best:
            best = between
            thr = t
    return thr


def rgb_to_gray_u8(rgb):
    h, w, _ = rgb.shape
    out = np.empty((h, w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            v = 0.299 * rgb[i, j, 0] + 0.587 * rgb[i, j, 1] + 0.114 * rgb[i, j, 2]
            out[i, j] = np.uint8(min(255.0, v + 0.5))
    return out


# ---------------------------------------------------------------- signals


def goertzel_power(x, freqs, fs):
    n = x.shape[0]
    out = np.empty(freqs.shape[0])
    for f in range(freqs.shape[0]):
        k = int(0.5 + n * freqs[f] / fs)
        w = 2.0 * math.pi * k / n
        coeff = 2.0 * math.cos(w)
        s1 = 0.0
        s2 = 0.0
        for i in range(n):
            s0 = x[i] + coeff * s1 - s2
            s2 = s1
            s1 = s0
        out[f] = s1 * s1 + s2 * s2 - coeff * s1 * s2
    return out


def sliding_min_deque(x, w):
    n = x.shape[0]
    out = np.empty(n - w + 1 if n >= w else 0)
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    for i in range(n):
        while tail > head and x[dq[tail - 1]] >= x[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        if dq[head] <= i - w:
            head += 1
        if i >= w - 1:
            out[i - w + 1] = x[dq[head]]
    return out


def zero_crossings_f32(x):
    count = 0
    for i in range(1, x.shape[0]):
        if (x[i - 1] < 0) != (x[i] < 0):
            count += 1
    return count


def biquad_filter(x, b0, b1, b2, a1, a2):
    y = np.empty_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for i in range(x.shape[0]):
        xi = x[i]
        yi = b0 * xi + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, xi
        y2, y1 = y1, yi
        y[i] = yi
    return y


def autocorr_lags(x, maxlag):
    n = x.shape[0]
    mean = 0.0
    for i in range(n):
        mean += x[i]
    mean /= n
    ac = np.zeros(maxlag + 1)
    for lag in range(maxlag + 1):
        s = 0.0
        for i in range(n - lag):
            s += (x[i] - mean) * (x[i + lag] - mean)
        ac[lag] = s
    if ac[0] != 0.0:
        for lag in range(maxlag, -1, -1):
            ac[lag] /= ac[0]
    return ac


# ---------------------------------------------------------------- simulations


def game_of_life(board, steps):
    h, w = board.shape
    cur = board.copy()
    nxt = np.empty_like(cur)
    for _ in range(steps):
        for i in range(h):
            for j in range(w):
                alive = 0
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        if di == 0 and dj == 0:
                            continue
                        alive += cur[(i + di) % h, (j + dj) % w]
                if cur[i, j] == 1:
                    nxt[i, j] = 1 if alive == 2 or alive == 3 else 0
                else:
                    nxt[i, j] = 1 if alive == 3 else 0
        cur, nxt = nxt, cur
    return cur


def ising_sweeps(spins, beta, rand, nsweeps):
    L = spins.shape[0]
    s = spins.copy()
    r = 0
    energy_changes = 0.0
    for sweep in range(nsweeps):
        for i in range(L):
            for j in range(L):
                nb = s[(i + 1) % L, j] + s[(i - 1) % L, j] + s[i, (j + 1) % L] + s[i, (j - 1) % L]
                dE = 2.0 * s[i, j] * nb
                if dE <= 0.0 or rand[r] < math.exp(-beta * dE):
                    s[i, j] = -s[i, j]
                    energy_changes += dE
                r += 1
    return s, energy_changes


def sir_rk4(beta, gamma, s0, i0, h, nsteps):
    out = np.empty((nsteps + 1, 3))
    s, i, r = s0, i0, 1.0 - s0 - i0
    out[0, 0], out[0, 1], out[0, 2] = s, i, r
    for k in range(nsteps):
        ds1 = -beta * s * i
        di1 = beta * s * i - gamma * i
        s2, i2 = s + 0.5 * h * ds1, i + 0.5 * h * di1
        ds2 = -beta * s2 * i2
        di2 = beta * s2 * i2 - gamma * i2
        s3, i3 = s + 0.5 * h * ds2, i + 0.5 * h * di2
        ds3 = -beta * s3 * i3
        di3 = beta * s3 * i3 - gamma * i3
        s4, i4 = s + h * ds3, i + h * di3
        ds4 = -beta * s4 * i4
        di4 = beta * s4 * i4 - gamma * i4
        s += h / 6.0 * (ds1 + 2 * ds2 + 2 * ds3 + ds4)
        i += h / 6.0 * (di1 + 2 * di2 + 2 * di3 + di4)
        r = 1.0 - s - i
        out[k + 1, 0] = s
        out[k + 1, 1] = i
        out[k + 1, 2] = r
    return out


def pic_deposit_cic(xp, qp, ng, dx):
    rho = np.zeros(ng)
    for p in range(xp.shape[0]):
        xs = xp[p] / dx
        i = int(math.floor(xs))
        f = xs - i
        i0 = i % ng
        i1 = (i + 1) % ng
        rho[i0] += qp[p] * (1.0 - f)
        rho[i1] += qp[p] * f
    for g in range(ng):
        rho[g] /= dx
    return rho


def random_walk_given_steps(steps, start, lo, hi):
    n = steps.shape[0]
    pos = np.empty(n + 1, dtype=np.int64)
    pos[0] = start
    p = start
    for i in range(n):
        p += 1 if steps[i] > 0.5 else -1
        if p < lo:
            p = lo
        elif p > hi:
            p = hi
        pos[i + 1] = p
    return pos


def heat_explicit_1d(u0, alpha, nsteps):
    n = u0.shape[0]
    u = u0.copy()
    un = np.empty(n)
    for _ in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            un[i] = u[i] + alpha * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        u, un = un, u
    return u


# ---------------------------------------------------------------- integers and bits


def popcount_table_u8(x):
    table = np.zeros(256, dtype=np.uint8)
    for i in range(256):
        table[i] = (i & 1) + table[i >> 1]
    total = 0
    for k in range(x.shape[0]):
        total += table[x[k]]
    return total


def popcount_u64_helper(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = _popcount64(x[i])
    return out


def crc32_table_driven(data):
    table = np.empty(256, dtype=np.uint32)
    for i in range(256):
        c = np.uint32(i)
        for _ in range(8):
            if c & 1:
                c = np.uint32(0xEDB88320) ^ (c >> np.uint32(1))
            else:
                c = c >> np.uint32(1)
        table[i] = c
    crc = np.uint32(0xFFFFFFFF)
    for k in range(data.shape[0]):
        crc = table[(crc ^ data[k]) & 0xFF] ^ (crc >> np.uint32(8))
    return crc ^ np.uint32(0xFFFFFFFF)


def bit_reverse_permute(x):
    n = x.shape[0]
    bits = 0
    while (1 << bits) < n:
        bits += 1
    out = np.empty_like(x)
    for i in range(n):
        r = 0
        v = i
        for _ in range(bits):
            r = (r << 1) | (v & 1)
            v >>= 1
        out[r] = x[i]
    return out


def gray_code_roundtrip(x):
    n = x.shape[0]
    g = np.empty(n, dtype=np.int64)
    back = np.empty(n, dtype=np.int64)
    for i in range(n):
        g[i] = x[i] ^ (x[i] >> 1)
        b = g[i]
        s = b >> 1
        while s:
            b ^= s
            s >>= 1
        back[i] = b
    return g, back


def adler32(data):
    a = 1
    b = 0
    for k in range(data.shape[0]):
        a = (a + int(data[k])) % 65521
        b = (b + a) % 65521
    return (b << 16) | a


def fib_recursive_helper(n):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = _fib_rec(i)
    return out


# ---------------------------------------------------------------- text as uint8


def count_words_u8(text):
    words = 0
    in_word = False
    for c in text:
        space = c == 32 or c == 10 or c == 9
        if not space and not in_word:
            words += 1
        in_word = not space
    return words


def to_upper_u8(text):
    out = text.copy()
    for i in range(text.shape[0]):
        c = text[i]
        if 97 <= c <= 122:
            out[i] = c - 32
    return out


def find_substring_u8(text, pat):
    n, m = text.shape[0], pat.shape[0]
    for i in range(n - m + 1):
        ok = True
        for j in range(m):
            if text[i + j] != pat[j]:
                ok = False
                break
        if ok:
            return i
    return -1


def parse_ints_u8(text):
    n = text.shape[0]
    count = 0
    in_num = False
    for i in range(n):
        d = 48 <= text[i] <= 57
        if d and not in_num:
            count += 1
        in_num = d
    vals = np.zeros(count, dtype=np.int64)
    k = -1
    in_num = False
    for i in range(n):
        c = text[i]
        if 48 <= c <= 57:
            if not in_num:
                k += 1
            vals[k] = vals[k] * 10 + (c - 48)
            in_num = True
        else:
            in_num = False
    return vals


def char_histogram_u8(text):
    counts = np.zeros(256, dtype=np.int32)
    for c in text:
        counts[c] += 1
    best = 0
    for c in range(256):
        if counts[c] > counts[best]:
            best = c
    return counts, best


# ---------------------------------------------------------------- session 32 leftovers


def rotate_three_buffers(a0, n):
    a = a0.copy()
    b = a0 * 0.5
    c = np.zeros_like(a0)
    for _ in range(n):
        for i in range(a.shape[0]):
            c[i] = a[i] + b[i]
        a, b, c = b, c, a
    return a, b, c


def early_return_then_count(x, thr):
    n = x.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    k = 0
    for i in range(n):
        if x[i] > thr:
            k += 1
    out = np.empty(k, dtype=np.int64)
    p = 0
    for i in range(n):
        if x[i] > thr:
            out[p] = i
            p += 1
    return out


# ---------------------------------------------------------------- inputs


def _seq(rng, n, alphabet=4):
    return rng.integers(0, alphabet, n)


def _poly(rng):
    n = int(rng.integers(3, 7))
    ang = np.sort(rng.random(n)) * 2 * np.pi
    rad = 0.5 + rng.random(n)
    return np.stack([rad * np.cos(ang), rad * np.sin(ang)], axis=1)


def _csr(rng):
    n = int(rng.integers(1, 6))
    deg = rng.integers(0, 3, n)
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    indices = rng.integers(0, n, indptr[-1])
    return indptr, indices


def _dag(rng):
    n = _n(rng, 6, 1)
    A = np.triu(rng.integers(0, 2, (n, n)), 1).astype(np.bool_)
    p = rng.permutation(n)
    if rng.integers(0, 3) == 0 and n > 1:
        A[n - 1, 0] = True  # a cycle
    return (A[p][:, p],)


def _dd(rng, n):
    A = rng.standard_normal((n, n))
    return A + (np.abs(A).sum(axis=1) + 1.0) * np.eye(n)


def _tri32(rng):
    n = _n(rng, 7, 1)
    a = rng.standard_normal(n).astype(np.float32)
    c = rng.standard_normal(n).astype(np.float32)
    b = (np.abs(a) + np.abs(c) + 2).astype(np.float32)
    return a, b, c, rng.standard_normal(n).astype(np.float32)


def _banded(rng):
    n = _n(rng, 6, 1)
    bw = 2
    L = np.tril(rng.standard_normal((n, n)))
    L = np.triu(L, -bw) + 3 * np.eye(n)
    return L, rng.standard_normal(n), bw


def _knots(rng):
    n = _n(rng, 7, 2)
    x = np.cumsum(rng.random(n) + 0.1)
    return x, rng.standard_normal(n)


def _img_u8(rng, h=5, w=6):
    return rng.integers(0, 256, (_n(rng, h, 1), w)).astype(np.uint8)


def _bimg(rng):
    return (rng.random((_n(rng, 5, 1), 6)) < 0.5,)


def _boxes(rng):
    h, w = _n(rng, 5, 1), 4
    q = 3
    r0 = rng.integers(0, h + 1, q)
    r1 = np.maximum(r0, rng.integers(0, h + 1, q))
    c0 = rng.integers(0, w + 1, q)
    c1 = np.maximum(c0, rng.integers(0, w + 1, q))
    return rng.random((h, w)), np.stack([r0, c0, r1, c1], axis=1)


def _fw(rng):
    n = _n(rng, 5)
    return (rng.random((n, n)) + np.where(rng.random((n, n)) < 0.3, np.inf, 0.0),)


def _text(rng):
    alphabet = np.frombuffer(b"ab c\n12 Zx9\t", dtype=np.uint8)
    return (alphabet[rng.integers(0, alphabet.shape[0], _n(rng, 14))],)


CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


# bioinformatics
_add("needleman_wunsch_traceback", needleman_wunsch_traceback,
     lambda r: (_seq(r, _n(r, 6)), _seq(r, 5), 2, -1, 1))
_add("smith_waterman_end", smith_waterman_end, lambda r: (_seq(r, _n(r, 6)), _seq(r, 5), 3, -1, 2))
_add("kmer_counts", kmer_counts, lambda r: (_seq(r, _n(r, 9)), 2))
_add("kmer_rolling", kmer_rolling, lambda r: (_seq(r, _n(r, 9)), 2, np.zeros(16, dtype=np.int64)))
_add("hamming_matrix", hamming_matrix, lambda r: (_seq(r, (_n(r, 4), 6)).astype(np.uint8),))
_add("edit_distance_rows", edit_distance_rows, lambda r: (_seq(r, (_n(r, 3), 4)), _seq(r, 5)))
_add("gc_content_windows", gc_content_windows, lambda r: (_seq(r, _n(r, 9)), 3))
_add("reverse_complement", reverse_complement, lambda r: (_seq(r, _n(r, 8)).astype(np.int8),))
_add("longest_common_substring", longest_common_substring,
     lambda r: (_seq(r, _n(r, 7), 2), _seq(r, 6, 2)))
# geometry
_add("point_in_polygon", point_in_polygon,
     lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n), _poly(r)))(_n(r, 6)))
_add("polygon_area", polygon_area, lambda r: (lambda p: (p[:, 0].copy(), p[:, 1].copy()))(_poly(r)))
_add("convex_hull_monotone", convex_hull_monotone, lambda r: (r.random((_n(r, 8, 1), 2)),))
_add("closest_pair_brute", closest_pair_brute, lambda r: (r.random((_n(r, 6, 1), 2)),))
_add("segment_intersections", segment_intersections, lambda r: (r.random((_n(r, 5), 4)),))
_add("polygon_centroid", polygon_centroid, lambda r: (_poly(r),))
_add("bounding_boxes", bounding_boxes,
     lambda r: (lambda n: (r.standard_normal((n, 2)).astype(np.float32), r.integers(0, 3, n), 3))(_n(r, 8)))
# graphs
_add("union_find_components", union_find_components,
     lambda r: (lambda n: (r.integers(0, n, (_n(r, 5), 2)), n))(int(r.integers(1, 7))))
_add("union_find_rank", union_find_rank,
     lambda r: (lambda n: (r.integers(0, n, (_n(r, 6), 2)), n))(int(r.integers(1, 7))))
_add("dijkstra_heap", dijkstra_heap, lambda r: (lambda g: (g[0], g[1], r.random(g[1].shape[0]), 0))(_csr(r)))
_add("dijkstra_dense", dijkstra_dense,
     lambda r: (lambda n: (r.random((n, n)) * (r.random((n, n)) < 0.5), 0))(_n(r, 5, 1)))
_add("topo_sort_kahn", topo_sort_kahn, _dag)
_add("label_components_4", label_components_4, _bimg)
_add("bfs_levels_csr", bfs_levels_csr, lambda r: (*_csr(r), 0))
_add("floyd_warshall_inplace", floyd_warshall_inplace, _fw)
# numerical methods
_add("rk4_decay", rk4_decay, lambda r: (1.0, 0.7, 0.1, _n(r, 9)))
_add("rk4_oscillator", rk4_oscillator, lambda r: (1.0, 0.0, 4.0, 0.05, _n(r, 8)))
_add("newton_poly_roots", newton_poly_roots,
     lambda r: (np.array([1.0, 0.0, -2.0, 1.0]), r.standard_normal(_n(r, 5)) * 2, 1e-12, int(r.integers(0, 40))))
_add("newton_sqrt_vec", newton_sqrt_vec, lambda r: (r.standard_normal(_n(r)) * 10, 1e-14))
_add("gauss_seidel_solve", gauss_seidel_solve,
     lambda r: (lambda n: (_dd(r, n), r.standard_normal(n), 1e-10, int(r.integers(1, 60))))(_n(r, 5, 1)),
     rtol=1e-8, atol=1e-10)
_add("sor_laplace", sor_laplace,
     lambda r: (r.random((_n(r, 6, 2), 5)), 1.5, 1e-6, int(r.integers(1, 40))), rtol=1e-8, atol=1e-10)
_add("lu_partial_pivot", lu_partial_pivot, lambda r: (r.standard_normal((_n(r, 5, 1),) * 2),), rtol=1e-8, atol=1e-10)
_add("lu_solve_swaps", lu_solve_swaps,
     lambda r: (lambda n: (_dd(r, n), r.standard_normal(n)))(_n(r, 5, 1)), rtol=1e-8, atol=1e-10)
_add("tridiag_thomas_f32", tridiag_thomas_f32, _tri32, rtol=1e-4, atol=1e-5)
_add("banded_lower_solve", banded_lower_solve, _banded, rtol=1e-8, atol=1e-10)
_add("simpson_helper", simpson_helper, lambda r: (0.0, 2.0, int(r.integers(1, 12))))
_add("trapezoid_nonuniform", trapezoid_nonuniform,
     lambda r: (lambda n: (np.cumsum(r.random(n)), r.standard_normal(n)))(_n(r)))
_add("natural_spline_coeffs", natural_spline_coeffs, _knots, rtol=1e-8, atol=1e-10)
_add("bisection_vec", bisection_vec, lambda r: (0.0, 3.0, r.random(_n(r)) * 20, 1e-9))
# statistics
_add("welford_columns", welford_columns, lambda r: (r.standard_normal((_n(r, 6, 1), 3)),))
_add("welford_scalar_f32", welford_scalar_f32,
     lambda r: (lambda n: (np.where(r.random(n) < 0.2, np.nan, r.standard_normal(n)).astype(np.float32),))(_n(r, 8)),
     rtol=1e-5, atol=1e-6)
_add("histogram2d_by_hand", histogram2d_by_hand,
     lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n), 3, 4, -1.0, 1.0, -1.5, 1.5))(_n(r, 12)))
_add("spearman_rank", spearman_rank,
     lambda r: (lambda n: (r.standard_normal(n), r.standard_normal(n)))(_n(r, 7, 2)))
_add("bootstrap_means", bootstrap_means,
     lambda r: (lambda n: (r.standard_normal(n), r.integers(0, n, (_n(r, 4), n))))(int(r.integers(1, 6))))
_add("pearson_pairs", pearson_pairs, lambda r: (r.standard_normal((_n(r, 6, 3), 3)),), rtol=1e-8, atol=1e-10)
_add("ecdf_at", ecdf_at, lambda r: (np.sort(r.standard_normal(int(r.integers(1, 8)))), r.standard_normal(_n(r, 5))))
# images
_add("bilinear_resize", bilinear_resize,
     lambda r: (r.random((_n(r, 4, 1), 5)).astype(np.float32), 6, int(r.integers(1, 8))), rtol=1e-5, atol=1e-6)
_add("median3x3", median3x3, lambda r: (_img_u8(r),))
_add("integral_image", integral_image, lambda r: (_img_u8(r),))
_add("box_sum_queries", box_sum_queries, _boxes)
_add("erode3x3", erode3x3, _bimg)
_add("dilate_iter", dilate_iter, lambda r: ((r.random((_n(r, 5, 1), 6)) < 0.2).astype(np.int8), int(r.integers(0, 3))))
_add("flood_fill_stack", flood_fill_stack,
     lambda r: (lambda im: (im, int(r.integers(0, im.shape[0])), 1, 2))(r.integers(0, 2, (_n(r, 5, 1), 4))))
_add("otsu_threshold", otsu_threshold, lambda r: (_img_u8(r),))
_add("rgb_to_gray_u8", rgb_to_gray_u8, lambda r: (r.integers(0, 256, (_n(r, 3), 4, 3)).astype(np.uint8),))
# signals
_add("goertzel_power", goertzel_power,
     lambda r: (r.standard_normal(_n(r, 16, 1)), np.array([50.0, 120.0, 250.0]), 1000.0), rtol=1e-8, atol=1e-10)
_add("sliding_min_deque", sliding_min_deque, lambda r: (r.standard_normal(_n(r, 9)), 3))
_add("zero_crossings_f32", zero_crossings_f32, lambda r: (r.standard_normal(_n(r, 10)).astype(np.float32),))
_add("biquad_filter", biquad_filter, lambda r: (r.standard_normal(_n(r, 10)), 0.2, 0.4, 0.2, -0.3, 0.1))
_add("autocorr_lags", autocorr_lags, lambda r: (r.standard_normal(_n(r, 9, 1)), 3), rtol=1e-8, atol=1e-10)
# simulations
_add("game_of_life", game_of_life, lambda r: (r.integers(0, 2, (_n(r, 5, 1), 6)), int(r.integers(0, 4))))
_add("ising_sweeps", ising_sweeps,
     lambda r: (lambda L: (np.where(r.random((L, L)) < 0.5, -1, 1), 0.4, r.random(2 * L * L), 2))(_n(r, 4, 1)))
_add("sir_rk4", sir_rk4, lambda r: (0.4, 0.1, 0.99, 0.01, 0.5, _n(r, 8)))
_add("pic_deposit_cic", pic_deposit_cic,
     lambda r: (lambda n: (r.random(n) * 8.0, r.standard_normal(n), 8, 1.0))(_n(r, 10)))
_add("random_walk_given_steps", random_walk_given_steps, lambda r: (r.random(_n(r, 12)), 0, -3, 3))
_add("heat_explicit_1d", heat_explicit_1d, lambda r: (r.random(_n(r, 8, 2)), 0.25, int(r.integers(0, 5))))
# integers and bits
_add("popcount_table_u8", popcount_table_u8, lambda r: (r.integers(0, 256, _n(r, 10)).astype(np.uint8),))
_add("popcount_u64_helper", popcount_u64_helper, lambda r: (r.integers(0, 2**62, _n(r, 6)),))
_add("crc32_table_driven", crc32_table_driven, lambda r: (r.integers(0, 256, _n(r, 10)).astype(np.uint8),))
_add("bit_reverse_permute", bit_reverse_permute, lambda r: (r.standard_normal(8 if r.integers(0, 3) else 1),))
_add("gray_code_roundtrip", gray_code_roundtrip, lambda r: (r.integers(0, 1000, _n(r)),))
_add("adler32", adler32, lambda r: (r.integers(0, 256, _n(r, 12)).astype(np.uint8),))
_add("fib_recursive_helper", fib_recursive_helper, lambda r: (_n(r, 6),))
# text
_add("count_words_u8", count_words_u8, _text)
_add("to_upper_u8", to_upper_u8, _text)
_add("find_substring_u8", find_substring_u8,
     lambda r: (_text(r)[0], np.frombuffer(b"c\n", dtype=np.uint8).copy()))
_add("parse_ints_u8", parse_ints_u8, _text)
_add("char_histogram_u8", char_histogram_u8, _text)
# session 32 leftovers
_add("rotate_three_buffers", rotate_three_buffers, lambda r: (r.random(_n(r, 5)), int(r.integers(0, 4))))
_add("early_return_then_count", early_return_then_count, lambda r: (r.standard_normal(_n(r)), 0.1))
