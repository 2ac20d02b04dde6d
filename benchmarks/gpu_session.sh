#!/usr/bin/env bash
# One session on a machine with a CUDA GPU, everything in one call (a borrowed GPU is short of time):
# the CUDA tests, the cuda tests elsewhere, the CUDA regression kernels and two random-program
# campaigns run side by side on the CPU cores against the GPU, then benchmarks/gpu.py alone on it.
#
#   bash benchmarks/gpu_session.sh [REGRESSIONS_DIR]     # logs in $OUT (default: gpu-results/)
#
# Wheels in .whl/ (islpy; numpy 2.4 where the machine's numpy breaks numba-cuda's import, as the
# H200 image's 2.5.2 did) are installed first, into /tmp/site.  docs/cuda.md "On a real GPU" has
# what the first session found.
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-gpu-results}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
began=$(date +%s)
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . > "$OUT/install.log" 2>&1 \
  || { tail -20 "$OUT/install.log"; exit 4; }
{ nvidia-smi; python3 -c "
import numba, llvmlite, numpy, islpy; from numba import cuda
print('numba', numba.__version__, 'llvmlite', llvmlite.__version__, 'numpy', numpy.__version__, 'islpy', islpy.__version__)
print(cuda.is_available(), cuda.get_current_device().name)"; } > "$OUT/env.txt" 2>&1
tail -2 "$OUT/env.txt"
export NUMBA_ENABLE_CUDASIM=0 POLYFUSE_TEST_GPU=1
( timeout 250 python3 -m pytest tests/backends/cuda -v -n 10 -p no:cacheprovider -rfE > "$OUT/tests_cuda.log" 2>&1
  echo "exit $?" >> "$OUT/tests_cuda.log" ) &
( timeout 250 python3 -m pytest tests/frontend tests/runtime/test_cache.py -v -n 2 -p no:cacheprovider -rfE -k cuda \
    --ignore=tests/frontend/test_errors.py > "$OUT/tests_other.log" 2>&1; echo "exit $?" >> "$OUT/tests_other.log" ) &
if [ -n "${1:-}" ]; then
  ( for f in "$1"/cuda_*.py; do echo "== $f"; timeout 200 python3 "$f" 2>&1 | tail -3; echo "exit ${PIPESTATUS[0]}"; done \
      > "$OUT/regressions.log" 2>&1 ) &
fi
for seed in 1 2; do
  ( timeout 250 python3 tests/long/cuda_campaign.py --minutes 3.4 --seed "$((seed + began % 10000))" \
      > "$OUT/campaign_$seed.log" 2>&1; echo "exit $?" >> "$OUT/campaign_$seed.log" ) &
done
wait
for f in "$OUT"/tests_*.log "$OUT"/campaign_*.log; do echo "== $f"; tail -3 "$f"; done
[ -f "$OUT/regressions.log" ] && grep -c "^exit 0" "$OUT/regressions.log"
timeout 170 python3 benchmarks/gpu.py --no-tests --repeats 5 > "$OUT/bench.log" 2>&1; echo "bench exit $?"
tail -25 "$OUT/bench.log"
echo "done in $(( $(date +%s) - began )) s"
