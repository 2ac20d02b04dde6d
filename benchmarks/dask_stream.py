"""Where a dask_scale.py chain run spends its time on a LocalCluster: Dask's task stream.

    python benchmarks/dask_stream.py --n 8192 --chunk 1024 --memory 512MiB --versions polyfuse,dask.array --repeat 2

For each version (interleaved, ``--repeat`` times): the wall time and load average, the
compute seconds summed per task prefix, the seconds spent moving data between workers and to
and from disk (spilling), and per key prefix how many results and MiB the workers received
from each other.  Same graphs as ``dask_scale.py --out-of-core`` (inputs made in the graph,
results reduced to per-block digests); session 15 found with it that main's overlap-based graph
moved ~800 MiB per run between two workers where dask.array moved under 1 MiB (docs/dask.md).
"""

from __future__ import annotations

import argparse
import collections
import os
import time

import dask_scale as ds

import polyfuse


def _graph(version: str, n: int, chunk: int):
    A, B, out = ds.generated((n, n), chunk)
    if version == "inputs":
        return [ds.digests(x, A.chunks) for x in (A, B, out)]
    result = {"polyfuse": lambda: ds.CHAIN(A, B, out), "dask.array": lambda: ds.chain_dask(A, B, out),
              "map_overlap+numba": lambda: ds.chain_numba(A, B, out)}[version]()
    return ds.digests(result, A.chunks)


def _received(dask_worker) -> list[tuple[str, int]]:
    """(key prefix, bytes) of every result this worker received from another."""
    found = []
    for entry in dask_worker.transfer_incoming_log:
        for key, nbytes in entry.get("keys", {}).items():
            name = key[0] if isinstance(key, tuple) else key
            found.append((str(name).rsplit("-", 1)[0][:40], nbytes))
    dask_worker.transfer_incoming_log.clear()
    return found


def _prefix(key) -> str:
    name = key[0] if isinstance(key, tuple) else key
    return str(name).rsplit("-", 1)[0][:40]


def main() -> None:
    from distributed import Client, LocalCluster, get_task_stream, wait

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--chunk", type=int, default=1024)
    parser.add_argument("--memory", default="512MiB")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--versions", default="polyfuse,dask.array,inputs")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1, memory_limit=args.memory,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        client.run(polyfuse.set_num_threads, 1)
        for version in args.versions.split(","):  # warm-up: compiles, loads
            client.gather(client.compute(_graph(version, 4 * args.chunk, args.chunk)))
        client.run(_received)
        for _ in range(args.repeat):
            for version in args.versions.split(","):
                graph = _graph(version, args.n, args.chunk)
                with get_task_stream(client) as stream:
                    start = time.perf_counter()
                    wait(client.compute(graph))
                    wall = time.perf_counter() - start
                compute: collections.Counter = collections.Counter()
                moved = disk = 0.0
                for record in stream.data:
                    for part in record["startstops"]:
                        seconds = part["stop"] - part["start"]
                        if part["action"] == "compute":
                            compute[_prefix(record["key"])] += seconds
                        elif part["action"] == "transfer":
                            moved += seconds
                        else:
                            disk += seconds
                print(f"{version}: wall {wall:.2f} s (load {os.getloadavg()[0]:.1f}), compute {sum(compute.values()):.2f} s, "
                      f"transfer {moved:.2f} s, disk {disk:.2f} s, {len(stream.data)} tasks")
                for prefix, seconds in compute.most_common(6):
                    print(f"    compute {prefix:40} {seconds:.2f} s")
                received: dict[str, list[float]] = {}
                for items in client.run(_received).values():
                    for prefix, nbytes in items:
                        received.setdefault(prefix, [0, 0.0])
                        received[prefix][0] += 1
                        received[prefix][1] += nbytes / 2**20
                for prefix, (count, mib) in received.items():
                    print(f"    received {prefix:40} {count:5d} results {mib:8.1f} MiB")


if __name__ == "__main__":
    main()
