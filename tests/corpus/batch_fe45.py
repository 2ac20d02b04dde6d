"""fe45's batch: numba code from corners the earlier batches touch little, written before looking
at what is supported: alignment with affine gaps (Gotoh), banded and score-only DP, RNA folding
(Nussinov), codon tables and minimizers on uint8 sequences; audio DSP (CIC, linear and polyphase
resampling, LMS, Schroeder comb/allpass, envelope followers, mu-law, Karplus-Strong on given
noise); geometry (Bresenham, barycentric rasterisation, ray-triangle, haversine, rotating
calipers, Douglas-Peucker with a stack); numerics (dense CG, Newton on 2x2 systems, adaptive
RK45 steps, Romberg, Clenshaw, Jacobi eigenvalue rotations, Householder QR, golden section,
Crank-Nicolson with Thomas); images (bilateral, median-of-9 sorting network, LBP, census, SAD
block matching, ordered dither, RGB to HSV, demosaic); simulations (forest fire and traffic on
given randoms, sandpile toppling, Langton's ant, Brian's brain, boids, lattice Boltzmann);
bytes (base64 both ways, CRC-16, Fletcher-16, UTF-8 code points, LEB128, Luhn, djb2);
statistics (EWMA variance, rolling min/max with deque arrays, online covariance, CUSUM, Gini,
KS statistic, Mann-Whitney U, chi-square).  Written as numba users write them: @njit helpers,
tuples returned, early returns, while loops, ``s = 0`` then ``s += x[i]``, int/float mixing.

At 8b3fe51 (cpu and python targets, four seeds each, POLYFUSE_NUM_THREADS=2): 88 match, 12 refused,
none wrong or crashed.  After fe45's fixes 95 match: elements of tuple locals at computed indices
(langtons_ant's ``dy[d]``, lbm_d1q3_diffusion's weights), loops over tuples of values
(hull_diameter_sq's ``for q in (i, ni)``, median9_network's compare-exchange pairs), value helpers
whose ifs assign locals or return tuples (rgb_to_hsv_image, median9_network's ``_sort2``),
ping-pong buffers read element-wise into locals (forest_fire), a scratch local reused under a
data-dependent if (nussinov_pairs).  Refused: np.frombuffer of a bytes literal with ``dtype=``
(base64_encode, hex_encode), an allocation whose extent reads the data (base64_decode), a count
grown in ``while True`` (leb128_encode), and ``u[i - 1]`` at ``i = 0`` (predator_prey_grid_euler,
per call: negative indices are not wrapped)."""

import math

import numpy as np
from corpus_case import Case
from numba import njit


def _n(rng, big=7, edge=0):
    return big if rng.integers(0, 3) else edge


def _seq(rng, n=None, k=4):
    n = _n(rng, 12, 1) if n is None else n
    return rng.integers(0, k, n).astype(np.uint8)


def _text(rng, n=None, alphabet=b"abcdefgh xyz,0123"):
    n = _n(rng, 16, 0) if n is None else n
    a = np.frombuffer(alphabet, dtype=np.uint8)
    return a[rng.integers(0, a.shape[0], n)].copy()


def _spd(rng, n):
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


# ---------------------------------------------------------------- helpers


@njit
def _max3(a, b, c):
    m = a
    if b > m:
        m = b
    if c > m:
        m = c
    return m


@njit
def _sub_score(a, b, match, mismatch):
    if a == b:
        return match
    return mismatch


@njit
def _cross(ox, oy, ax, ay, bx, by):
    return (ax - ox) * (by - oy) - (ay - oy) * (bx - ox)


@njit
def _haversine(lat1, lon1, lat2, lon2):
    r = 6371.0
    p1 = math.radians(lat1)
    p2 = math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


@njit
def _sort2(a, b):
    if a > b:
        return b, a
    return a, b


@njit
def _f(t, y):
    return -2.0 * y + math.sin(t)


@njit
def _clenshaw(c, x):
    b1 = 0.0
    b2 = 0.0
    for k in range(c.shape[0] - 1, 0, -1):
        b0 = 2.0 * x * b1 - b2 + c[k]
        b2 = b1
        b1 = b0
    return x * b1 - b2 + c[0]


@njit
def _thomas(a, b, c, d, x):
    n = d.shape[0]
    cp = np.empty(n)
    dp = np.empty(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]


@njit
def _mulaw(x, mu):
    s = 1.0
    if x < 0:
        s = -1.0
    return s * math.log1p(mu * abs(x)) / math.log1p(mu)


@njit
def _b64_index(c):
    if c >= 65 and c <= 90:
        return c - 65
    if c >= 97 and c <= 122:
        return c - 97 + 26
    if c >= 48 and c <= 57:
        return c - 48 + 52
    if c == 43:
        return 62
    if c == 47:
        return 63
    return -1


@njit
def _rgb_to_hsv(r, g, b):
    mx = max(r, g, b)
    mn = min(r, g, b)
    v = mx
    d = mx - mn
    if mx == 0:
        return 0.0, 0.0, v
    s = d / mx
    if d == 0:
        return 0.0, s, v
    if mx == r:
        h = (g - b) / d
    elif mx == g:
        h = 2.0 + (b - r) / d
    else:
        h = 4.0 + (r - g) / d
    h = h / 6.0
    if h < 0:
        h += 1.0
    return h, s, v


@njit
def _ray_tri(o, d, v0, v1, v2):
    e1 = v1 - v0
    e2 = v2 - v0
    px = d[1] * e2[2] - d[2] * e2[1]
    py = d[2] * e2[0] - d[0] * e2[2]
    pz = d[0] * e2[1] - d[1] * e2[0]
    det = e1[0] * px + e1[1] * py + e1[2] * pz
    if abs(det) < 1e-12:
        return -1.0
    inv = 1.0 / det
    tx = o[0] - v0[0]
    ty = o[1] - v0[1]
    tz = o[2] - v0[2]
    u = (tx * px + ty * py + tz * pz) * inv
    if u < 0.0 or u > 1.0:
        return -1.0
    qx = ty * e1[2] - tz * e1[1]
    qy = tz * e1[0] - tx * e1[2]
    qz = tx * e1[1] - ty * e1[0]
    v = (d[0] * qx + d[1] * qy + d[2] * qz) * inv
    if v < 0.0 or u + v > 1.0:
        return -1.0
    return (e2[0] * qx + e2[1] * qy + e2[2] * qz) * inv


@njit
def _seg_dist(px, py, ax, ay, bx, by):
    dx = bx - ax
    dy = by - ay
    l2 = dx * dx + dy * dy
    if l2 == 0.0:
        return math.hypot(px - ax, py - ay)
    t = ((px - ax) * dx + (py - ay) * dy) / l2
    t = max(0.0, min(1.0, t))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


# ---------------------------------------------------------------- bioinformatics


def gotoh_affine_score(a, b, match, mismatch, gap_open, gap_extend):
    n = a.shape[0]
    m = b.shape[0]
    neg = -1e18
    H = np.zeros((n + 1, m + 1))
    E = np.full((n + 1, m + 1), neg)
    F = np.full((n + 1, m + 1), neg)
    best = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            E[i, j] = max(E[i, j - 1] - gap_extend, H[i, j - 1] - gap_open)
            F[i, j] = max(F[i - 1, j] - gap_extend, H[i - 1, j] - gap_open)
            diag = H[i - 1, j - 1] + _sub_score(a[i - 1], b[j - 1], match, mismatch)
            h = _max3(diag, E[i, j], F[i, j])
            if h < 0:
                h = 0.0
            H[i, j] = h
            if h > best:
                best = h
    return best


def nw_global_affine_end(a, b, match, mismatch, gap_open, gap_extend):
    n = a.shape[0]
    m = b.shape[0]
    neg = -1e18
    M = np.full((n + 1, m + 1), neg)
    X = np.full((n + 1, m + 1), neg)
    Y = np.full((n + 1, m + 1), neg)
    M[0, 0] = 0.0
    for i in range(1, n + 1):
        X[i, 0] = -gap_open - (i - 1) * gap_extend
    for j in range(1, m + 1):
        Y[0, j] = -gap_open - (j - 1) * gap_extend
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            M[i, j] = s + max(M[i - 1, j - 1], X[i - 1, j - 1], Y[i - 1, j - 1])
            X[i, j] = max(M[i - 1, j] - gap_open, X[i - 1, j] - gap_extend)
            Y[i, j] = max(M[i, j - 1] - gap_open, Y[i, j - 1] - gap_extend)
    return max(M[n, m], X[n, m], Y[n, m])


