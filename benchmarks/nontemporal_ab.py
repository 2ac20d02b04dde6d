"""Non-temporal stores on the STREAM triad ``a[i] = b[i] + s * c[i]``, one thread: polyfuse's own
kernel (polyfuse/bench/limits.py) against a hand-written LLVM loop with the same arithmetic that
peels to the first 64-byte-aligned element of ``a`` and then stores whole vectors with
``!nontemporal`` (``vmovntpd``), and the same loop with ordinary stores; each into a preallocated
``a`` and into a fresh ``np.empty`` per call (what a NumPy program that returns its result gets).

    python benchmarks/nontemporal_ab.py [elements=16000000] [rounds=20]

Interleaved rounds, minimum per variant, load printed; every result checked against polyfuse's.
Why polyfuse does not emit these stores yet (issue 15): LLVM's loop vectorizer refuses a scalar
store marked ``!nontemporal`` unless the target can store a vector non-temporally at the scalar
store's alignment (8 bytes: X86's isLegalNTStore says no), so the marked loop stays scalar
(``movntsd`` per element on AMD, measured slower).  The stores have to be marked after the
vectorizer (with the 64-byte alignment the peel gives), or the loop written as vectors.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

import llvmlite.binding as llvm
import numpy as np

import polyfuse
from polyfuse.bench.limits import TRIAD_SCALAR, stream_triad
from polyfuse.bench.machine import set_polyfuse_threads


def triad_ir(name: str, nontemporal: bool) -> str:
    """a[i] = b[i] + s c[i]: scalar until a's first 64-byte boundary, then 8-lane vectors
    (stored aligned, non-temporally if asked), then a scalar tail."""
    marker = ", !nontemporal !0" if nontemporal else ""

    def scalar(i: str, tag: str) -> str:
        return (f"  %{tag}b = getelementptr double, ptr %b, i64 {i}\n"
                f"  %{tag}c = getelementptr double, ptr %c, i64 {i}\n"
                f"  %{tag}a = getelementptr double, ptr %a, i64 {i}\n"
                f"  %{tag}x = load double, ptr %{tag}b\n  %{tag}y = load double, ptr %{tag}c\n"
                f"  %{tag}m = fmul double %s, %{tag}y\n  %{tag}r = fadd double %{tag}x, %{tag}m\n"
                f"  store double %{tag}r, ptr %{tag}a\n")

    return f"""
define void @{name}(double %s, ptr noalias %a, ptr noalias %b, ptr noalias %c, i64 %n) {{
entry:
  %address = ptrtoint ptr %a to i64
  %past = and i64 %address, 63
  %gap = sub i64 64, %past
  %gap64 = and i64 %gap, 63
  %want = lshr i64 %gap64, 3
  %peel = call i64 @llvm.umin.i64(i64 %want, i64 %n)
  %s1 = insertelement <8 x double> poison, double %s, i32 0
  %sv = shufflevector <8 x double> %s1, <8 x double> poison, <8 x i32> zeroinitializer
  %left = sub i64 %n, %peel
  %vectors = lshr i64 %left, 3
  %vend = shl i64 %vectors, 3
  %vlast = add i64 %peel, %vend
  br label %head
head:
  %j = phi i64 [0, %entry], [%j1, %peelbody]
  %peeled = icmp eq i64 %j, %peel
  br i1 %peeled, label %vhead, label %peelbody
peelbody:
{scalar("%j", "p")}  %j1 = add i64 %j, 1
  br label %head
vhead:
  %k = phi i64 [%peel, %head], [%k1, %vbody]
  %vdone = icmp eq i64 %k, %vlast
  br i1 %vdone, label %thead, label %vbody
vbody:
  %vb = getelementptr double, ptr %b, i64 %k
  %vc = getelementptr double, ptr %c, i64 %k
  %va = getelementptr double, ptr %a, i64 %k
  %x = load <8 x double>, ptr %vb, align 8
  %y = load <8 x double>, ptr %vc, align 8
  %m = fmul <8 x double> %sv, %y
  %r = fadd <8 x double> %x, %m
  store <8 x double> %r, ptr %va, align 64{marker}
  %k1 = add i64 %k, 8
  br label %vhead
thead:
  %t = phi i64 [%vlast, %vhead], [%t1, %tbody]
  %tdone = icmp eq i64 %t, %n
  br i1 %tdone, label %exit, label %tbody
tbody:
{scalar("%t", "t")}  %t1 = add i64 %t, 1
  br label %thead
exit:
  ret void
}}
"""


def compiled():
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    text = ("declare i64 @llvm.umin.i64(i64, i64)\n" + triad_ir("ordinary", False)
            + triad_ir("nontemporal", True) + "!0 = !{i32 1}\n")
    tm = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(), opt=3)
    module = llvm.parse_assembly(text)
    module.verify()
    options = llvm.create_pipeline_tuning_options(speed_level=3)
    options.loop_vectorization = False  # the loops are vectors already
    builder = llvm.create_pass_builder(tm, options)
    builder.getModulePassManager().run(module, builder)
    assert "vmovntpd" in tm.emit_assembly(module)
    engine = llvm.create_mcjit_compiler(module, tm)
    engine.finalize_object()
    kind = ctypes.CFUNCTYPE(None, ctypes.c_double, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_int64)
    return engine, {name: kind(engine.get_function_address(name)) for name in ("ordinary", "nontemporal")}


def main(argv: list[str]) -> None:
    options = dict(a.split("=", 1) for a in argv)
    n, rounds = int(options.get("elements", 16_000_000)), int(options.get("rounds", 20))
    engine, loops = compiled()
    set_polyfuse_threads(1)
    triad = polyfuse.kernel(stream_triad)
    rng = np.random.default_rng(0)
    b, c, preallocated = rng.random(n), rng.random(n), np.empty(n)
    expected = np.empty(n)
    triad(TRIAD_SCALAR, expected, b, c)

    def run_polyfuse(a):
        triad(TRIAD_SCALAR, a, b, c)

    def by_hand(loop):
        return lambda a: loop(TRIAD_SCALAR, a.ctypes.data, b.ctypes.data, c.ctypes.data, n)

    variants = {"polyfuse": run_polyfuse, "hand, ordinary stores": by_hand(loops["ordinary"]),
                "hand, non-temporal stores": by_hand(loops["nontemporal"])}
    best: dict[tuple[str, str], float] = {}
    for _ in range(rounds):
        for label, run in variants.items():
            for into in ("preallocated", "fresh"):
                a = preallocated if into == "preallocated" else np.empty(n)
                began = time.perf_counter()
                run(a)
                seconds = time.perf_counter() - began
                assert np.array_equal(a, expected), label
                best[(label, into)] = min(best.get((label, into), np.inf), seconds)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    for (label, into), seconds in best.items():
        print(f"{label:28s} {into:13s} {seconds * 1e3:8.2f} ms  {24 * n / seconds / 1e9:5.1f} GB/s (24 B/element)")
    print(f"({n} elements, 1 thread, min of {rounds} interleaved rounds; load {load} on {os.cpu_count()} cores)")
    del engine


if __name__ == "__main__":
    main(sys.argv[1:])
