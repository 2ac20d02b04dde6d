"""explain()'s "team or serial" section: what the runtime measured for each parallel phase so far
in this process (backends/cpu/parallel.py ``team_record``), read afresh at every explain()."""

from __future__ import annotations

import numpy as np
from conftest import threads_forced

import polyfuse
from polyfuse.runtime import threads


def double_tanh(x, out):
    out[:] = np.tanh(x) * 2.0


def test_explain_reports_the_team_choice_measured_so_far():
    x = np.linspace(-2.0, 2.0, 4096)
    out = np.empty_like(x)
    kernel = polyfuse.kernel(double_tanh, cache=False)
    with threads_forced():
        threads.set_num_threads(2)
        assert "team or serial" not in dict(kernel.explain(x, out).sections)  # (nothing ran yet)
        for _ in range(3):
            kernel(x, out)
        records = dict(kernel.explain(x, out).sections)["team or serial"]
    np.testing.assert_allclose(out, np.tanh(x) * 2.0, rtol=1e-12)
    (record,) = [r for r in records if r["threads"] == 2 and r["sizes"] == [4096]]
    # (the team ran: it was forced; what the record chooses depends on the times measured)
    assert set(record["best ms"]) == {"serial", "team"} and record["chosen"] in ("team", "serial")