def banded_edit_distance(a, b, band):
    n = a.shape[0]
    m = b.shape[0]
    if abs(n - m) > band:
        return -1
    big = n + m + 1
    D = np.full((n + 1, m + 1), big, dtype=np.int64)
    for i in range(n + 1):
        if i <= band:
            D[i, 0] = i
    for j in range(m + 1):
        if j <= band:
            D[0, j] = j
    for i in range(1, n + 1):
        lo = max(1, i - band)
        hi = min(m, i + band)
        for j in range(lo, hi + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = D[i - 1, j - 1] + cost
            if D[i - 1, j] + 1 < v:
                v = D[i - 1, j] + 1
            if D[i, j - 1] + 1 < v:
                v = D[i, j - 1] + 1
            D[i, j] = v
    return D[n, m]


def nussinov_pairs(seq, min_loop):
    n = seq.shape[0]
    N = np.zeros((n, n), dtype=np.int32)
    for length in range(min_loop + 1, n):
        for i in range(n - length):
            j = i + length
            best = N[i + 1, j]
            if N[i, j - 1] > best:
                best = N[i, j - 1]
            if seq[i] + seq[j] == 3:
                v = N[i + 1, j - 1] + 1
                if v > best:
                    best = v
            for k in range(i + 1, j):
                v = N[i, k] + N[k + 1, j]
                if v > best:
                    best = v
            N[i, j] = best
    if n == 0:
        return 0
    return N[0, n - 1]


def translate_codons(seq, table):
    n = seq.shape[0] // 3
    out = np.empty(n, dtype=np.uint8)
    for i in range(n):
        idx = seq[3 * i] * 16 + seq[3 * i + 1] * 4 + seq[3 * i + 2]
        out[i] = table[idx]
    return out


def longest_orf(seq, start_codon, stop_codons):
    n = seq.shape[0]
    best = 0
    best_start = -1
    for frame in range(3):
        i = frame
        open_at = -1
        while i + 2 < n:
            code = seq[i] * 16 + seq[i + 1] * 4 + seq[i + 2]
            if open_at < 0:
                if code == start_codon:
                    open_at = i
            else:
                is_stop = False
                for s in range(stop_codons.shape[0]):
                    if code == stop_codons[s]:
                        is_stop = True
                if is_stop:
                    length = i + 3 - open_at
                    if length > best:
                        best = length
                        best_start = open_at
                    open_at = -1
            i += 3
    return best_start, best


def minimizers(seq, k, w):
    n = seq.shape[0]
    nk = n - k + 1
    if nk <= 0:
        return np.zeros(0, dtype=np.int64)
    codes = np.empty(nk, dtype=np.int64)
    for i in range(nk):
        c = 0
        for j in range(k):
            c = c * 4 + int(seq[i + j])
        codes[i] = (c * 2654435761) % 1000003
    nw = max(nk - w + 1, 0)
    out = np.empty(nw, dtype=np.int64)
    for s in range(nw):
        best = codes[s]
        pos = s
        for t in range(s + 1, s + w):
            if codes[t] < best:
                best = codes[t]
                pos = t
        out[s] = pos
    return out


def pwm_best_hit(seq, pwm):
    L = pwm.shape[0]
    n = seq.shape[0]
    best = -np.inf
    best_pos = -1
    for i in range(n - L + 1):
        s = 0.0
        for j in range(L):
            s += pwm[j, seq[i + j]]
        if s > best:
            best = s
            best_pos = i
    return best_pos, best


def jukes_cantor_matrix(seqs):
    m, L = seqs.shape
    D = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            diff = 0
            for k in range(L):
                if seqs[i, k] != seqs[j, k]:
                    diff += 1
            p = diff / L
            if p >= 0.75:
                d = np.inf
            else:
                d = -0.75 * math.log(1.0 - 4.0 * p / 3.0)
            D[i, j] = d
            D[j, i] = d
    return D


def kmer_spectrum_u8(seq, k):
    size = 4 ** k
    counts = np.zeros(size, dtype=np.int64)
    mask = size - 1
    code = 0
    valid = 0
    for i in range(seq.shape[0]):
        c = seq[i]
        if c > 3:
            valid = 0
            code = 0
            continue
        code = ((code << 2) | c) & mask
        valid += 1
        if valid >= k:
            counts[code] += 1
    return counts


def quality_trim(qual, threshold):
    n = qual.shape[0]
    s = 0
    best = 0
    cut = n
    for i in range(n - 1, -1, -1):
        s += threshold - qual[i]
        if s < 0:
            break
        if s > best:
            best = s
            cut = i
    return cut


# ---------------------------------------------------------------- signal processing


def cic_decimate(x, R, N):
    n = x.shape[0]
    integ = np.zeros(N)
    comb = np.zeros(N)
    nout = n // R
    out = np.empty(nout)
    k = 0
    for i in range(n):
        v = x[i]
        for s in range(N):
            integ[s] += v
            v = integ[s]
        if (i + 1) % R == 0:
            for s in range(N):
                t = v
                v = v - comb[s]
                comb[s] = t
            out[k] = v
            k += 1
    return out


def linear_resample(x, ratio):
    n = x.shape[0]
    m = int(n * ratio)
    out = np.zeros(m)
    for i in range(m):
        pos = i / ratio
        j = int(pos)
        frac = pos - j
        if j + 1 < n:
            out[i] = x[j] * (1 - frac) + x[j + 1] * frac
        elif j < n:
            out[i] = x[j]
    return out


def polyphase_upsample(x, h, L):
    n = x.shape[0]
    taps = h.shape[0]
    out = np.zeros(n * L)
    for i in range(n * L):
        acc = 0.0
        phase = i % L
        k = phase
        while k < taps:
            j = (i - k) // L
            if j >= 0 and j < n:
                acc += h[k] * x[j]
            k += L
        out[i] = acc * L
    return out


def lms_filter(x, d, taps, mu):
    n = x.shape[0]
    w = np.zeros(taps)
    y = np.zeros(n)
    e = np.zeros(n)
    for i in range(n):
        acc = 0.0
        for k in range(taps):
            if i - k >= 0:
                acc += w[k] * x[i - k]
        y[i] = acc
        e[i] = d[i] - acc
        for k in range(taps):
            if i - k >= 0:
                w[k] += 2 * mu * e[i] * x[i - k]
    return y, e, w


def schroeder_comb_allpass(x, delay_c, g_c, delay_a, g_a):
    n = x.shape[0]
    buf_c = np.zeros(delay_c)
    buf_a = np.zeros(delay_a)
    ic = 0
    ia = 0
    out = np.empty(n)
    for i in range(n):
        yc = x[i] + g_c * buf_c[ic]
        buf_c[ic] = yc
        ic += 1
        if ic == delay_c:
            ic = 0
        bd = buf_a[ia]
        ya = -g_a * yc + bd
        buf_a[ia] = yc + g_a * ya
        ia = (ia + 1) % delay_a
        out[i] = ya
    return out


def envelope_follower(x, attack, release):
    env = 0.0
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a > env:
            env = attack * env + (1 - attack) * a
        else:
            env = release * env + (1 - release) * a
        out[i] = env
    return out


def mulaw_roundtrip(x, mu):
    n = x.shape[0]
    codes = np.empty(n, dtype=np.int16)
    back = np.empty(n)
    for i in range(n):
        y = _mulaw(min(max(x[i], -1.0), 1.0), mu)
        q = int(round(y * 127))
        codes[i] = q
        yy = q / 127.0
        sgn = 1 if yy >= 0 else -1
        back[i] = sgn * ((1 + mu) ** abs(yy) - 1) / mu
    return codes, back


def karplus_strong(noise, n_out, decay):
    p = noise.shape[0]
    buf = noise.copy()
    out = np.empty(n_out)
    idx = 0
    for i in range(n_out):
        nxt = (idx + 1) % p
        v = buf[idx]
        out[i] = v
        buf[idx] = decay * 0.5 * (v + buf[nxt])
        idx = nxt
    return out


def goertzel_bank(x, freqs, fs):
    n = x.shape[0]
    out = np.empty(freqs.shape[0])
    for f in range(freqs.shape[0]):
        k = int(0.5 + n * freqs[f] / fs)
        w = 2 * math.pi * k / max(n, 1)
        coeff = 2 * math.cos(w)
        s1 = 0.0
        s2 = 0.0
        for i in range(n):
            s0 = x[i] + coeff * s1 - s2
            s2 = s1
            s1 = s0
        out[f] = s1 * s1 + s2 * s2 - coeff * s1 * s2
    return out


def iir_df2t_state(b, a, x, zi):
    n = x.shape[0]
    order = zi.shape[0]
    y = np.empty(n)
    z = zi.copy()
    for i in range(n):
        yi = b[0] * x[i] + z[0]
        for k in range(order - 1):
            z[k] = b[k + 1] * x[i] + z[k + 1] - a[k + 1] * yi
        z[order - 1] = b[order] * x[i] - a[order] * yi
        y[i] = yi
    return y, z


def agc_gain(x, target, rate):
    g = 1.0
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        y = g * x[i]
        out[i] = y
        err = target - abs(y)
        g += rate * err
        if g < 0.01:
            g = 0.01
        elif g > 100:
            g = 100
    return out, g


def pll_phase_track(x, f0, kp, ki):
    phase = 0.0
    freq = f0
    integ = 0.0
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        err = x[i] * -math.sin(phase)
        integ += ki * err
        freq = f0 + kp * err + integ
        phase += 2 * math.pi * freq
        while phase > math.pi:
            phase -= 2 * math.pi
        while phase < -math.pi:
            phase += 2 * math.pi
        out[i] = phase
    return out, freq


def sample_hold_quantize(x, hold, levels):
    n = x.shape[0]
    out = np.empty(n)
    held = 0.0
    for i in range(n):
        if i % hold == 0:
            held = x[i]
        q = math.floor(held * levels + 0.5) / levels
        out[i] = q
    return out


def spectral_flux(frames):
    nf, nb = frames.shape
    flux = np.zeros(nf)
    for t in range(1, nf):
        s = 0
        for k in range(nb):
            d = frames[t, k] - frames[t - 1, k]
            if d > 0:
                s += d
        flux[t] = s
    return flux


# ---------------------------------------------------------------- geometry


def bresenham_raster(x0s, y0s, x1s, y1s, grid):
    h, w = grid.shape
    for s in range(x0s.shape[0]):
        x0 = x0s[s]
        y0 = y0s[s]
        x1 = x1s[s]
        y1 = y1s[s]
        dx = abs(x1 - x0)
        dy = -abs(y1 - y0)
        sx = 1 if x0 < x1 else -1
        sy = 1 if y0 < y1 else -1
        err = dx + dy
        while True:
            if 0 <= x0 < w and 0 <= y0 < h:
                grid[y0, x0] += 1
            if x0 == x1 and y0 == y1:
                break
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy
    return grid


def triangle_coverage(tri, h, w):
    img = np.zeros((h, w), dtype=np.uint8)
    x0, y0 = tri[0, 0], tri[0, 1]
    x1, y1 = tri[1, 0], tri[1, 1]
    x2, y2 = tri[2, 0], tri[2, 1]
    area = _cross(x0, y0, x1, y1, x2, y2)
    if area == 0:
        return img
    for i in range(h):
        for j in range(w):
            px = j + 0.5
            py = i + 0.5
            w0 = _cross(x1, y1, x2, y2, px, py) / area
            w1 = _cross(x2, y2, x0, y0, px, py) / area
            w2 = 1.0 - w0 - w1
            if w0 >= 0 and w1 >= 0 and w2 >= 0:
                img[i, j] = 1
    return img


def ray_triangle_hits(origins, dirs, v0, v1, v2):
    n = origins.shape[0]
    t = np.empty(n)
    hits = 0
    for i in range(n):
        ti = _ray_tri(origins[i], dirs[i], v0, v1, v2)
        t[i] = ti
        if ti > 0:
            hits += 1
    return t, hits


def haversine_path_length(lat, lon):
    total = 0.0
    for i in range(1, lat.shape[0]):
        total += _haversine(lat[i - 1], lon[i - 1], lat[i], lon[i])
    return total


def hull_diameter_sq(px, py):
    # points given in convex position, counter-clockwise
    n = px.shape[0]
    if n < 2:
        return 0.0
    best = 0.0
    j = 1
    for i in range(n):
        ni = (i + 1) % n
        while True:
            nj = (j + 1) % n
            a1 = abs(_cross(px[i], py[i], px[ni], py[ni], px[nj], py[nj]))
            a0 = abs(_cross(px[i], py[i], px[ni], py[ni], px[j], py[j]))
            if a1 > a0:
                j = nj
            else:
                break
        for q in (i, ni):
            d = (px[q] - px[j]) ** 2 + (py[q] - py[j]) ** 2
            if d > best:
                best = d
    return best


def douglas_peucker_mask(x, y, eps):
    n = x.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    if n == 0:
        return keep
    keep[0] = True
    keep[n - 1] = True
    stack = np.empty(2 * n, dtype=np.int64)
    top = 0
    stack[0] = 0
    stack[1] = n - 1
    top = 2
    while top > 0:
        e = stack[top - 1]
        s = stack[top - 2]
        top -= 2
        dmax = 0.0
        idx = -1
        for i in range(s + 1, e):
            d = _seg_dist(x[i], y[i], x[s], y[s], x[e], y[e])
            if d > dmax:
                dmax = d
                idx = i
        if idx >= 0 and dmax > eps:
            keep[idx] = True
            stack[top] = s
            stack[top + 1] = idx
            stack[top + 2] = idx
            stack[top + 3] = e
            top += 4
    return keep


def circumcircles(tris):
    n = tris.shape[0]
    out = np.empty((n, 3))
    for t in range(n):
        ax, ay = tris[t, 0, 0], tris[t, 0, 1]
        bx, by = tris[t, 1, 0], tris[t, 1, 1]
        cx, cy = tris[t, 2, 0], tris[t, 2, 1]
        d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
        if d == 0:
            out[t, 0] = np.nan
            out[t, 1] = np.nan
            out[t, 2] = np.inf
            continue
        a2 = ax * ax + ay * ay
        b2 = bx * bx + by * by
        c2 = cx * cx + cy * cy
        ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d
        uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d
        out[t, 0] = ux
        out[t, 1] = uy
        out[t, 2] = math.hypot(ax - ux, ay - uy)
    return out


def aabb_overlap_count(lo, hi):
    n = lo.shape[0]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            ok = True
            for d in range(lo.shape[1]):
                if hi[i, d] < lo[j, d] or hi[j, d] < lo[i, d]:
                    ok = False
                    break
            if ok:
                count += 1
    return count


def polyline_resample_even(x, y, m):
    n = x.shape[0]
    cum = np.zeros(n)
    for i in range(1, n):
        cum[i] = cum[i - 1] + math.hypot(x[i] - x[i - 1], y[i] - y[i - 1])
    total = cum[n - 1]
    ox = np.empty(m)
    oy = np.empty(m)
    seg = 0
    for k in range(m):
        t = total * k / (m - 1) if m > 1 else 0.0
        while seg < n - 2 and cum[seg + 1] < t:
            seg += 1
        span = cum[seg + 1] - cum[seg]
        f = 0.0 if span == 0 else (t - cum[seg]) / span
        ox[k] = x[seg] + f * (x[seg + 1] - x[seg])
        oy[k] = y[seg] + f * (y[seg + 1] - y[seg])
    return ox, oy


def point_segment_min_dist(px, py, sx, sy):
    n = px.shape[0]
    out = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        bi = -1
        for s in range(sx.shape[0] - 1):
            d = _seg_dist(px[i], py[i], sx[s], sy[s], sx[s + 1], sy[s + 1])
            if d < best:
                best = d
                bi = s
        out[i] = best
        idx[i] = bi
    return out, idx


# ---------------------------------------------------------------- numerical


def cg_dense(A, b, tol, maxit):
    n = b.shape[0]
    x = np.zeros(n)
    r = b.copy()
    p = r.copy()
    rs = 0.0
    for i in range(n):
        rs += r[i] * r[i]
    it = 0
    while it < maxit and math.sqrt(rs) > tol:
        Ap = np.zeros(n)
        for i in range(n):
            for j in range(n):
                Ap[i] += A[i, j] * p[j]
        pAp = 0.0
        for i in range(n):
            pAp += p[i] * Ap[i]
        alpha = rs / pAp
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * Ap[i]
        rs_new = 0.0
        for i in range(n):
            rs_new += r[i] * r[i]
        for i in range(n):
            p[i] = r[i] + (rs_new / rs) * p[i]
        rs = rs_new
        it += 1
    return x, it


def newton_2x2_system(x0, y0, a, tol, maxit):
    # x^2 + y^2 = a, x - y = 0.5
    x = x0
    y = y0
    for it in range(maxit):
        f1 = x * x + y * y - a
        f2 = x - y - 0.5
        j11 = 2 * x
        j12 = 2 * y
        j21 = 1
        j22 = -1
        det = j11 * j22 - j12 * j21
        if det == 0:
            return x, y, -1
        dx = (f1 * j22 - f2 * j12) / det
        dy = (j11 * f2 - j21 * f1) / det
        x -= dx
        y -= dy
        if abs(dx) + abs(dy) < tol:
            return x, y, it + 1
    return x, y, maxit


def rk45_adaptive(y0, t0, t1, tol, h0):
    t = t0
    y = y0
    h = h0
    steps = 0
    rejected = 0
    while t < t1 and steps < 10000:
        if t + h > t1:
            h = t1 - t
        k1 = _f(t, y)
        k2 = _f(t + h / 4, y + h * k1 / 4)
        k3 = _f(t + 3 * h / 8, y + h * (3 * k1 + 9 * k2) / 32)
        k4 = _f(t + 12 * h / 13, y + h * (1932 * k1 - 7200 * k2 + 7296 * k3) / 2197)
        k5 = _f(t + h, y + h * (439 * k1 / 216 - 8 * k2 + 3680 * k3 / 513 - 845 * k4 / 4104))
        k6 = _f(t + h / 2, y + h * (-8 * k1 / 27 + 2 * k2 - 3544 * k3 / 2565 + 1859 * k4 / 4104 - 11 * k5 / 40))
        y4 = y + h * (25 * k1 / 216 + 1408 * k3 / 2565 + 2197 * k4 / 4104 - k5 / 5)
        y5 = y + h * (16 * k1 / 135 + 6656 * k3 / 12825 + 28561 * k4 / 56430 - 9 * k5 / 50 + 2 * k6 / 55)
        err = abs(y5 - y4)
        if err <= tol or h < 1e-10:
            t += h
            y = y4
            steps += 1
        else:
            rejected += 1
        if err == 0:
            h = h * 2
        else:
            h = h * min(2.0, max(0.1, 0.84 * (tol / err) ** 0.25))
    return y, steps, rejected


def romberg_sin(a, b, levels):
    R = np.zeros((levels, levels))
    h = b - a
    R[0, 0] = 0.5 * h * (math.sin(a) + math.sin(b))
    for i in range(1, levels):
        h /= 2
        s = 0
        for k in range(1, 2 ** i, 2):
            s += math.sin(a + k * h)
        R[i, 0] = 0.5 * R[i - 1, 0] + h * s
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    return R[levels - 1, levels - 1]


def chebyshev_eval_many(c, xs):
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        out[i] = _clenshaw(c, xs[i])
    return out


def jacobi_eigenvalues(A, sweeps):
    a = A.copy()
    n = a.shape[0]
    for sweep in range(sweeps):
        off = 0.0
        for p in range(n):
            for q in range(p + 1, n):
                off += a[p, q] * a[p, q]
        if off < 1e-22:
            break
        for p in range(n):
            for q in range(p + 1, n):
                if abs(a[p, q]) < 1e-300:
                    continue
                theta = (a[q, q] - a[p, p]) / (2 * a[p, q])
                t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1))
                if theta < 0:
                    t = -t
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for k in range(n):
                    akp = a[k, p]
                    akq = a[k, q]
                    a[k, p] = c * akp - s * akq
                    a[k, q] = s * akp + c * akq
                for k in range(n):
                    apk = a[p, k]
                    aqk = a[q, k]
                    a[p, k] = c * apk - s * aqk
                    a[q, k] = s * apk + c * aqk
    ev = np.empty(n)
    for i in range(n):
        ev[i] = a[i, i]
    return np.sort(ev)


