import numpy as np, polyfuse
def csr(indptr, indices, data, x, y):
    for i in range(y.shape[0]):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
def bis(a, out, tol):
    for i in range(a.shape[0]):
        lo = 0.0
        hi = a[i] + 1.0
        while hi - lo > tol:
            mid = 0.5 * (lo + hi)
            if mid * mid > a[i]:
                hi = mid
            else:
                lo = mid
        out[i] = 0.5 * (lo + hi)
def lsearch(a, t, out):
    for i in range(a.shape[0]):
        out[i] = -1
        for j in range(a.shape[1]):
            if a[i, j] == t:
                out[i] = j
                break
import sys
target = sys.argv[1]
rng = np.random.default_rng(0)
n=6
indptr = np.concatenate([[0], np.cumsum(rng.integers(0,4,n))]).astype(np.int64)
nnz = indptr[-1]
indices = rng.integers(0, n, nnz); data = rng.random(nnz); x = rng.random(n)
for fuse in ("none","smart","max"):
    k = polyfuse.kernel(csr, target=target, fuse=fuse, verify=True)
    y = np.zeros(n); y0 = np.zeros(n)
    k(indptr, indices, data, x, y); csr(indptr, indices, data, x, y0)
    print(fuse, np.allclose(y, y0))
    a = rng.random(5); o=np.zeros(5); o0=np.zeros(5)
    kb = polyfuse.kernel(bis, target=target, fuse=fuse, verify=True); kb(a,o,1e-9); bis(a,o0,1e-9); print(np.allclose(o,o0))
    A = rng.integers(0,4,(5,7)); o=np.zeros(5, np.int64); o0=o.copy()
    kl = polyfuse.kernel(lsearch, target=target, fuse=fuse, verify=True); kl(A,2,o); lsearch(A,2,o0); print(o, o0)
print(k.explain()["loop code"] if "loop code" in k.explain() else list(k.explain()))
