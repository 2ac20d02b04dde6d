"""Complex kernels as numba users write them: loops over complex64/complex128 arrays, Python
complex literals and arguments, cmath, and the NumPy array forms of the same."""

from __future__ import annotations

import cmath

import numpy as np
from corpus_case import Case


def mandelbrot(cre, cim, max_iter, out):
    """Escape time with ``z = z*z + c`` and ``while abs(z) <= 2`` (a loop kept as written)."""
    for i in range(cre.shape[0]):
        for j in range(cim.shape[0]):
            c = complex(cre[i], cim[j])
            z = 0j
            k = 0
            while abs(z) <= 2.0 and k < max_iter:
                z = z * z + c
                k += 1
            out[i, j] = k


def dft(x, out):
    """The DFT by loops: ``s += x[n] * exp(-2j pi k n / N)``."""
    N = x.shape[0]
    for k in range(N):
        s = 0j
        for n in range(N):
            s += x[n] * np.exp(-2j * np.pi * k * n / N)
        out[k] = s


def caxpy(a, x, y):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


def cmatvec(A, x, y):
    for i in range(A.shape[0]):
        acc = 0j
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        y[i] = acc


def field_update(E, phase, source, dt):
    """A field step: rotate each sample by its phase and add a scaled source."""
    for t in range(3):
        for i in range(E.shape[0]):
            E[i] = E[i] * phase[i] + dt * source[i] * 1j


def magnitude_phase(z, mag, ang):
    for i in range(z.shape[0]):
        mag[i] = abs(z[i])
        ang[i] = np.angle(z[i])


def conj_products(a, b, out):
    """Hermitian inner products per row, with z.conjugate(), .real/.imag and a division."""
    for i in range(a.shape[0]):
        s = 0j
        for j in range(a.shape[1]):
            s += a[i, j].conjugate() * b[i, j]
        out[i] = s / (1.0 + abs(s)) + complex(s.real, -s.imag) * 0.5


def cmath_funcs(z, out):
    for i in range(z.shape[0]):
        w = cmath.sqrt(z[i]) + cmath.exp(z[i] * 0.25) - cmath.log(z[i] + 2.0)
        out[i] = w.real + 1j * cmath.phase(w)


def complex64_mixed(z, x, out):
    """complex64 meets a Python float (stays complex64) and a float32 array (stays complex64)."""
    for i in range(z.shape[0]):
        out[i] = (z[i] * 0.5 + x[i]) ** 2 - z[i] ** -1 + np.sqrt(z[i])


def local_spectrum(x, out):
    """A kernel-local complex array: the signal times a chirp, then its power."""
    w = np.zeros(x.shape[0], dtype=np.complex128)
    for i in range(x.shape[0]):
        w[i] = x[i] * np.exp(1j * 0.01 * i * i)
    for i in range(x.shape[0]):
        out[i] = (w[i] * np.conj(w[i])).real


def elementwise_chain(z, w):
    """NumPy array code: a complex elementwise chain, its sum and a conjugated dot product."""
    u = np.exp(1j * np.angle(z)) * np.abs(w) + z.conj() * 0.5
    return u, np.sum(u * w), np.vdot(z, w)


def complex_matvec_numpy(A, x):
    return A @ x


def _c(rng, shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


CASES = [
    Case("mandelbrot", mandelbrot,
         lambda rng: (np.linspace(-2.0, 0.6, 13), np.linspace(-1.2, 1.2, 11), 40, np.zeros((13, 11), np.int64))),
    Case("dft", dft, lambda rng: (_c(rng, 16), np.zeros(16, np.complex128))),
    Case("caxpy", caxpy, lambda rng: (0.5 - 2j, _c(rng, 33), _c(rng, 33))),
    Case("caxpy_c64", caxpy, lambda rng: (np.complex64(1 + 1j), _c(rng, 33, np.complex64), _c(rng, 33, np.complex64)),
         rtol=1e-5, atol=1e-6),
    Case("cmatvec", cmatvec, lambda rng: (_c(rng, (9, 7)), _c(rng, 7), np.zeros(9, np.complex128))),
    Case("field_update", field_update, lambda rng: (_c(rng, 20), np.exp(1j * rng.uniform(0, 6, 20)),
                                                   rng.standard_normal(20), 0.1)),
    Case("magnitude_phase", magnitude_phase, lambda rng: (_c(rng, 25), np.zeros(25), np.zeros(25))),
    Case("conj_products", conj_products, lambda rng: (_c(rng, (6, 8)), _c(rng, (6, 8)), np.zeros(6, np.complex128))),
    Case("cmath_funcs", cmath_funcs, lambda rng: (_c(rng, 19), np.zeros(19, np.complex128))),
    Case("complex64_mixed", complex64_mixed,
         lambda rng: (_c(rng, 21, np.complex64), rng.standard_normal(21).astype(np.float32),
                      np.zeros(21, np.complex64)), rtol=1e-4, atol=1e-5),
    Case("local_spectrum", local_spectrum, lambda rng: (_c(rng, 17), np.zeros(17))),
    Case("elementwise_chain", elementwise_chain, lambda rng: (_c(rng, 15), _c(rng, 15))),
    Case("complex_matvec_numpy", complex_matvec_numpy, lambda rng: (_c(rng, (8, 5)), _c(rng, 5))),
]
