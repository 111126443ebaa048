# The pytest runs of .ci/run, sourced by .ci/run and .ci/coverage (bash).
#   newest_args  every test with the newest dependencies, but the benchmark smoke runs
#                of smoke_args
#   smoke_args   those smoke runs (the Dask and command-line benchmarks, the linear
#                and the model-selection ones: about 85 s), also with the newest
#                dependencies, in the second lane, so that the two lanes take about
#                as long
#   oldest_args  the files tests/lanes.py lists (the APIs that differ between library
#                versions), with the oldest declared dependencies
# Each prints its slowest tests' durations (what a test may cost: CONTRIBUTING.md).
# Needs $root (the checkout) and $py (a python3 to read tests/lanes.py with).
second_smoke="bench_dask.py or bench_dask_reuse.py or bench_dask_exact.py"
second_smoke+=" or bench_dask_modes.py or bench_cli.py or bench_linear.py"
second_smoke+=" or bench_model_selection.py or bench_dask_model_selection.py"
newest_args=(tests -p no:cacheprovider --durations=25 -k "not ($second_smoke)")
smoke_args=(tests/test_bench_smoke.py -p no:cacheprovider -q --durations=6 -k "$second_smoke")
mapfile -t oldest_files < <("$py" "$root/tests/lanes.py" oldest)
oldest_args=("${oldest_files[@]}" -p no:cacheprovider -q --durations=25)