def householder_r(A):
    m, n = A.shape
    R = A.copy()
    v = np.empty(m)
    for k in range(min(m - 1, n)):
        norm = 0.0
        for i in range(k, m):
            norm += R[i, k] ** 2
        norm = math.sqrt(norm)
        if norm == 0:
            continue
        alpha = -norm if R[k, k] >= 0 else norm
        for i in range(m):
            v[i] = 0.0
        v[k] = R[k, k] - alpha
        for i in range(k + 1, m):
            v[i] = R[i, k]
        vn = 0.0
        for i in range(k, m):
            vn += v[i] * v[i]
        if vn == 0:
            continue
        for j in range(n):
            d = 0.0
            for i in range(k, m):
                d += v[i] * R[i, j]
            f = 2 * d / vn
            for i in range(k, m):
                R[i, j] -= f * v[i]
    return R


def golden_section_min(a, b, c, tol):
    gr = (math.sqrt(5) - 1) / 2
    lo = a
    hi = b
    x1 = hi - gr * (hi - lo)
    x2 = lo + gr * (hi - lo)
    f1 = (x1 - c) ** 2 + math.cos(3 * x1)
    f2 = (x2 - c) ** 2 + math.cos(3 * x2)
    n = 0
    while hi - lo > tol:
        if f1 < f2:
            hi = x2
            x2 = x1
            f2 = f1
            x1 = hi - gr * (hi - lo)
            f1 = (x1 - c) ** 2 + math.cos(3 * x1)
        else:
            lo = x1
            x1 = x2
            f1 = f2
            x2 = lo + gr * (hi - lo)
            f2 = (x2 - c) ** 2 + math.cos(3 * x2)
        n += 1
    return (lo + hi) / 2, n


