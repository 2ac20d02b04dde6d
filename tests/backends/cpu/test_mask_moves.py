"""backends/cpu/mask_moves: functions at risk of LLVM 22's miscompiled sign masks
(llvm/llvm-project#191304) are generated without AVX512DQ/BW."""

import numpy as np
from polyfuse.backends.cpu import mask_moves

import polyfuse

FEATURES = "+avx2,+avx512f,+avx512dq,+avx512bw,+avx512vl"
AT_RISK = """define void @"k.phase0"(ptr noalias %J) #0 {
entry:
  %v = load <4 x i64>, ptr %J, align 8
  %neg = icmp slt <4 x i64> %v, zeroinitializer
  %bits = bitcast <4 x i1> %neg to i4
  ret void
}
"""
SAFE = """define void @"k.phase1"(ptr noalias %J) {
entry:
  %v = load <4 x i64>, ptr %J, align 8
  %big = icmp ult <4 x i64> %v, splat (i64 64)
  %bits = bitcast <4 x i1> %big to i4
  ret void
}
"""


def test_only_functions_with_a_sign_mask_moved_to_a_scalar_lose_dq_and_bw(monkeypatch):
    monkeypatch.setattr(mask_moves, "active", lambda: True)
    text = mask_moves.guarded(AT_RISK + SAFE, FEATURES)
    first, second = text.split('define void @"k.phase1"')
    assert f'#0 "target-features"="{FEATURES},-avx512dq,-avx512bw" {{' in first
    assert "target-features" not in second  # an unsigned compare's mask: vpcmpuq, which LLVM keeps
    assert mask_moves.guarded(AT_RISK, "+avx2,+fma") == AT_RISK  # no AVX-512: nothing to compress
    monkeypatch.setattr(mask_moves, "active", lambda: False)
    assert mask_moves.guarded(AT_RISK, FEATURES) == AT_RISK


def test_a_gather_with_wrapped_index_checks_at_opt_level_1():
    # cpu_campaign --style numpy-extra --options, seed 35351: the index checks' sign mask was read
    # from ymm7 instead of ymm23 (an IndexError for indices in range) where the guard is off
    def kern(n, Y, v):
        Idx = (np.abs(v) * 7).astype(np.int64) % (n + 3)
        J = Idx[:n + 2] % (n + 2)
        Y[J, -1 - Idx[:n + 2]] *= np.tanh(v[1:][J])
        return Y

    k = polyfuse.kernel(kern, target="cpu", opt_level=1, fuse="none", cache=False)
    v = np.array([-0.549, 0.069, -0.815, 2.195, -0.401, -0.458, 0.980])
    for values in (v, -v[::-1]):
        np.testing.assert_allclose(k(4, np.ones((6, 7)), values.copy()),
                                   kern(4, np.ones((6, 7)), values.copy()), rtol=1e-14)
