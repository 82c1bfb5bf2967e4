# shellcheck shell=bash
# lib.sh - sourced by tests/bench/bench-*.sh: time two commands side by
# side and print their ratio.  Times are medians of BENCH_RUNS runs (5 by
# default), wall clock, as hyperfine measures them (it subtracts its own
# shell's start-up); without hyperfine, a shell loop around `sh -c CMD`
# that also counts two `date` processes per run.  A ratio above 1 means
# otp-utils is faster.  Numbers are for reading, never asserted: the
# machine is shared.

BENCH_RUNS=${BENCH_RUNS:-5}

# now_ns: the wall clock in nanoseconds.
now_ns() { date +%s%N; }

# hyperfine_ns JSON: the median of a hyperfine --export-json file, in ns.
hyperfine_ns() {
	sed -n 's/.*"median": *\([0-9.eE+-]*\).*/\1/p' "$1" | head -n 1 |
	    awk '{ printf "%.0f\n", $1 * 1e9 }'
}

# median_ns CMD [PREPARE]: median wall time of BENCH_RUNS runs of CMD, with
# PREPARE run (untimed) before each.
median_ns() {
	local i t0 t1 json times=() direct=()
	if command -v hyperfine >/dev/null 2>&1; then
		json=$(mktemp)
		# A plain command runs without a shell: hyperfine's
		# subtraction of the shell's start-up is noise on a
		# millisecond scale.
		case $1 in
		*[\|\&\;\<\>\(\)\$\`\'\"]*) ;;
		*) direct=(-N) ;;
		esac
		hyperfine --style none --ignore-failure --warmup 1 \
		    --runs "$BENCH_RUNS" \
		    "${direct[@]}" ${2:+--prepare "sh -c '$2'"} \
		    --export-json "$json" "$1" \
		    >/dev/null 2>&1 || { rm -f "$json"; return 1; }
		hyperfine_ns "$json"
		rm -f "$json"
		return
	fi
	for ((i = 0; i < BENCH_RUNS; i++)); do
		[ -z "${2:-}" ] || sh -c "$2" >/dev/null 2>&1
		t0=$(now_ns)
		sh -c "$1" >/dev/null 2>&1
		t1=$(now_ns)
		times+=($((t1 - t0)))
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((BENCH_RUNS + 1) / 2))p"
}

# row NAME OURS_NS THEIRS_NS: print one row of the table.
row() {
	awk -v n="$1" -v o="$2" -v t="$3" 'BEGIN {
		printf "%-52s %10.2f ms %10.2f ms %7.2fx\n", n, o / 1e6, t / 1e6,
		    (o > 0 ? t / o : 0) }'
}

# bench NAME OURS THEIRS: time both commands and print their row.
bench() {
	row "$1" "$(median_ns "$2")" "$(median_ns "$3")"
}

# bench_cpu NAME OURS THEIRS: one run of each command, its CPU seconds
# (user + sys) side by side: the work done, whatever the threads did to
# the wall clock.
bench_cpu() {
	local o t
	o=$(/usr/bin/time -f '%U %S' sh -c "$2" 2>&1 >/dev/null | tail -n 1 |
	    awk '{ print $1 + $2 }')
	t=$(/usr/bin/time -f '%U %S' sh -c "$3" 2>&1 >/dev/null | tail -n 1 |
	    awk '{ print $1 + $2 }')
	awk -v n="$1" -v o="$o" -v t="$t" 'BEGIN {
	    printf "%-52s %10.2f s  %10.2f s  %7.2fx\n", n, o, t,
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
