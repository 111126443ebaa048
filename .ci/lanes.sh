# The two pytest lanes of .ci/run, sourced by .ci/run and .ci/coverage (bash).
#   newest_args  the whole suite, with the newest dependencies
#   oldest_args  the files tests/lanes.py lists (the APIs that differ between library
#                versions), with the oldest declared dependencies
# Both print the 25 slowest tests' durations (what a test may cost: CONTRIBUTING.md).
# Needs $root (the checkout) and $py (a python3 to read tests/lanes.py with).
newest_args=(tests -p no:cacheprovider --durations=25)
mapfile -t oldest_files < <("$py" "$root/tests/lanes.py" oldest)
oldest_args=("${oldest_files[@]}" -p no:cacheprovider -q --durations=25)
