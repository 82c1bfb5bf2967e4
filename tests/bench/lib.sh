# lib.sh - sourced by tests/bench/bench-*.sh: time two commands side by
# side and print their ratio.  Times are medians of BENCH_RUNS runs (5 by
# default) of `sh -c CMD`, wall clock; a ratio above 1 means otp-utils is
# faster.  Numbers are for reading, never asserted: the machine is shared.

BENCH_RUNS=${BENCH_RUNS:-5}

# now_ns: the monotonic-enough wall clock in nanoseconds.
now_ns() { date +%s%N; }

# median_ns CMD: median wall time of BENCH_RUNS runs of CMD.
median_ns() {
	local i t0 t1 times=()
	for ((i = 0; i < BENCH_RUNS; i++)); do
		t0=$(now_ns)
		sh -c "$1" >/dev/null 2>&1
		t1=$(now_ns)
		times+=($((t1 - t0)))
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((BENCH_RUNS + 1) / 2))p"
}

# bench NAME OURS THEIRS: print one row of the table.
bench() {
	local ours theirs
	ours=$(median_ns "$2")
	theirs=$(median_ns "$3")
	awk -v n="$1" -v o="$ours" -v t="$theirs" 'BEGIN {
		printf "%-52s %10.2f ms %10.2f ms %7.2fx\n", n, o / 1e6, t / 1e6,
		    (o > 0 ? t / o : 0) }'
}

# bench_header TITLE: the column heads.
bench_header() {
	printf '\n== %s\n%-52s %13s %13s %8s\n' "$1" "case" "otp-utils" \
	    "reference" "ratio"
}

# peak_rss_kb CMD: peak resident memory of CMD in KiB.
peak_rss_kb() {
	/usr/bin/time -f %M sh -c "$1" 2>&1 >/dev/null | tail -n 1
}
