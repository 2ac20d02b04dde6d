"""The LocalCluster the dask tests share: started once per session, on first use."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def client():
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, memory_limit="1GiB",
                           dashboard_address=":0")
    with Client(cluster) as c:
        yield c
    cluster.close()
