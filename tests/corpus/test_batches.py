"""Fresh batches of unseen kernels (``batch_*.py``, tests/corpus/README.md) kept as a test: each
kernel compiled once (cpu target, smart fusion) and run on four seeds' inputs, edge sizes among
them, against the undecorated function (values, dtypes and the Python-or-NumPy type of returned
numbers); the kernels refused on purpose must stay refused with an UnsupportedError or, per
call, an ArgumentError (batch_report.run_case's verdicts)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from batch_report import run_case  # noqa: E402

import polyfuse  # noqa: E402

BATCHES = ("batch_fe37", "batch_fe37b", "batch_fe37c", "batch_fe37d", "batch_fe39", "batch_fe40", "batch_fe41",
           "batch_fe43", "batch_fe45", "batch_fe47", "batch_fe50", "batch_fe52", "batch_np52", "batch_fe53",
           "batch_np53")
# batches kept in part, on the python target (the suite's time budget): the kernels that were
# refused or had to be fixed when the batch came (batch_report checks the rest on cpu)
PARTS = {"batch_fe41": ("python", {"flood_fill_stack", "dijkstra_heap", "kmer_counts", "sliding_min_deque",
                                   "gc_content_windows", "convex_hull_monotone", "rotate_three_buffers",
                                   "early_return_then_count", "fib_recursive_helper"}),
         "batch_fe43": ("python", {"murmur_fmix_array", "splitmix64_fill", "gcd_recursive_helper",
                                   "early_exit_negative_then_count", "rms_windows", "hex_decode_u8",
                                   "verlet_neighbor_list", "rle_decode_u8"}),
         "batch_fe45": ("python", {"nussinov_pairs", "base64_decode", "leb128_encode"}),
         "batch_fe47": ("python", {"cell_list_neighbours", "dna_complement_table", "hex_digits_sum", "label_sizes",
                                   "scatter_to_max_index", "varint_sizes"}),
         "batch_fe50": ("python", {"lax_wendroff_periodic", "holt_linear", "polygon_area_shoelace",
                                   "zero_crossing_rate_frames", "ecdf_unique_np"}),
         "batch_fe52": ("python", {"gbm_split_gain", "power_iteration_rayleigh", "masked_mean_std_np",
                                   "trinomial_euro_call", "rle_encode_pairs", "poly_features_deg2_np"}),
         "batch_np52": ("python", {"xent_take_along", "groupby_max_bincount_labels", "gradient_uneven_spacing",
                                   "groupby_sum_reduceat", "groupby_mean_cumsum", "hist2d_searchsorted",
                                   "median3_filter_rows"}),
         "batch_fe53": ("python", {"utf8_codepoints_u8", "edit_distance_two_rows", "ccl_two_pass_4"}),
         "batch_np53": ("python", {"masked_scatter_add", "stack_channels_median", "event_positions_shifted",
                                   "run_lengths_flatnonzero", "segment_sums_reduceat", "positive_diffs_of_selection",
                                   "gaps_between_events"})}
# kernels whose refusal is the supported answer: round(x, 2) of a Python float (CPython rounds the
# exact decimal value; NumPy's rint does not), an allocation whose extent is an element of the
# data (np.empty(L[n, m]) of an LCS table), and a recursive @njit helper (quicksort, fib; helpers are
# inlined)
# fe43: a recursive helper (gcd); an allocation whose extent is an element of the data (verlet_neighbor_list's
# ``np.empty(start[n])``, rle_decode_u8's sum of the counts)
# fe45: an allocation whose extent reads the data (base64_decode's padding count), a count-then-
# allocate whose count grows in a ``while True`` loop (leb128_encode), and u[i - 1] at i = 0 (a
# negative index Python wraps: predator_prey_grid_euler, refused per call until fe50; batch_report only)
# fe47 (branch fe48): a count-then-allocate whose count grows in ``while True`` (varint_sizes)
# fe50: np.cumsum of np.unique's counts (ecdf_unique_np)
# fe52: a local array bound again in a loop to a new array of another extent (trinomial_euro_call's
# v = nv of np.empty(2 * i + 1)), a list of arrays joined by np.hstack (poly_features_deg2_np)
# fe53: an early return of np.zeros(0) before a buffer whose extent is a floor division by an
# argument (fe43's rms_windows, fe50's zero_crossing_rate_frames) matches now (call_sizes.guarded_source)
# er52: early returns of empty arrays before a count-then-allocate buffer match now (fe41's
# early_return_then_count, fe43's early_exit_negative_then_count, fe52's rle_encode_pairs:
# counted_allocations.empty_early_returns)
# np52: data-dependent lengths (np.add.reduceat at the positions np.nonzero(np.diff(k)) finds, idx =
# np.nonzero(flag)[0] in arithmetic, np.add.at at index arrays selected by a mask) and np.sort of a 3-d
# np.stack along axis 0 (groupby_sum_reduceat, groupby_mean_cumsum, hist2d_searchsorted, median3_filter_rows)
# fe53: a local of two NumPy integer dtypes (ccl_two_pass_4's union-find helper called with an
# int32 label, ``a = eq[a]`` of an int64 table) copied into another local in a loop kept as written
# np53: hist2d_searchsorted (np.add.at at masked index arrays) and median3_filter_rows (np.sort of a 3-d
# array) match now; np53's gaps_between_events (np.diff of positions returned) too; still refused: a join
# of positions (run_lengths_flatnonzero's np.concatenate),
# np.add.reduceat at starts found from the data (segment_sums_reduceat, groupby_sum_reduceat), a slice of
# a boolean-mask selection (positive_diffs_of_selection)
REFUSED = {"ccl_two_pass_4", "trinomial_euro_call", "poly_features_deg2_np",
           "groupby_sum_reduceat", "groupby_mean_cumsum",
           "run_lengths_flatnonzero", "segment_sums_reduceat", "positive_diffs_of_selection",
           "ecdf_unique_np", "varint_sizes", "int_mean_round", "lcs_backtrack", "quicksort_recursive", "fib_recursive_helper",
           "gcd_recursive_helper",
           "verlet_neighbor_list", "rle_decode_u8", "base64_decode", "leb128_encode"}


def _cases():
    for batch in BATCHES:
        target, names = PARTS.get(batch, ("cpu", None))
        for case in importlib.import_module(batch).CASES:
            if names is None or case.name in names:
                yield pytest.param(case, target, id=f"{batch}.{case.name}")


@pytest.mark.parametrize("case, target", list(_cases()))
def test_batch_kernel_matches_the_undecorated_function(case, target):
    try:
        verdict, detail = run_case(case, target=target)
    except polyfuse.UnsupportedError as exc:
        verdict, detail = "refused", str(exc).splitlines()[0]
    assert verdict == ("refused" if case.name in REFUSED else "match"), detail
