# shellcheck shell=bash
# lib.sh - sourced by tests/bench/bench-*.sh: time two commands side by
# side and print their ratio.  Times are medians of BENCH_RUNS runs (5 by
# default), wall clock, as hyperfine measures them (it subtracts its own
# shell's start-up); without hyperfine, a shell loop around `sh -c CMD`
# that also counts two `date` processes per run.  A ratio above 1 means
# otp-utils is faster.  Numbers are for reading, never asserted: the
# machine is shared.  Rows made by bench_core run both sides on one CPU,
# BENCH_CPU (0 by default).

BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_CPU=${BENCH_CPU:-0}

# now_ns: the wall clock in nanoseconds.
now_ns() { date +%s%N; }

# hyperfine_ns JSON: the median of a hyperfine --export-json file, in ns.
hyperfine_ns() {
	sed -n 's/.*"median": *\([0-9.eE+-]*\).*/\1/p' "$1" | head -n 1 |
	    awk '{ printf "%.0f\n", $1 * 1e9 }'
}

# hyperfine_cpu_ns JSON: the mean CPU time (user + system) of a hyperfine
# --export-json file, in ns.
hyperfine_cpu_ns() {
	sed -n 's/.*"\(user\|system\)": *\([0-9.eE+-]*\).*/\2/p' "$1" |
	    head -n 2 | awk '{ t += $1 } END { printf "%.0f\n", t * 1e9 }'
}

# times_ns CMD [PREPARE]: "WALL CPU", the median wall time of BENCH_RUNS
# runs of CMD and their mean CPU time (user + system; 0 when unknown), in
# ns, with PREPARE run (untimed) before each.
times_ns() {
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
		echo "$(hyperfine_ns "$json") $(hyperfine_cpu_ns "$json")"
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
	echo "$(printf '%s\n' "${times[@]}" | sort -n |
	    sed -n "$(((BENCH_RUNS + 1) / 2))p") 0"
}

# median_ns CMD [PREPARE]: the wall time of times_ns alone.
median_ns() {
	local t
	t=$(times_ns "$@") || return 1
	echo "${t%% *}"
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

# bench_core NAME OURS THEIRS: both commands on one CPU (taskset -c
# BENCH_CPU), the work per core: their row, then their CPU times (user +
# system) side by side, which other load on the machine moves less than
# the wall clock.
bench_core() {
	local o t
	o=$(times_ns "taskset -c $BENCH_CPU $2")
	t=$(times_ns "taskset -c $BENCH_CPU $3")
	row "$1" "${o%% *}" "${t%% *}"
	if [ -n "$o" ] && [ -n "$t" ] && [ "${o#* }" != 0 ]; then
		row "  the same, CPU time (user + system)" "${o#* }" "${t#* }"
	fi
}

# bench_alt NAME OURS THEIRS: for commands of a few milliseconds, where
# load that comes and goes on a shared machine outweighs the difference:
# BENCH_RUNS runs of each on one CPU, alternating, so that such load falls
# on both alike.  OURS and THEIRS are words, run without a shell.  The
# row holds the median wall times (bash's fork and exec included, the
# same on both sides), the next one the mean CPU times (user + system)
# that bash's `times` counts for its children.
bench_alt() {
	local i k t0 t1 f cmd=() wall=() cpu=()
	f=$(mktemp)
	times > "$f"
	cpu+=("$(sed -n 2p "$f")")
	for ((i = 0; i < BENCH_RUNS; i++)); do
		for k in 2 3; do
			read -r -a cmd <<< "taskset -c $BENCH_CPU ${!k}"
			t0=$EPOCHREALTIME
			"${cmd[@]}" >/dev/null 2>&1
			t1=$EPOCHREALTIME
			times > "$f"
			wall+=("$k ${t0/./} ${t1/./}")
			cpu+=("$k $(sed -n 2p "$f")")
		done
	done
	rm -f "$f"
	printf '%s\n' "${wall[@]}" | awk -v n="$1" '
	    { d[$1, ++c[$1]] = ($3 - $2) * 1000 }
	    function med(k,   i, j, t, m) {
		m = c[k]
		for (i = 1; i <= m; i++) v[i] = d[k, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return v[int((m + 1) / 2)]
	    }
	    END { o = med(2); t = med(3)
		printf "%-52s %10.2f ms %10.2f ms %7.2fx\n", n, o / 1e6,
		    t / 1e6, (o > 0 ? t / o : 0) }'
	# times: "0m0.012s 0m0.020s", user and system of all children.
	printf '%s\n' "${cpu[@]}" | awk '
	    function sec(x) { sub(/s$/, "", x); split(x, p, "m")
		return p[1] * 60 + p[2] }
	    NR == 1 { last = sec($1) + sec($2); next }
	    { now = sec($2) + sec($3); u[$1] += now - last; c[$1]++
		last = now }
	    END { o = u[2] / c[2] * 1e9; t = u[3] / c[3] * 1e9
		printf "%-52s %10.2f ms %10.2f ms %7.2fx\n",
		    "  the same, CPU time (user + system)", o / 1e6, t / 1e6,
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
