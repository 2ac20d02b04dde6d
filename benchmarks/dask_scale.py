"""polyfuse kernels on Dask arrays against the same computations written by hand for Dask.

    python benchmarks/dask_scale.py                     # n=4096, 16 time steps, threaded scheduler
    python benchmarks/dask_scale.py --n 2048 --steps 8 --json
    python benchmarks/dask_scale.py --scheduler cluster --workers 1,2   # LocalCluster, weak scaling
                                            # (n x n per worker: n x 2n on two workers)
    python benchmarks/dask_scale.py --out-of-core --n 16384 --chunk 1024 --steps 8 --memory 512MiB --workers 2,1
                                            # arrays several times one worker's memory (below):
                                            # n x n on the most workers, n x n/2 on half as many
    python benchmarks/dask_scale.py --out-of-core --workloads chain ...   # one workload only

Two workloads on float64 arrays of n x n cut into chunk x chunk blocks:

- ``heat``: a 2-D Jacobi stencil over ``steps`` time steps (the kernel holds the time loop;
  polyfuse.dask picks the steps per halo exchange with its cost model);
- ``chain``: an elementwise step fused with a 5-point stencil (a local temporary in between).

Against, for each: the same computation in ``dask.array`` operations (slices, ``concatenate``),
and ``map_overlap`` around a ``numba.njit`` function written by hand (depth 1, one
``map_overlap`` per time step, as the Dask docs show).  All three give the same arrays (checked
with ``np.array_equal`` before any time is reported).  Each time is the best of ``--repeat``
runs of building the graph and computing it, after one warm-up run (compiles).  polyfuse runs
each block on one thread (``set_num_threads(1)``): Dask's workers are the parallelism, as for
numba's one-threaded functions.  Workers of a cluster get a memory limit of ``--memory``.

``--out-of-core``: arrays several times larger than one worker's memory limit.  Nothing is
persisted or gathered: the inputs are made inside the graph (``da.map_blocks`` of an integer
hash of each element's global indices: cheap, so that making them does not dominate every
version's time, and the same values for every version) and each result is reduced block by block to a
digest (CRC-32 of the block's bytes and shape, or ``--digest blake2b``; one int64 per block), so neither the inputs nor the
result ever have to fit in a worker's (or the client's) memory.  Every version's digests must
be equal (checked before any time is reported), and at a size that fits (``--check-n``) the
digests of every version equal those of the whole-array kernel on numpy arrays (computed on the
client), cut into the same blocks: the digest pipeline itself is checked.  Versions are timed
in turn (A/B interleaved, best of ``--repeat``), each with the machine's load average beside it
(the machine is shared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import time
import zlib

import dask
import dask.array as da
import numba
import numpy as np

import polyfuse
import polyfuse.dask as pfd


def heat(A, B, steps):
    n, m = A.shape
    for _t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                A[i, j] = B[i, j]


def chain(A, B, out):
    n, m = A.shape
    T = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            T[i, j] = math.sqrt(A[i, j] * A[i, j] + B[i, j] * B[i, j])
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = T[i - 1, j] + T[i + 1, j] + T[i, j - 1] + T[i, j + 1] - 4.0 * T[i, j]


HEAT = polyfuse.kernel(heat)
CHAIN = polyfuse.kernel(chain)


# ---- the same with dask.array operations -----------------------------------------------------

def _with_edges(interior, old):
    """``old`` with its interior replaced (the edges are kept, as the loops keep them)."""
    middle = da.concatenate([old[1:-1, :1], interior, old[1:-1, -1:]], axis=1)
    return da.concatenate([old[:1], middle, old[-1:]], axis=0)


def heat_dask(A, steps):
    chunks = A.chunks
    for _ in range(steps):
        interior = 0.25 * (A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:])
        A = _with_edges(interior, A).rechunk(chunks)
    return A


def chain_dask(A, B, out):
    T = da.sqrt(A * A + B * B)
    interior = T[:-2, 1:-1] + T[2:, 1:-1] + T[1:-1, :-2] + T[1:-1, 2:] - 4.0 * T[1:-1, 1:-1]
    return _with_edges(interior, out).rechunk(A.chunks)


# ---- the same with map_overlap + numba.njit, by hand -------------------------------------------

@numba.njit(cache=False)
def _heat_block(a):
    b = a.copy()
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            b[i, j] = 0.25 * (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
    return b


@numba.njit(cache=False)
def _chain_block(a, b, out):
    t = np.sqrt(a * a + b * b)
    o = out.copy()
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            o[i, j] = t[i - 1, j] + t[i + 1, j] + t[i, j - 1] + t[i, j + 1] - 4.0 * t[i, j]
    return o


def heat_numba(A, steps):
    for _ in range(steps):
        A = A.map_overlap(_heat_block, depth=1, boundary="none", dtype=A.dtype)
    return A


def chain_numba(A, B, out):
    return da.map_overlap(_chain_block, A, B, out, depth=1, boundary="none", dtype=A.dtype)


# ---- runs ------------------------------------------------------------------------------------

def _best(make, compute, repeat: int) -> tuple[float, np.ndarray]:
    result = compute(make())  # warm-up: compiles, loads
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = compute(make())
        best = min(best, time.perf_counter() - start)
    return best, result


def workloads(shape: tuple[int, int], chunk: int, steps: int, persist):
    """The versions of each workload, on inputs made by Dask and persisted (on the workers of a
    cluster) before any timing: the graphs carry no data, and no version pays for making it."""
    rng = da.random.default_rng(0)
    A, B, out = persist([rng.random(shape, chunks=chunk) for _ in range(3)])
    yield "heat", {
        "polyfuse": lambda: pfd.call(HEAT, A, A, steps)[0],  # B starts as a copy of A
        "dask.array": lambda: heat_dask(A, steps),
        "map_overlap+numba": lambda: heat_numba(A, steps),
    }
    yield "chain", {
        "polyfuse": lambda: CHAIN(A, B, out),
        "dask.array": lambda: chain_dask(A, B, out),
        "map_overlap+numba": lambda: chain_numba(A, B, out),
    }


VERSIONS = ("polyfuse", "dask.array", "map_overlap+numba")


def run(shape: tuple[int, int], chunk: int, steps: int, repeat: int, compute, persist,
        versions=VERSIONS) -> list[dict]:
    rows = []
    for name, makers in workloads(shape, chunk, steps, persist):
        times, results = {}, {}
        for version in versions:
            times[version], results[version] = _best(makers[version], compute, repeat)
        reference = results["polyfuse"]
        same = {v: bool(np.array_equal(r, reference)) for v, r in results.items()}
        close = {v: bool(np.allclose(r, reference, rtol=1e-12, atol=0)) for v, r in results.items()}
        rows.append({"workload": name, "shape": list(shape), "chunk": chunk, "steps": steps if name == "heat" else None,
                     "seconds": times, "identical": same, "close": close,
                     "speedup_vs_dask_array": _ratio(times, "dask.array"),
                     "speedup_vs_numba": _ratio(times, "map_overlap+numba")})
    return rows


def _ratio(times: dict, other: str, limit: float = 0.0) -> float | None:
    """How many times faster polyfuse is; a version cancelled at ``limit`` counts as ``limit``
    (so the ratio is a lower bound)."""
    if other not in times:
        return None
    return (limit if times[other] == math.inf else times[other]) / times["polyfuse"]


def _cell(value: float | None, width: int, digits: int) -> str:
    return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"


def table(rows: list[dict], label: str) -> str:
    lines = [f"{label}", f"{'workload':8} {'shape':>11} {'chunk':>6} {'polyfuse':>10} {'dask.array':>11} "
             f"{'map_ov+numba':>13} {'x dask':>7} {'x numba':>8}  same"]
    for r in rows:
        s = r["seconds"]
        same = "exact" if all(r["identical"].values()) else "close" if all(r["close"].values()) else "DIFFER"
        shape = "x".join(map(str, r["shape"]))
        lines.append(f"{r['workload']:8} {shape:>11} {r['chunk']:6d} {s['polyfuse']:10.3f} "
                     f"{_cell(s.get('dask.array'), 11, 3)} {_cell(s.get('map_overlap+numba'), 13, 3)} "
                     f"{_cell(r['speedup_vs_dask_array'], 7, 2)} {_cell(r['speedup_vs_numba'], 8, 2)}  {same}")
    return "\n".join(lines)


# ---- out of core: inputs made in the graph, results reduced per block ------------------------

def digest(block: np.ndarray, how: str = "crc32") -> np.ndarray:
    """A block's fingerprint as one int64, shaped ``(1, ..., 1)``: CRC-32 of its bytes and its
    shape (``how="crc32"``, 2 ms for 8 MiB here), or blake2b of its bytes (``"blake2b"``, 9 ms
    idle and 25 ms loaded: more than the chain kernel itself, a cost every version paid)."""
    data = memoryview(np.ascontiguousarray(block)).cast("B")
    if how == "blake2b":
        code = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little", signed=True)
    else:
        code = (zlib.crc32(data) << 31) ^ zlib.crc32(repr(block.shape).encode())
    return np.full((1,) * block.ndim, code, dtype=np.int64)


def digests(result, chunks, how: str = "crc32"):
    """One digest per block of ``result`` cut into ``chunks`` (a small dask array)."""
    result = result.rechunk(chunks) if result.chunks != chunks else result
    return result.map_blocks(digest, how=how, chunks=tuple((1,) * len(c) for c in chunks), dtype=np.int64)


def _numpy_digests(array: np.ndarray, chunks, how: str = "crc32") -> np.ndarray:
    return digests(da.from_array(array, chunks=chunks), chunks, how).compute(scheduler="sync")


def _field(seed: int, block_info=None) -> np.ndarray:
    """One block of a deterministic field in [0, 1): ``u(i) + v(j)``, ``u`` and ``v`` integer
    hashes of the global row and column index scaled to [0, 0.5).  One pass over the block
    (``np.add.outer``), far cheaper than ``da.random``'s generator, so that making the inputs
    does not dominate the timings."""
    (r0, r1), (c0, c1) = block_info[None]["array-location"]
    rows = (np.arange(r0, r1, dtype=np.int64) * 7919 + seed * 15485863) % 1000003
    cols = (np.arange(c0, c1, dtype=np.int64) * 104729 + seed * 32452843) % 999983
    return np.add.outer(rows / 2000006.0, cols / 1999966.0)


def generated(shape: tuple[int, int], chunk: int):
    """The inputs, made inside the graph by ``da.map_blocks`` of a formula on each block's
    global indices (never materialised on the client; every version reads the same values)."""
    chunks = da.core.normalize_chunks(chunk, shape, dtype=np.float64)
    return tuple(da.map_blocks(_field, seed, chunks=chunks, dtype=np.float64, meta=np.empty((0, 0)),
                               name=f"field-{seed}-{shape[0]}x{shape[1]}-{chunk}")
                 for seed in (1, 2, 3))


def out_of_core_makers(shape: tuple[int, int], chunk: int, steps: int, how: str = "crc32"):
    """Each workload's versions as functions making the digests' graph from scratch (and
    ``inputs``: the digests of the generated inputs alone, what every version pays too)."""
    def heat_versions():
        def make(version):
            A = generated(shape, chunk)[0]
            if version == "inputs":
                return digests(A, A.chunks, how)
            result = {"polyfuse": lambda: pfd.call(HEAT, A, A, steps)[0],
                      "dask.array": lambda: heat_dask(A, steps),
                      "map_overlap+numba": lambda: heat_numba(A, steps)}[version]()
            return digests(result, A.chunks, how)
        return make

    def chain_versions():
        def make(version):
            A, B, out = generated(shape, chunk)
            if version == "inputs":
                return [digests(x, A.chunks, how) for x in (A, B, out)]
            result = {"polyfuse": lambda: CHAIN(A, B, out),
                      "dask.array": lambda: chain_dask(A, B, out),
                      "map_overlap+numba": lambda: chain_numba(A, B, out)}[version]()
            return digests(result, A.chunks, how)
        return make

    return {"heat": heat_versions(), "chain": chain_versions()}


def numpy_reference(workload: str, shape: tuple[int, int], chunk: int, steps: int, how: str = "crc32") -> np.ndarray:
    """The whole-array kernel on numpy arrays (the same generated inputs), as digests."""
    A, B, out = (x.compute(scheduler="sync") for x in generated(shape, chunk))
    if workload == "heat":
        HEAT(A, A.copy(), steps)
        return _numpy_digests(A, generated(shape, chunk)[0].chunks, how)
    CHAIN(A, B, out)
    return _numpy_digests(out, generated(shape, chunk)[0].chunks, how)


def _timed(client, graph, limit: float) -> tuple[float, np.ndarray | None, float]:
    """Seconds, digests and the higher load average of start and end; a run past ``limit``
    seconds is cancelled (seconds ``inf``, digests None: a lower bound, reported as such)."""
    from distributed import wait

    load = os.getloadavg()[0]
    start = time.perf_counter()
    futures = client.compute(graph)
    try:
        wait(futures, timeout=limit or None)
    except TimeoutError:
        client.cancel(futures)
        return math.inf, None, max(load, os.getloadavg()[0])
    seconds = time.perf_counter() - start
    return seconds, client.gather(futures), max(load, os.getloadavg()[0])


def out_of_core(args, versions) -> list[dict]:
    from distributed import Client, LocalCluster

    rows = []
    counts = [int(w) for w in args.workers.split(",")]
    for workers in counts:
        shape = (args.n, args.n * workers // max(counts))  # weak scaling: n x n on the most workers
        with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, memory_limit=args.memory,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            client.run(polyfuse.set_num_threads, 1)
            small = (args.check_n, args.check_n * workers // max(counts))
            for name, make in out_of_core_makers(small, args.check_chunk, args.steps, args.digest).items():
                if name not in args.workloads.split(","):
                    continue
                expected = numpy_reference(name, small, args.check_chunk, args.steps, args.digest)
                for version in versions:  # also the warm-up: every worker compiles or loads
                    found = client.gather(client.compute(make(version)))
                    if not np.array_equal(found, expected):
                        raise SystemExit(f"{name} {version} at {small}: digests differ from the numpy kernel's")
            for name, make in out_of_core_makers(shape, args.chunk, args.steps, args.digest).items():
                if name not in args.workloads.split(","):
                    continue
                best: dict[str, float] = {v: math.inf for v in ("inputs", *versions)}
                loads: dict[str, float] = {}
                found_by: dict[str, np.ndarray] = {}
                for _ in range(args.repeat):
                    for version in best:
                        if best[version] == math.inf and version in loads:
                            continue  # past the limit once: not again
                        seconds, found, load = _timed(client, make(version), args.limit)
                        if version != "inputs" and found is not None:
                            found_by[version] = found
                        if seconds < best[version] or version not in loads:
                            best[version], loads[version] = seconds, load
                reference = found_by["polyfuse"]
                same = {v: bool(np.array_equal(d, reference)) for v, d in found_by.items()}
                if not all(same.values()):
                    raise SystemExit(f"{name} at {shape}: the versions' digests differ: {same}")
                rows.append({"workload": name, "workers": workers, "digest": args.digest, "shape": list(shape), "chunk": args.chunk,
                             "gib": shape[0] * shape[1] * 8 / 2**30, "memory_limit": args.memory,
                             "steps": args.steps if name == "heat" else None, "seconds": best,
                             "load": loads, "identical": same, "checked_against_numpy_at": list(small),
                             "limit": args.limit,
                             "speedup_vs_dask_array": _ratio(best, "dask.array", args.limit),
                             "speedup_vs_numba": _ratio(best, "map_overlap+numba", args.limit)})
                print(out_of_core_table(rows[-1:]), flush=True)
    return rows


def out_of_core_table(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        s, load = r["seconds"], r["load"]
        cells = "  ".join(f"{v} {s[v]:.2f} s (load {load[v]:.1f})" if s[v] != math.inf else
                          f"{v} > {r['limit']:.0f} s (cancelled; load {load[v]:.1f})" for v in s)
        lines.append(f"{r['workload']:6} {r['workers']} worker(s) {'x'.join(map(str, r['shape']))} "
                     f"({r['gib']:.2f} GiB per array, workers {r['memory_limit']}): {cells}; "
                     f"x dask.array {_cell(r['speedup_vs_dask_array'], 5, 2)}, "
                     f"x numba {_cell(r['speedup_vs_numba'], 5, 2)}; digests identical "
                     "(of the versions that finished)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--chunk", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--scheduler", choices=["threads", "cluster"], default="threads")
    parser.add_argument("--workers", default="2", help="cluster sizes, e.g. 1,2 (weak scaling: axis 1 grows with them)")
    parser.add_argument("--memory", default="2GiB", help="memory limit per cluster worker")
    parser.add_argument("--workloads", default="heat,chain", help="--out-of-core: which workloads to run")
    parser.add_argument("--versions", default=",".join(VERSIONS),
                        help="which versions to time (polyfuse always), e.g. polyfuse,map_overlap+numba")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out-of-core", action="store_true",
                        help="inputs made in the graph, results reduced to per-block digests (a LocalCluster)")
    parser.add_argument("--check-n", type=int, default=1024, help="--out-of-core: the size checked against numpy")
    parser.add_argument("--check-chunk", type=int, default=256)
    parser.add_argument("--digest", choices=["crc32", "blake2b"], default="crc32",
                        help="--out-of-core: each result block's fingerprint (blake2b: what session 13-14 ran)")
    parser.add_argument("--limit", type=float, default=180.0,
                        help="--out-of-core: seconds after which one run is cancelled (0: none)")
    args = parser.parse_args()
    polyfuse.set_num_threads(1)
    versions = tuple(dict.fromkeys(["polyfuse", *args.versions.split(",")]))
    report = {"plan": str(pfd.explain(HEAT, da.zeros((args.n, args.n), chunks=args.chunk),
                                      da.zeros((args.n, args.n), chunks=args.chunk), args.steps)), "runs": []}
    if args.out_of_core:
        print(report["plan"], flush=True)
        report["runs"] = out_of_core(args, versions)
        print(json.dumps(report, indent=1) if args.json else json.dumps(report["runs"]))
        return
    if args.scheduler == "threads":
        with dask.config.set(scheduler="threads", num_workers=2):
            rows = run((args.n, args.n), args.chunk, args.steps, args.repeat, lambda x: x.compute(),
                       lambda xs: dask.persist(*xs), versions)
        report["runs"].append({"scheduler": "threads x2", "rows": rows})
    else:
        from distributed import Client, LocalCluster

        base = None
        for workers in (int(w) for w in args.workers.split(",")):
            base = base or workers
            shape = (args.n, args.n * workers // base)  # weak scaling: the same blocks per worker
            with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1,
                              memory_limit=args.memory, dashboard_address=":0") as cluster, Client(cluster) as client:
                client.run(polyfuse.set_num_threads, 1)
                rows = run(shape, args.chunk, args.steps, args.repeat, lambda x: client.compute(x).result(),
                           client.persist, versions)
            report["runs"].append({"scheduler": f"LocalCluster {workers} worker(s)", "rows": rows})
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(report["plan"])
    for entry in report["runs"]:
        print()
        print(table(entry["rows"], entry["scheduler"]))
    print()
    print(json.dumps(report["runs"]))


if __name__ == "__main__":
    main()
