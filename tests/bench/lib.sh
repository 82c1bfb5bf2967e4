# shellcheck shell=bash
# lib.sh - sourced by tests/bench/bench-*.sh: time two commands side by
# side and print their ratio.  Times are medians of BENCH_RUNS runs (5 by
# default), wall clock, as hyperfine measures them (it subtracts its own
# shell's start-up); without hyperfine (or with BENCH_HYPERFINE=none), a
# shell loop around `bash -c CMD` that also counts two `date` processes
# per run.  A ratio above 1 means otp-utils is faster.  Numbers are for
# reading, never asserted: the machine is shared.  Rows made by
# bench_core run both sides on one CPU, BENCH_CPU (0 by default).
#
# A command that fails is no figure: every run must exit 0, or the
# status BENCH_STATUS gives ("OURS THEIRS", "0 0" by default; "1 2" for
# otp-verify and oathtool finding no match), with every stage of a
# pipeline counted (pipefail).  Otherwise the helper names the command,
# its exit status and the end of its stderr, and the script exits 1.

BENCH_RUNS=${BENCH_RUNS:-5}
BENCH_CPU=${BENCH_CPU:-0}
BENCH_STATUS=${BENCH_STATUS:-0 0}
BENCH_HYPERFINE=${BENCH_HYPERFINE:-hyperfine}
# The shell of hyperfine's commands that need one.
BENCH_SHELL="bash -o pipefail"