def crank_nicolson_heat(u0, r, steps):
    n = u0.shape[0]
    u = u0.copy()
    a = np.full(n, -r / 2)
    b = np.full(n, 1 + r)
    c = np.full(n, -r / 2)
    a[0] = 0.0
    c[n - 1] = 0.0
    d = np.empty(n)
    for s in range(steps):
        for i in range(n):
            left = u[i - 1] if i > 0 else 0.0
            right = u[i + 1] if i < n - 1 else 0.0
            d[i] = r / 2 * left + (1 - r) * u[i] + r / 2 * right
        _thomas(a, b, c, d, u)
    return u


def adams_bashforth2(y0, h, n):
    ys = np.empty(n + 1)
    ys[0] = y0
    if n == 0:
        return ys
    f_prev = _f(0.0, y0)
    ys[1] = y0 + h * f_prev
    for i in range(1, n):
        t = i * h
        f_cur = _f(t, ys[i])
        ys[i + 1] = ys[i] + h * (1.5 * f_cur - 0.5 * f_prev)
        f_prev = f_cur
    return ys


def durand_kerner(coef, iters):
    n = coef.shape[0] - 1
    roots = np.empty(n, dtype=np.complex128)
    seed = 0.4 + 0.9j
    for i in range(n):
        roots[i] = seed ** i
    for it in range(iters):
        for i in range(n):
            num = 0j
            for k in range(n + 1):
                num = num * roots[i] + coef[k]
            den = 1.0 + 0j
            for j in range(n):
                if j != i:
                    den *= roots[i] - roots[j]
            roots[i] = roots[i] - num / (coef[0] * den)
    return roots


def lanczos_lgamma(xs):
    g = 7
    c = np.array([0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
                  -176.61503916999185, 12.507343278686905, -0.13857109526572012,
                  9.9843695780195716e-6, 1.5056327351493116e-7])
    out = np.empty(xs.shape[0])
    for i in range(xs.shape[0]):
        x = xs[i] - 1
        a = c[0]
        t = x + g + 0.5
        for k in range(1, g + 2):
            a += c[k] / (x + k)
        out[i] = 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
    return out


def gauss_legendre5(f_coef, a, b):
    nodes = np.array([-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640])
    weights = np.array([0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                        0.2369268850561891])
    half = (b - a) / 2
    mid = (a + b) / 2
    total = 0
    for i in range(5):
        x = mid + half * nodes[i]
        v = 0.0
        for k in range(f_coef.shape[0]):
            v = v * x + f_coef[k]
        total += weights[i] * v
    return total * half


# ---------------------------------------------------------------- images


def bilateral_filter(img, radius, sigma_s, sigma_r):
    h, w = img.shape
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            num = 0.0
            den = 0.0
            c = img[i, j]
            for di in range(-radius, radius + 1):
                for dj in range(-radius, radius + 1):
                    ii = i + di
                    jj = j + dj
                    if ii < 0 or ii >= h or jj < 0 or jj >= w:
                        continue
                    v = img[ii, jj]
                    wgt = math.exp(-(di * di + dj * dj) / (2 * sigma_s ** 2) - (v - c) ** 2 / (2 * sigma_r ** 2))
                    num += wgt * v
                    den += wgt
            out[i, j] = num / den
    return out


def median9_network(img):
    h, w = img.shape
    out = img.copy()
    p = np.empty(9, dtype=img.dtype)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            k = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    p[k] = img[i + di, j + dj]
                    k += 1
            pairs = ((1, 2), (4, 5), (7, 8), (0, 1), (3, 4), (6, 7), (1, 2), (4, 5), (7, 8), (0, 3), (5, 8),
                     (4, 7), (3, 6), (1, 4), (2, 5), (4, 7), (4, 2), (6, 4), (4, 2))
            for a, b in pairs:
                lo, hi = _sort2(p[a], p[b])
                p[a] = lo
                p[b] = hi
            out[i, j] = p[4]
    return out


def local_binary_pattern(img):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.uint8)
    di = np.array([-1, -1, -1, 0, 1, 1, 1, 0])
    dj = np.array([-1, 0, 1, 1, 1, 0, -1, -1])
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            code = 0
            c = img[i, j]
            for k in range(8):
                if img[i + di[k], j + dj[k]] >= c:
                    code |= 1 << k
            out[i, j] = code
    return out


def census_hamming(left, right, max_disp):
    h, w = left.shape
    cl = np.zeros((h, w), dtype=np.uint32)
    cr = np.zeros((h, w), dtype=np.uint32)
    for i in range(1, h - 1):
        for j in range(1, w - 1):
            a = 0
            b = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di == 0 and dj == 0:
                        continue
                    a = (a << 1) | (1 if left[i + di, j + dj] < left[i, j] else 0)
                    b = (b << 1) | (1 if right[i + di, j + dj] < right[i, j] else 0)
            cl[i, j] = a
            cr[i, j] = b
    disp = np.zeros((h, w), dtype=np.int32)
    for i in range(h):
        for j in range(w):
            best = 99
            for d in range(max_disp + 1):
                if j - d < 0:
                    break
                x = cl[i, j] ^ cr[i, j - d]
                cnt = 0
                while x:
                    x &= x - 1
                    cnt += 1
                if cnt < best:
                    best = cnt
                    disp[i, j] = d
    return disp


def sad_block_match(ref, cur, block, search):
    h, w = cur.shape
    by = h // block
    bx = w // block
    mv = np.zeros((by, bx, 2), dtype=np.int64)
    for bi in range(by):
        for bj in range(bx):
            best = -1
            y0 = bi * block
            x0 = bj * block
            for dy in range(-search, search + 1):
                for dx in range(-search, search + 1):
                    if y0 + dy < 0 or x0 + dx < 0 or y0 + dy + block > h or x0 + dx + block > w:
                        continue
                    sad = 0
                    for u in range(block):
                        for v in range(block):
                            sad += abs(int(cur[y0 + u, x0 + v]) - int(ref[y0 + dy + u, x0 + dx + v]))
                    if best < 0 or sad < best:
                        best = sad
                        mv[bi, bj, 0] = dy
                        mv[bi, bj, 1] = dx
    return mv