# bench_failed CMD STATUS WANT: say that CMD exited STATUS, not WANT, with
# the end of the stderr of one more run of it.
bench_failed() {
	{
		echo "bench: FAILED: exit status $2, not $3: $1"
		bash -o pipefail -c "$1" 2>&1 >/dev/null </dev/null | tail -n 5 |
		    sed 's/^/bench:   /'
	} >&2
}

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
# ns, with PREPARE run (untimed) before each.  Every run must exit with
# status BENCH_EXPECT (0 by default); otherwise it prints nothing, says
# so on stderr and returns 1.
times_ns() {
	local i t0 t1 json rc want=${BENCH_EXPECT:-0} times=() how=()
	if [ "$BENCH_HYPERFINE" != none ] &&
	    command -v "$BENCH_HYPERFINE" >/dev/null 2>&1; then
		json=$(mktemp)
		# A plain command runs without a shell: hyperfine's
		# subtraction of the shell's start-up is noise on a
		# millisecond scale.  Others run in bash with pipefail.
		case $1 in
		*[\|\&\;\<\>\(\)\$\`\'\"]*)
			how=(--shell "$BENCH_SHELL") ;;
		*) how=(-N) ;;
		esac
		# --ignore-failure, and then every run's exit status checked
		# against the one wanted.
		"$BENCH_HYPERFINE" --style none --ignore-failure --warmup 1 \
		    --runs "$BENCH_RUNS" \
		    "${how[@]}" ${2:+--prepare "sh -c '$2'"} \
		    --export-json "$json" "$1" \
		    >/dev/null 2>&1 || {
			rm -f "$json"
			echo "bench: FAILED: hyperfine could not run: $1" \
			    "${2:+(prepared by: $2)}" >&2
			return 1
		}
		rc=$(hyperfine_status "$json" "$want")
		if [ "$rc" != "$want" ]; then
			rm -f "$json"
			bench_failed "$1" "$rc" "$want"
			return 1
		fi
		echo "$(hyperfine_ns "$json") $(hyperfine_cpu_ns "$json")"
		rm -f "$json"
		return
	fi
	for ((i = 0; i < BENCH_RUNS; i++)); do
		if [ -n "${2:-}" ] && ! sh -c "$2" >/dev/null 2>&1; then
			echo "bench: FAILED: the preparation failed: $2" >&2
			return 1
		fi
		t0=$(now_ns)
		rc=0
		bash -o pipefail -c "$1" >/dev/null 2>&1 || rc=$?
		t1=$(now_ns)
		if [ "$rc" != "$want" ]; then
			bench_failed "$1" "$rc" "$want"
			return 1
		fi
		times+=($((t1 - t0)))
	done
	echo "$(printf '%s\n' "${times[@]}" | sort -n |
	    sed -n "$(((BENCH_RUNS + 1) / 2))p") 0"
}

# hyperfine_status JSON WANT: WANT when every run in a hyperfine
# --export-json file exited so, else the first status that differs.
hyperfine_status() {
	tr -d ' \n' < "$1" | sed -n 's/.*"exit_codes":\[\([-0-9,]*\)\].*/\1/p' |
	    tr , '\n' | awk -v w="$2" '
	    $0 != w { print; bad = 1; exit }
	    { n++ }
	    END { if (!bad) print (n ? w : "unknown") }'
}

# median_ns CMD [PREPARE]: the wall time of times_ns alone.
median_ns() {
	local t
	t=$(times_ns "$@") || return 1
	echo "${t%% *}"
}

# row NAME OURS_NS THEIRS_NS: print one row of the table.  A time that
# is missing is a failed measurement: it says so and exits, never prints
# a figure.
row() {
	case "$2:$3" in
	*[!0-9:]* | :* | *:)
		echo "bench: FAILED: no time measured for \"$1\"" >&2
		exit 1 ;;
	esac
	awk -v n="$1" -v o="$2" -v t="$3" 'BEGIN {
		printf "%-52s %10.2f ms %10.2f ms %7.2fx\n", n, o / 1e6, t / 1e6,
		    (o > 0 ? t / o : 0) }'
}

# bench NAME OURS THEIRS: time both commands and print their row.
bench() {
	local o t
	o=$(BENCH_EXPECT=${BENCH_STATUS% *} median_ns "$2") || exit 1
	t=$(BENCH_EXPECT=${BENCH_STATUS#* } median_ns "$3") || exit 1
	row "$1" "$o" "$t"
}

# bench_core NAME OURS THEIRS: both commands on one CPU (taskset -c
# BENCH_CPU), the work per core: their row, then their CPU times (user +
# system) side by side, which other load on the machine moves less than
# the wall clock.
bench_core() {
	local o t
	o=$(BENCH_EXPECT=${BENCH_STATUS% *} \
	    times_ns "taskset -c $BENCH_CPU $2") || exit 1
	t=$(BENCH_EXPECT=${BENCH_STATUS#* } \
	    times_ns "taskset -c $BENCH_CPU $3") || exit 1
	row "$1" "${o%% *}" "${t%% *}"
	if [ "${o#* }" != 0 ]; then
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
	local i k t0 t1 f rc want cmd=() wall=() cpu=()
	f=$(mktemp)
	times > "$f"
	cpu+=("$(sed -n 2p "$f")")
	for ((i = 0; i < BENCH_RUNS; i++)); do
		for k in 2 3; do
			read -r -a cmd <<< "taskset -c $BENCH_CPU ${!k}"
			rc=0
			t0=$EPOCHREALTIME
			"${cmd[@]}" >/dev/null 2>&1 || rc=$?
			t1=$EPOCHREALTIME
			want=${BENCH_STATUS% *}
			[ "$k" = 2 ] || want=${BENCH_STATUS#* }
			if [ "$rc" != "$want" ]; then
				rm -f "$f"
				bench_failed "${!k}" "$rc" "$want"
				exit 1
			fi
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

# peak_rss_kb CMD: peak resident memory of CMD in KiB; returns 1, saying
# so, when CMD fails.
peak_rss_kb() {
	local r
	r=$(/usr/bin/time -f '%x %M' bash -o pipefail -c "$1" 2>&1 >/dev/null |
	    tail -n 1)
	if [ "${r%% *}" != 0 ]; then
		bench_failed "$1" "${r%% *}" 0
		return 1
	fi
	echo "${r#* }"
}