def ordered_dither(img):
    bayer = np.array([[0, 8, 2, 10], [12, 4, 14, 6], [3, 11, 1, 9], [15, 7, 13, 5]])
    h, w = img.shape
    out = np.empty((h, w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            t = (bayer[i % 4, j % 4] + 0.5) / 16.0
            out[i, j] = 255 if img[i, j] / 255.0 > t else 0
    return out


def rgb_to_hsv_image(img):
    h, w, _ = img.shape
    out = np.empty((h, w, 3))
    for i in range(h):
        for j in range(w):
            hh, ss, vv = _rgb_to_hsv(img[i, j, 0], img[i, j, 1], img[i, j, 2])
            out[i, j, 0] = hh
            out[i, j, 1] = ss
            out[i, j, 2] = vv
    return out


def demosaic_bilinear_green(raw):
    # RGGB: green where (i + j) is odd
    h, w = raw.shape
    g = np.empty((h, w))
    for i in range(h):
        for j in range(w):
            if (i + j) % 2 == 1:
                g[i, j] = raw[i, j]
            else:
                s = 0.0
                c = 0
                if i > 0:
                    s += raw[i - 1, j]
                    c += 1
                if i < h - 1:
                    s += raw[i + 1, j]
                    c += 1
                if j > 0:
                    s += raw[i, j - 1]
                    c += 1
                if j < w - 1:
                    s += raw[i, j + 1]
                    c += 1
                g[i, j] = s / c if c else 0.0
    return g


def hist_match_u8(src, ref):
    hs = np.zeros(256, dtype=np.int64)
    hr = np.zeros(256, dtype=np.int64)
    for v in src.ravel():
        hs[v] += 1
    for v in ref.ravel():
        hr[v] += 1
    cs = np.cumsum(hs) / max(src.size, 1)
    cr = np.cumsum(hr) / max(ref.size, 1)
    lut = np.zeros(256, dtype=np.uint8)
    j = 0
    for i in range(256):
        while j < 255 and cr[j] < cs[i]:
            j += 1
        lut[i] = j
    out = np.empty_like(src)
    h, w = src.shape
    for i in range(h):
        for k in range(w):
            out[i, k] = lut[src[i, k]]
    return out


def ncc_template(img, tpl):
    H, W = img.shape
    h, w = tpl.shape
    out = np.zeros((H - h + 1, W - w + 1))
    tm = 0.0
    for i in range(h):
        for j in range(w):
            tm += tpl[i, j]
    tm /= h * w
    tv = 0.0
    for i in range(h):
        for j in range(w):
            tv += (tpl[i, j] - tm) ** 2
    for y in range(H - h + 1):
        for x in range(W - w + 1):
            m = 0.0
            for i in range(h):
                for j in range(w):
                    m += img[y + i, x + j]
            m /= h * w
            num = 0.0
            iv = 0.0
            for i in range(h):
                for j in range(w):
                    d = img[y + i, x + j] - m
                    num += d * (tpl[i, j] - tm)
                    iv += d * d
            den = math.sqrt(iv * tv)
            out[y, x] = num / den if den > 0 else 0.0
    return out


def morph_gradient_u8(img):
    h, w = img.shape
    out = np.zeros_like(img)
    for i in range(h):
        for j in range(w):
            mx = 0
            mn = 255
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    ii = min(max(i + di, 0), h - 1)
                    jj = min(max(j + dj, 0), w - 1)
                    v = img[ii, jj]
                    if v > mx:
                        mx = v
                    if v < mn:
                        mn = v
            out[i, j] = mx - mn
    return out


def vignette_f32(img, strength):
    h, w = img.shape
    cy = (h - 1) / 2
    cx = (w - 1) / 2
    rmax = math.sqrt(cy * cy + cx * cx) + 1e-6
    out = np.empty_like(img)
    for i in range(h):
        for j in range(w):
            r = math.sqrt((i - cy) ** 2 + (j - cx) ** 2) / rmax
            out[i, j] = img[i, j] * (1 - strength * r * r)
    return out


# ---------------------------------------------------------------- simulations


def forest_fire(grid, rand, p_grow, p_fire, steps):
    # 0 empty, 1 tree, 2 burning
    h, w = grid.shape
    g = grid.copy()
    nxt = np.empty_like(g)
    k = 0
    for s in range(steps):
        for i in range(h):
            for j in range(w):
                c = g[i, j]
                r = rand[k % rand.shape[0]]
                k += 1
                if c == 2:
                    nxt[i, j] = 0
                elif c == 0:
                    nxt[i, j] = 1 if r < p_grow else 0
                else:
                    burning = False
                    for di in range(-1, 2):
                        for dj in range(-1, 2):
                            ii = i + di
                            jj = j + dj
                            if 0 <= ii < h and 0 <= jj < w and g[ii, jj] == 2:
                                burning = True
                    if burning or r < p_fire:
                        nxt[i, j] = 2
                    else:
                        nxt[i, j] = 1
        g, nxt = nxt, g
    return g


def nagel_schreckenberg(pos, vel, road, vmax, p_slow, rand, steps):
    n = pos.shape[0]
    x = pos.copy()
    v = vel.copy()
    k = 0
    for s in range(steps):
        for i in range(n):
            ahead = (i + 1) % n
            gap = (x[ahead] - x[i] - 1) % road
            if n == 1:
                gap = road - 1
            nv = min(v[i] + 1, vmax)
            nv = min(nv, gap)
            if rand[k % rand.shape[0]] < p_slow and nv > 0:
                nv -= 1
            k += 1
            v[i] = nv
        for i in range(n):
            x[i] = (x[i] + v[i]) % road
    flow = 0
    for i in range(n):
        flow += v[i]
    return x, v, flow / max(n, 1)


def sandpile_topple(grid, threshold):
    g = grid.copy()
    h, w = g.shape
    topples = 0
    changed = True
    while changed:
        changed = False
        for i in range(h):
            for j in range(w):
                if g[i, j] >= threshold:
                    g[i, j] -= 4
                    topples += 1
                    changed = True
                    if i > 0:
                        g[i - 1, j] += 1
                    if i < h - 1:
                        g[i + 1, j] += 1
                    if j > 0:
                        g[i, j - 1] += 1
                    if j < w - 1:
                        g[i, j + 1] += 1
    return g, topples


def langtons_ant(size, steps):
    grid = np.zeros((size, size), dtype=np.uint8)
    y = size // 2
    x = size // 2
    d = 0
    dy = (-1, 0, 1, 0)
    dx = (0, 1, 0, -1)
    for s in range(steps):
        if grid[y, x] == 0:
            d = (d + 1) % 4
            grid[y, x] = 1
        else:
            d = (d + 3) % 4
            grid[y, x] = 0
        y = (y + dy[d]) % size
        x = (x + dx[d]) % size
    return grid, y, x


def brians_brain(grid, steps):
    # 0 off, 1 on, 2 dying
    h, w = grid.shape
    g = grid.copy()
    for s in range(steps):
        nxt = np.zeros_like(g)
        for i in range(h):
            for j in range(w):
                if g[i, j] == 1:
                    nxt[i, j] = 2
                elif g[i, j] == 0:
                    on = 0
                    for di in (-1, 0, 1):
                        for dj in (-1, 0, 1):
                            if g[(i + di) % h, (j + dj) % w] == 1:
                                on += 1
                    if on == 2:
                        nxt[i, j] = 1
        g = nxt
    return g


def boids_step(pos, vel, r_sep, r_align, w_sep, w_align, w_coh, vmax, dt):
    n = pos.shape[0]
    newv = vel.copy()
    for i in range(n):
        sx = 0.0
        sy = 0.0
        ax = 0.0
        ay = 0.0
        cx = 0.0
        cy = 0.0
        cnt = 0
        for j in range(n):
            if i == j:
                continue
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            d = math.sqrt(dx * dx + dy * dy)
            if d < r_sep and d > 0:
                sx -= dx / d
                sy -= dy / d
            if d < r_align:
                ax += vel[j, 0]
                ay += vel[j, 1]
                cx += pos[j, 0]
                cy += pos[j, 1]
                cnt += 1
        if cnt > 0:
            ax /= cnt
            ay /= cnt
            cx = cx / cnt - pos[i, 0]
            cy = cy / cnt - pos[i, 1]
        newv[i, 0] += w_sep * sx + w_align * (ax - vel[i, 0]) * (cnt > 0) + w_coh * cx
        newv[i, 1] += w_sep * sy + w_align * (ay - vel[i, 1]) * (cnt > 0) + w_coh * cy
        sp = math.hypot(newv[i, 0], newv[i, 1])
        if sp > vmax:
            newv[i, 0] *= vmax / sp
            newv[i, 1] *= vmax / sp
    newp = pos + dt * newv
    return newp, newv


def lbm_d1q3_diffusion(rho0, omega, steps):
    n = rho0.shape[0]
    f = np.empty((3, n))
    w = (4.0 / 6.0, 1.0 / 6.0, 1.0 / 6.0)
    for i in range(n):
        for k in range(3):
            f[k, i] = w[k] * rho0[i]
    tmp = np.empty(n)
    for s in range(steps):
        for i in range(n):
            rho = f[0, i] + f[1, i] + f[2, i]
            for k in range(3):
                f[k, i] += omega * (w[k] * rho - f[k, i])
        # stream: k=1 right, k=2 left, periodic
        last = f[1, n - 1]
        for i in range(n - 1, 0, -1):
            f[1, i] = f[1, i - 1]
        f[1, 0] = last
        for i in range(n):
            tmp[i] = f[2, (i + 1) % n]
        for i in range(n):
            f[2, i] = tmp[i]
    out = np.empty(n)
    for i in range(n):
        out[i] = f[0, i] + f[1, i] + f[2, i]
    return out


def pendulum_rk4(theta0, omega0, g_over_l, damping, dt, steps):
    th = theta0
    om = omega0
    energy = np.empty(steps)
    for s in range(steps):
        k1t = om
        k1o = -g_over_l * math.sin(th) - damping * om
        k2t = om + 0.5 * dt * k1o
        k2o = -g_over_l * math.sin(th + 0.5 * dt * k1t) - damping * k2t
        k3t = om + 0.5 * dt * k2o
        k3o = -g_over_l * math.sin(th + 0.5 * dt * k2t) - damping * k3t
        k4t = om + dt * k3o
        k4o = -g_over_l * math.sin(th + dt * k3t) - damping * k4t
        th += dt / 6 * (k1t + 2 * k2t + 2 * k3t + k4t)
        om += dt / 6 * (k1o + 2 * k2o + 2 * k3o + k4o)
        energy[s] = 0.5 * om * om + g_over_l * (1 - math.cos(th))
    return th, om, energy


def schelling_unhappy(grid, tol):
    h, w = grid.shape
    unhappy = 0
    for i in range(h):
        for j in range(w):
            me = grid[i, j]
            if me == 0:
                continue
            same = 0
            other = 0
            for di in range(-1, 2):
                for dj in range(-1, 2):
                    if di == 0 and dj == 0:
                        continue
                    ii = i + di
                    jj = j + dj
                    if ii < 0 or jj < 0 or ii >= h or jj >= w:
                        continue
                    v = grid[ii, jj]
                    if v == me:
                        same += 1
                    elif v != 0:
                        other += 1
            if same + other > 0 and same / (same + other) < tol:
                unhappy += 1
    return unhappy


def predator_prey_grid_euler(prey, pred, a, b, c, d, D, dt, steps):
    h, w = prey.shape
    u = prey.copy()
    v = pred.copy()
    for s in range(steps):
        un = u.copy()
        vn = v.copy()
        for i in range(h):
            for j in range(w):
                lap_u = u[(i + 1) % h, j] + u[i - 1, j] + u[i, (j + 1) % w] + u[i, j - 1] - 4 * u[i, j]
                lap_v = v[(i + 1) % h, j] + v[i - 1, j] + v[i, (j + 1) % w] + v[i, j - 1] - 4 * v[i, j]
                un[i, j] = u[i, j] + dt * (a * u[i, j] - b * u[i, j] * v[i, j] + D * lap_u)
                vn[i, j] = v[i, j] + dt * (c * u[i, j] * v[i, j] - d * v[i, j] + D * lap_v)
        u = un
        v = vn
    return u, v


def elementary_ca_rule(init, rule, steps):
    n = init.shape[0]
    hist = np.zeros((steps + 1, n), dtype=np.uint8)
    for i in range(n):
        hist[0, i] = init[i]
    for t in range(steps):
        for i in range(n):
            l = hist[t, (i - 1) % n]
            c = hist[t, i]
            r = hist[t, (i + 1) % n]
            idx = (l << 2) | (c << 1) | r
            hist[t + 1, i] = (rule >> idx) & 1
    return hist


# ---------------------------------------------------------------- bytes and text


def base64_encode(data):
    alphabet = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", dtype=np.uint8)
    n = data.shape[0]
    out = np.empty(((n + 2) // 3) * 4, dtype=np.uint8)
    j = 0
    i = 0
    while i + 2 < n:
        v = (int(data[i]) << 16) | (int(data[i + 1]) << 8) | int(data[i + 2])
        out[j] = alphabet[(v >> 18) & 63]
        out[j + 1] = alphabet[(v >> 12) & 63]
        out[j + 2] = alphabet[(v >> 6) & 63]
        out[j + 3] = alphabet[v & 63]
        i += 3
        j += 4
    rem = n - i
    if rem == 1:
        v = int(data[i]) << 16
        out[j] = alphabet[(v >> 18) & 63]
        out[j + 1] = alphabet[(v >> 12) & 63]
        out[j + 2] = 61
        out[j + 3] = 61
    elif rem == 2:
        v = (int(data[i]) << 16) | (int(data[i + 1]) << 8)
        out[j] = alphabet[(v >> 18) & 63]
        out[j + 1] = alphabet[(v >> 12) & 63]
        out[j + 2] = alphabet[(v >> 6) & 63]
        out[j + 3] = 61
    return out


def base64_decode(text):
    n = text.shape[0]
    pad = 0
    if n >= 1 and text[n - 1] == 61:
        pad += 1
    if n >= 2 and text[n - 2] == 61:
        pad += 1
    out = np.empty(n // 4 * 3 - pad, dtype=np.uint8)
    j = 0
    for i in range(0, n, 4):
        v = 0
        for k in range(4):
            c = _b64_index(text[i + k])
            if c < 0:
                c = 0
            v = (v << 6) | c
        for k in range(3):
            if j < out.shape[0]:
                out[j] = (v >> (16 - 8 * k)) & 255
                j += 1
    return out


def crc16_ccitt(data):
    crc = 0xFFFF
    for i in range(data.shape[0]):
        crc ^= int(data[i]) << 8
        for b in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def fletcher16(data):
    s1 = 0
    s2 = 0
    for i in range(data.shape[0]):
        s1 = (s1 + data[i]) % 255
        s2 = (s2 + s1) % 255
    return (s2 << 8) | s1


def utf8_count_codepoints(data):
    n = data.shape[0]
    i = 0
    count = 0
    while i < n:
        c = data[i]
        if c < 0x80:
            i += 1
        elif c >> 5 == 0b110:
            i += 2
        elif c >> 4 == 0b1110:
            i += 3
        elif c >> 3 == 0b11110:
            i += 4
        else:
            return -1
        count += 1
    if i != n:
        return -1
    return count


def leb128_encode(values):
    n = values.shape[0]
    size = 0
    for i in range(n):
        v = values[i]
        while True:
            size += 1
            v >>= 7
            if v == 0:
                break
    out = np.empty(size, dtype=np.uint8)
    k = 0
    for i in range(n):
        v = values[i]
        while True:
            b = v & 0x7F
            v >>= 7
            if v != 0:
                out[k] = b | 0x80
            else:
                out[k] = b
            k += 1
            if v == 0:
                break
    return out


def leb128_decode_sum(data):
    total = 0
    shift = 0
    cur = 0
    count = 0
    for i in range(data.shape[0]):
        b = data[i]
        cur |= (int(b) & 0x7F) << shift
        if b & 0x80:
            shift += 7
        else:
            total += cur
            count += 1
            cur = 0
            shift = 0
    return total, count


def luhn_valid(digits):
    n = digits.shape[0]
    s = 0
    dbl = False
    for i in range(n - 1, -1, -1):
        d = int(digits[i])
        if dbl:
            d *= 2
            if d > 9:
                d -= 9
        s += d
        dbl = not dbl
    return s % 10 == 0


def djb2_words(text):
    n = text.shape[0]
    nwords = 0
    in_word = False
    for i in range(n):
        if text[i] != 32:
            if not in_word:
                nwords += 1
            in_word = True
        else:
            in_word = False
    hashes = np.empty(nwords, dtype=np.uint32)
    k = -1
    h = np.uint32(5381)
    in_word = False
    for i in range(n):
        c = text[i]
        if c != 32:
            if not in_word:
                k += 1
                h = np.uint32(5381)
            h = np.uint32(h * np.uint32(33) + np.uint32(c))
            hashes[k] = h
            in_word = True
        else:
            in_word = False
    return hashes


def rot13_inplace(text):
    for i in range(text.shape[0]):
        c = text[i]
        if 97 <= c <= 122:
            text[i] = (c - 97 + 13) % 26 + 97
        elif 65 <= c <= 90:
            text[i] = (c - 65 + 13) % 26 + 65


def hex_encode(data):
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    out = np.empty(2 * data.shape[0], dtype=np.uint8)
    for i in range(data.shape[0]):
        out[2 * i] = digits[data[i] >> 4]
        out[2 * i + 1] = digits[data[i] & 15]
    return out


def xor_cipher_key(data, key):
    out = np.empty_like(data)
    m = key.shape[0]
    for i in range(data.shape[0]):
        out[i] = data[i] ^ key[i % m]
    return out


def line_lengths_u8(text):
    n = text.shape[0]
    lines = 1
    for i in range(n):
        if text[i] == 10:
            lines += 1
    out = np.zeros(lines, dtype=np.int64)
    k = 0
    for i in range(n):
        if text[i] == 10:
            k += 1
        else:
            out[k] += 1
    return out


# ---------------------------------------------------------------- statistics


def ewm_mean_var(x, alpha):
    n = x.shape[0]
    mean = np.empty(n)
    var = np.empty(n)
    m = 0.0
    v = 0.0
    for i in range(n):
        if i == 0:
            m = x[0]
            v = 0.0
        else:
            d = x[i] - m
            incr = alpha * d
            m = m + incr
            v = (1 - alpha) * (v + d * incr)
        mean[i] = m
        var[i] = v
    return mean, var


def rolling_max_deque(x, w):
    n = x.shape[0]
    dq = np.empty(n, dtype=np.int64)
    head = 0
    tail = 0
    out = np.empty(max(n - w + 1, 0))
    for i in range(n):
        while tail > head and x[dq[tail - 1]] <= x[i]:
            tail -= 1
        dq[tail] = i
        tail += 1
        if dq[head] <= i - w:
            head += 1
        if i >= w - 1:
            out[i - w + 1] = x[dq[head]]
    return out


def online_covariance(x, y):
    n = 0
    mx = 0.0
    my = 0.0
    c = 0.0
    for i in range(x.shape[0]):
        n += 1
        dx = x[i] - mx
        mx += dx / n
        my += (y[i] - my) / n
        c += dx * (y[i] - my)
    if n < 2:
        return np.nan
    return c / (n - 1)


def cusum_detect(x, target, k, h):
    sp = 0.0
    sn = 0.0
    for i in range(x.shape[0]):
        sp = max(0.0, sp + x[i] - target - k)
        sn = max(0.0, sn + target - x[i] - k)
        if sp > h:
            return i, 1
        if sn > h:
            return i, -1
    return -1, 0


def gini_coefficient(x):
    n = x.shape[0]
    if n == 0:
        return 0.0
    s = np.sort(x)
    num = 0
    total = 0
    for i in range(n):
        num += (2 * (i + 1) - n - 1) * s[i]
        total += s[i]
    if total == 0:
        return 0.0
    return num / (n * total)


def ks_two_sample(a, b):
    sa = np.sort(a)
    sb = np.sort(b)
    na = sa.shape[0]
    nb = sb.shape[0]
    i = 0
    j = 0
    d = 0.0
    while i < na and j < nb:
        if sa[i] <= sb[j]:
            i += 1
        else:
            j += 1
        diff = abs(i / na - j / nb)
        if diff > d:
            d = diff
    return d


def mann_whitney_u(a, b):
    na = a.shape[0]
    nb = b.shape[0]
    u = 0.0
    for i in range(na):
        for j in range(nb):
            if a[i] > b[j]:
                u += 1
            elif a[i] == b[j]:
                u += 0.5
    return u, na * nb - u


def chi_square_table(table):
    r, c = table.shape
    rows = np.zeros(r)
    cols = np.zeros(c)
    total = 0
    for i in range(r):
        for j in range(c):
            rows[i] += table[i, j]
            cols[j] += table[i, j]
            total += table[i, j]
    chi = 0.0
    for i in range(r):
        for j in range(c):
            e = rows[i] * cols[j] / total
            if e > 0:
                chi += (table[i, j] - e) ** 2 / e
    return chi, (r - 1) * (c - 1)


def moving_mad(x, w):
    n = x.shape[0]
    out = np.full(n, np.nan)
    buf = np.empty(w)
    for i in range(w - 1, n):
        for k in range(w):
            buf[k] = x[i - w + 1 + k]
        srt = np.sort(buf)
        med = srt[w // 2] if w % 2 else 0.5 * (srt[w // 2 - 1] + srt[w // 2])
        for k in range(w):
            buf[k] = abs(buf[k] - med)
        srt = np.sort(buf)
        out[i] = srt[w // 2] if w % 2 else 0.5 * (srt[w // 2 - 1] + srt[w // 2])
    return out


def ar1_fit(x):
    n = x.shape[0]
    if n < 3:
        return 0.0, 0.0
    m = 0
    for i in range(n):
        m += x[i]
    m /= n
    num = 0.0
    den = 0.0
    for i in range(1, n):
        num += (x[i] - m) * (x[i - 1] - m)
    for i in range(n):
        den += (x[i] - m) ** 2
    phi = num / den
    resid = 0.0
    for i in range(1, n):
        e = (x[i] - m) - phi * (x[i - 1] - m)
        resid += e * e
    return phi, resid / (n - 2)


def p2_quantile_like(x, q):
    # running quantile by stochastic approximation
    est = 0
    step = 1.0
    for i in range(x.shape[0]):
        if i == 0:
            est = x[0]
            continue
        if x[i] > est:
            est += step * q
        else:
            est -= step * (1 - q)
        step *= 0.99
    return est


def streak_stats(x):
    best_up = 0
    best_down = 0
    up = 0
    down = 0
    for i in range(1, x.shape[0]):
        if x[i] > x[i - 1]:
            up += 1
            down = 0
        elif x[i] < x[i - 1]:
            down += 1
            up = 0
        else:
            up = 0
            down = 0
        best_up = max(best_up, up)
        best_down = max(best_down, down)
    return best_up, best_down


def weighted_running_mean(x, w):
    s = 0
    sw = 0
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        s += w[i] * x[i]
        sw += w[i]
        out[i] = s / sw if sw > 0 else 0.0
    return out


def entropy_of_counts(counts):
    total = 0
    for i in range(counts.shape[0]):
        total += counts[i]
    if total == 0:
        return 0.0
    h = 0.0
    for i in range(counts.shape[0]):
        if counts[i] > 0:
            p = counts[i] / total
            h -= p * math.log2(p)
    return h


def running_min_max_f32(x):
    n = x.shape[0]
    lo = np.empty(n, dtype=np.float32)
    hi = np.empty(n, dtype=np.float32)
    mn = np.float32(np.inf)
    mx = np.float32(-np.inf)
    for i in range(n):
        if x[i] < mn:
            mn = x[i]
        if x[i] > mx:
            mx = x[i]
        lo[i] = mn
        hi[i] = mx
    return lo, hi


def autocov_int_mean(x, maxlag):
    n = x.shape[0]
    s = 0
    for i in range(n):
        s += x[i]
    mean = s / n if n else 0.0
    out = np.zeros(maxlag + 1)
    for lag in range(maxlag + 1):
        acc = 0.0
        for i in range(n - lag):
            acc += (x[i] - mean) * (x[i + lag] - mean)
        out[lag] = acc / n if n else 0.0
    return out


# ---------------------------------------------------------------- cases

CASES = []


def _add(name, f, make, **kw):
    CASES.append(Case(name, f, make, **kw))


def _codon_table(r):
    return r.integers(65, 91, 64).astype(np.uint8)


def _convex_ccw(r, n):
    ang = np.sort(r.random(n)) * 2 * np.pi
    rad = 1.0 + 0.1 * r.random()
    return rad * np.cos(ang), rad * np.sin(ang) * (1 + r.random())


def _b64(r):
    import base64
    raw = r.integers(0, 256, int(r.integers(0, 10))).astype(np.uint8).tobytes()
    return (np.frombuffer(base64.b64encode(raw), dtype=np.uint8).copy(),)


def _utf8(r):
    chars = "aé€😀b"
    s = "".join(chars[int(i)] for i in r.integers(0, 5, _n(r, 8)))
    b = s.encode("utf-8")
    if r.integers(0, 4) == 0 and len(b) > 0:
        b = b[:-1]
    return (np.frombuffer(b, dtype=np.uint8).copy(),)


# bioinformatics
_add("gotoh_affine_score", gotoh_affine_score, lambda r: (_seq(r), _seq(r), 2.0, -1.0, 3.0, 0.5))
_add("nw_global_affine_end", nw_global_affine_end, lambda r: (_seq(r), _seq(r, 9), 1.0, -1.0, 2.0, 0.5))
_add("banded_edit_distance", banded_edit_distance, lambda r: (_seq(r), _seq(r, int(r.integers(8, 14))), 3))
_add("nussinov_pairs", nussinov_pairs, lambda r: (_seq(r, _n(r, 14, 2)), 2))
_add("translate_codons", translate_codons, lambda r: (_seq(r, _n(r, 20, 2)), _codon_table(r)))
_add("longest_orf", longest_orf,
     lambda r: (_seq(r, _n(r, 60, 4)), 14, np.array([48, 50, 56])))
_add("minimizers", minimizers, lambda r: (_seq(r, _n(r, 20, 3)), 3, 4))
_add("pwm_best_hit", pwm_best_hit, lambda r: (_seq(r, _n(r, 15, 2)), r.standard_normal((4, 4))))
_add("jukes_cantor_matrix", jukes_cantor_matrix, lambda r: (r.integers(0, 4, (_n(r, 5, 1), 12)).astype(np.uint8),))
_add("kmer_spectrum_u8", kmer_spectrum_u8, lambda r: (_seq(r, _n(r, 20, 2), k=5), 3))
_add("quality_trim", quality_trim, lambda r: (r.integers(0, 41, _n(r, 15)).astype(np.int32), 20))
# signals
_add("cic_decimate", cic_decimate, lambda r: (r.standard_normal(_n(r, 24, 3)), 4, 3))
_add("linear_resample", linear_resample, lambda r: (r.standard_normal(_n(r, 10, 1)), 1.7))
_add("polyphase_upsample", polyphase_upsample, lambda r: (r.standard_normal(_n(r, 8)), r.random(7), 3))
_add("lms_filter", lms_filter,
     lambda r: (lambda x: (x, np.convolve(x, [0.5, -0.3, 0.1])[:x.shape[0]], 3, 0.05))(r.standard_normal(_n(r, 20))))
_add("schroeder_comb_allpass", schroeder_comb_allpass, lambda r: (r.standard_normal(_n(r, 25)), 5, 0.7, 3, 0.5))
_add("envelope_follower", envelope_follower, lambda r: (r.standard_normal(_n(r, 15)), 0.5, 0.9))
_add("mulaw_roundtrip", mulaw_roundtrip, lambda r: (1.2 * (2 * r.random(_n(r, 12)) - 1), 255.0))
_add("karplus_strong", karplus_strong, lambda r: (r.random(int(r.integers(2, 8))) - 0.5, _n(r, 30), 0.996))
_add("goertzel_bank", goertzel_bank,
     lambda r: (lambda n: (np.sin(2 * np.pi * 5 * np.arange(n) / 64.0) + 0.1 * r.standard_normal(n),
                           np.array([3.0, 5.0, 9.0]), 64.0))(_n(r, 64)))
_add("iir_df2t_state", iir_df2t_state,
     lambda r: (np.array([0.2, 0.3, 0.2]), np.array([1.0, -0.4, 0.1]), r.standard_normal(_n(r, 12)), r.random(2)))
_add("agc_gain", agc_gain, lambda r: (r.standard_normal(_n(r, 20)), 0.5, 0.05))
_add("pll_phase_track", pll_phase_track,
     lambda r: (np.cos(2 * np.pi * 0.05 * np.arange(_n(r, 40)) + 0.3), 0.05, 0.01, 0.001))
_add("sample_hold_quantize", sample_hold_quantize, lambda r: (r.standard_normal(_n(r, 13)), 3, 4))
_add("spectral_flux", spectral_flux, lambda r: (r.random((_n(r, 6, 1), 5)),))
# geometry
_add("bresenham_raster", bresenham_raster,
     lambda r: (lambda k: (r.integers(-2, 12, k), r.integers(-2, 10, k), r.integers(-2, 12, k),
                           r.integers(-2, 10, k), np.zeros((8, 10), dtype=np.int64)))(_n(r, 4)))
_add("triangle_coverage", triangle_coverage, lambda r: (r.random((3, 2)) * 8, 6, 7))
_add("ray_triangle_hits", ray_triangle_hits,
     lambda r: (lambda k: (r.standard_normal((k, 3)) * 0.3 + np.array([0.2, 0.2, -2.0]),
                           r.standard_normal((k, 3)) * 0.1 + np.array([0.0, 0.0, 1.0]),
                           np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])))(_n(r, 8)))
_add("haversine_path_length", haversine_path_length,
     lambda r: (lambda k: (r.random(k) * 180 - 90, r.random(k) * 360 - 180))(_n(r, 6, 1)))
_add("hull_diameter_sq", hull_diameter_sq, lambda r: _convex_ccw(r, _n(r, 9, 1)))
_add("douglas_peucker_mask", douglas_peucker_mask,
     lambda r: (lambda k: (np.arange(k, dtype=np.float64), np.cumsum(r.standard_normal(k)), 0.5))(_n(r, 15)))
_add("circumcircles", circumcircles,
     lambda r: (np.concatenate([r.random((_n(r, 4), 3, 2)), np.array([[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]])]),))
_add("aabb_overlap_count", aabb_overlap_count,
     lambda r: (lambda lo: (lo, lo + r.random(lo.shape)))(r.random((_n(r, 8), 3)) * 2))
_add("polyline_resample_even", polyline_resample_even,
     lambda r: (lambda k: (r.random(k), r.random(k), int(r.integers(1, 8))))(int(r.integers(2, 7))))
_add("point_segment_min_dist", point_segment_min_dist,
     lambda r: (lambda k: (r.random(k), r.random(k), r.random(4), r.random(4)))(_n(r, 6)))
# numerical
_add("cg_dense", cg_dense, lambda r: (lambda n: (_spd(r, n), r.standard_normal(n), 1e-10, 50))(_n(r, 5, 1)))
_add("newton_2x2_system", newton_2x2_system, lambda r: (1.0 + r.random(), 0.2 * r.random(), 2.0 + r.random(), 1e-12, 30))
_add("rk45_adaptive", rk45_adaptive, lambda r: (1.0 + r.random(), 0.0, 1.0 + r.random(), 1e-7, 0.1))
_add("romberg_sin", romberg_sin, lambda r: (0.0, 1.0 + 2 * r.random(), int(r.integers(1, 6))))
_add("chebyshev_eval_many", chebyshev_eval_many, lambda r: (r.standard_normal(int(r.integers(1, 6))), 2 * r.random(_n(r, 7)) - 1))
_add("jacobi_eigenvalues", jacobi_eigenvalues, lambda r: (_spd(r, _n(r, 4, 1)), 10), rtol=1e-7, atol=1e-9)
_add("householder_r", householder_r, lambda r: (r.standard_normal((_n(r, 5, 1), 3)),), rtol=1e-8, atol=1e-10)
_add("golden_section_min", golden_section_min, lambda r: (-1.0, 2.0, r.random(), 1e-8))
_add("crank_nicolson_heat", crank_nicolson_heat, lambda r: (r.random(_n(r, 9, 2)), 0.4, 5))
_add("adams_bashforth2", adams_bashforth2, lambda r: (r.random(), 0.05, _n(r, 20)))
_add("durand_kerner", durand_kerner, lambda r: (np.array([1.0, -6.0, 11.0, -6.0 + 0.1 * r.random()]), 40),
     rtol=1e-7, atol=1e-9)
_add("lanczos_lgamma", lanczos_lgamma, lambda r: (0.5 + 10 * r.random(_n(r, 6)),))
_add("gauss_legendre5", gauss_legendre5, lambda r: (r.standard_normal(int(r.integers(1, 8))), 0.0, 1.0 + r.random()))
# images
_add("bilateral_filter", bilateral_filter, lambda r: (r.random((_n(r, 6, 1), 5)), 1, 1.5, 0.2))
_add("median9_network", median9_network, lambda r: (r.integers(0, 256, (_n(r, 6, 2), 6)).astype(np.uint8),))
_add("local_binary_pattern", local_binary_pattern, lambda r: (r.integers(0, 5, (_n(r, 6, 2), 5)),))
_add("census_hamming", census_hamming, lambda r: (lambda w: (r.random((5, w)), r.random((5, w)), 2))(_n(r, 8, 3)))
_add("sad_block_match", sad_block_match,
     lambda r: (lambda a: (a, np.roll(a, 1, axis=1), 2, 1))(r.integers(0, 256, (6, _n(r, 8, 2))).astype(np.uint8)))
_add("ordered_dither", ordered_dither, lambda r: (r.integers(0, 256, (_n(r, 5, 1), 6)).astype(np.uint8),))
_add("rgb_to_hsv_image", rgb_to_hsv_image,
     lambda r: (np.where(r.random((3, _n(r, 4, 1), 3)) < 0.2, 0.5, 1.0) * r.random(3),))
_add("demosaic_bilinear_green", demosaic_bilinear_green, lambda r: (r.random((_n(r, 5, 1), 4)),))
_add("hist_match_u8", hist_match_u8,
     lambda r: (r.integers(0, 256, (4, _n(r, 5))).astype(np.uint8), r.integers(50, 200, (3, 4)).astype(np.uint8)))
_add("ncc_template", ncc_template, lambda r: (r.random((6, _n(r, 7, 3))), r.random((2, 3))))
_add("morph_gradient_u8", morph_gradient_u8, lambda r: (r.integers(0, 256, (_n(r, 5), 4)).astype(np.uint8),))
_add("vignette_f32", vignette_f32, lambda r: (r.random((_n(r, 5, 1), 4)).astype(np.float32), 0.4), rtol=1e-5)
# simulations
_add("forest_fire", forest_fire,
     lambda r: (r.integers(0, 3, (_n(r, 6, 1), 5)).astype(np.int8), r.random(37), 0.3, 0.05, 3))
_add("nagel_schreckenberg", nagel_schreckenberg,
     lambda r: (lambda k: (np.sort(r.choice(30, k, replace=False)), r.integers(0, 3, k), 30, 5, 0.3, r.random(23), 4))(
         int(r.integers(1, 8))))
_add("sandpile_topple", sandpile_topple, lambda r: (r.integers(0, 8, (_n(r, 5, 1), 5)), 4))
_add("langtons_ant", langtons_ant, lambda r: (int(r.integers(3, 9)), _n(r, 60)))
_add("brians_brain", brians_brain, lambda r: (r.integers(0, 3, (_n(r, 6, 1), 6)).astype(np.uint8), 3))
_add("boids_step", boids_step,
     lambda r: (lambda k: (r.random((k, 2)) * 3, r.standard_normal((k, 2)), 0.5, 1.5, 0.1, 0.05, 0.01, 1.0, 0.1))(
         _n(r, 7, 1)))
_add("lbm_d1q3_diffusion", lbm_d1q3_diffusion, lambda r: (r.random(_n(r, 9, 1)), 1.2, 4))
_add("pendulum_rk4", pendulum_rk4, lambda r: (r.random(), r.standard_normal(), 9.81, 0.1, 0.01, _n(r, 20)))
_add("schelling_unhappy", schelling_unhappy, lambda r: (r.integers(0, 3, (_n(r, 6, 1), 6)), 0.5))
_add("predator_prey_grid_euler", predator_prey_grid_euler,
     lambda r: (lambda h: (r.random((h, 4)), r.random((h, 4)), 1.0, 0.5, 0.3, 0.4, 0.1, 0.05, 3))(_n(r, 4, 1)))
_add("elementary_ca_rule", elementary_ca_rule,
     lambda r: (r.integers(0, 2, _n(r, 12, 1)).astype(np.uint8), int(r.integers(0, 256)), 5))
# bytes
_add("base64_encode", base64_encode, lambda r: (r.integers(0, 256, int(r.integers(0, 11))).astype(np.uint8),))
_add("base64_decode", base64_decode, _b64)
_add("crc16_ccitt", crc16_ccitt, lambda r: (_text(r),))
_add("fletcher16", fletcher16, lambda r: (r.integers(0, 256, _n(r, 40)).astype(np.uint8),))
_add("utf8_count_codepoints", utf8_count_codepoints, _utf8)
_add("leb128_encode", leb128_encode, lambda r: (lambda k: (r.integers(0, 2**40, k) >> r.integers(0, 40, k),))(_n(r, 6)))
_add("leb128_decode_sum", leb128_decode_sum,
     lambda r: (np.array([0x85, 0x03, 0x7F, 0x80, 0x80, 0x01, 0x00], dtype=np.uint8)[:_n(r, 7, 2)],))
_add("luhn_valid", luhn_valid, lambda r: (r.integers(0, 10, _n(r, 16, 1)).astype(np.int8),))
_add("djb2_words", djb2_words, lambda r: (_text(r, alphabet=b"ab c  "),))
_add("rot13_inplace", rot13_inplace, lambda r: (_text(r, alphabet=b"abzAZmn !"),))
_add("hex_encode", hex_encode, lambda r: (r.integers(0, 256, _n(r, 6)).astype(np.uint8),))
_add("xor_cipher_key", xor_cipher_key,
     lambda r: (r.integers(0, 256, _n(r, 9)).astype(np.uint8), r.integers(0, 256, 3).astype(np.uint8)))
_add("line_lengths_u8", line_lengths_u8, lambda r: (_text(r, alphabet=b"ab\n\nc"),))
# statistics
_add("ewm_mean_var", ewm_mean_var, lambda r: (r.standard_normal(_n(r, 12)), 0.2))
_add("rolling_max_deque", rolling_max_deque, lambda r: (r.integers(0, 5, _n(r, 12)).astype(np.float64), 3))
_add("online_covariance", online_covariance,
     lambda r: (lambda k: (r.standard_normal(k), r.standard_normal(k)))(_n(r, 9, 1)))
_add("cusum_detect", cusum_detect, lambda r: (np.concatenate([r.standard_normal(10), 1.5 + r.standard_normal(_n(r, 10))]),
                                              0.0, 0.5, 3.0))
_add("gini_coefficient", gini_coefficient, lambda r: (r.random(_n(r, 9)) * 10,))
_add("ks_two_sample", ks_two_sample, lambda r: (r.standard_normal(int(r.integers(1, 9))), r.standard_normal(6) + 0.3))
_add("mann_whitney_u", mann_whitney_u,
     lambda r: (r.integers(0, 5, _n(r, 7)).astype(np.float64), r.integers(0, 5, 6).astype(np.float64)))
_add("chi_square_table", chi_square_table, lambda r: (r.integers(0, 9, (3, 4)),))
_add("moving_mad", moving_mad, lambda r: (r.standard_normal(_n(r, 11, 2)), int(r.integers(2, 5))))
_add("ar1_fit", ar1_fit, lambda r: (np.cumsum(r.standard_normal(_n(r, 15, 2))) * 0.3,))
_add("p2_quantile_like", p2_quantile_like, lambda r: (r.standard_normal(_n(r, 30, 1)), 0.9))
_add("streak_stats", streak_stats, lambda r: (r.integers(0, 4, _n(r, 15)),))
_add("weighted_running_mean", weighted_running_mean,
     lambda r: (lambda k: (r.standard_normal(k), r.integers(0, 3, k)))(_n(r, 9)))
_add("entropy_of_counts", entropy_of_counts, lambda r: (r.integers(0, 5, _n(r, 8)),))
_add("running_min_max_f32", running_min_max_f32, lambda r: (r.standard_normal(_n(r, 10)).astype(np.float32),))
_add("autocov_int_mean", autocov_int_mean, lambda r: (r.integers(-5, 6, _n(r, 12)), 3))
