#!/usr/bin/env bats
# readme.bats - the README as a new user reads it.  Every command in its
# code blocks (indented, or fenced without a language or as sh; a fenced
# `text` block is not commands) runs with the built tools, each block in a
# fresh sandbox: a HOME, a working directory, and the files the examples
# name.  A command must exit 0, and print what the README shows after a
# `$ command` line.  What cannot run here is listed in not_run() with the
# reason, so a new example fails this test until someone decides.  Then
# the README's other promises, each with its test.

bats_require_minimum_version 1.5.0
load common

ROOT=$BATS_TEST_DIRNAME/..
README=$ROOT/README.md
URI='otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example'

setup() {
	T=$BATS_TEST_TMPDIR
	PUB=
}

teardown() {
	[ -z "$PUB" ] || rm -rf "$PUB"
}

# The README's examples that do not run here: the command's first line
# exactly as in the README, a tab, and why.
not_run() {
	cat <<'EOF'
make demo     # on a fresh Debian/Ubuntu machine: install what is missing, build, show the main jobs and a login	the build itself, run by CI (.ci/run)
make check    # the same, then run every test	the build itself, run by CI (.ci/run)
make                      # build into build/	the build itself, run by CI (.ci/run)
make check                # install missing packages, build, run every test	the build itself, run by CI (.ci/run)
make sanitize             # the suite again under AddressSanitizer and UBSan	the build itself, run by CI (.ci/run)
make check-e2e            # as root: pam_otp.so in a real sshd and a threaded host	needs root; run by CI (.ci/run)
sudo make check-e2e       # sshd, a threaded PAM host, FreeRADIUS, Apache, nginx, OpenVPN, login	needs root; run by CI (.ci/run)
make fuzz FUZZ_SECONDS=60 # every libFuzzer target	the build itself, run by CI (.ci/run)
make bench                # speed side by side with oathtool and coreutils	minutes of benchmarks
make lint                 # mandoc -Tlint, groff, shellcheck, cppcheck, clang-tidy	the build itself, run by CI (.ci/run)
make install PREFIX=/usr/local   # also DESTDIR, BINDIR, MANDIR, PAMDIR, completion dirs;	run below with a DESTDIR ("make install puts ...")
otp-verify -b - 492039	asks for the key at a terminal; the code is the phone's of the moment
pass show github-otp | otp-gen --totp -b -	needs pass(1) and the user's password store
otp-verify --state ~/.google_authenticator 123456 && echo welcome	needs the code on the user's phone
otp-verify --dry-run -v -N '2024-05-01 12:00:00 UTC' --state ~/.google_authenticator 123456	needs a code from the phone for that time
otp-keygen --state ~/.google_authenticator --confirm \	asks for a code from the phone on the terminal
zbarimg --raw -q export.png | otp-uri --from-migration -o accounts	needs a screenshot of the app's export (tests/otp-uri.bats makes one)
otp-uri --from=pskc --pskc-key=@transport.hex -o accounts vendor.pskc	needs a vendor's file and its transport key (tests/otp-uri-pskc.bats reads RFC 6030's)
echo 'auth required pam_otp.so nullok' | sudo tee /etc/pam.d/otp-test	needs root; changes the system's PAM configuration
pamtester otp-test "$USER" authenticate     # type a code from the phone	needs the service above and a code from the phone
echo 'auth required pam_otp.so nullok' | sudo tee -a /etc/pam.d/sudo	needs root; changes the system's sudo
mkdir svc && echo "auth required $PWD/build/lib/pam_otp.so secret=$PWD/state" >svc/otptest	run from the source tree; tests/pam.bats runs pam_otp.so this way
echo 123456 | LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 \	needs the service above and a code from the phone; tests/pam.bats
sudo apt-get build-dep ./                # debhelper and what the build and its tests need	needs root; installs packages (tests/deb/check-deb.sh builds the package)
dpkg-buildpackage -us -uc -b             # runs the test suite; DEB_BUILD_OPTIONS=nocheck skips it	the package build, run by CI (make check-deb)
sudo apt-get install ../otp-utils_*.deb	needs root; installs the package (make check-deb installs and purges it)
sudo pam-auth-update --enable otp-utils     # auth required pam_otp.so nullok	needs root; changes the system's PAM configuration
sudo pam-auth-update --disable otp-utils	needs root; changes the system's PAM configuration
(umask 077; echo 'db1.example.org:*:otp:otp_admin:the-password-of-otp_admin' >>~/.pgpass)	the fleet's set-up: tests/pg-readme.bats runs it against a cluster of its own
otp-store init postgresql://otp_admin@db1.example.org/otp    # tables, /etc/otp-utils/store.key	the fleet's set-up: tests/pg-readme.bats runs it against a cluster of its own
otp-keygen --store=postgresql://otp_admin@db1.example.org/otp --user=alice --totp	the fleet's set-up: tests/pg-readme.bats runs it against a cluster of its own
otp-store list postgresql://otp_admin@db1.example.org/otp    # users, kinds, last use; no secret	the fleet's set-up: tests/pg-readme.bats runs it against a cluster of its own
install -o freerad -g freerad -m 0600 /dev/null /etc/freeradius/.pgpass	needs root and the freerad account; changes /etc (tests/pg-readme.bats runs it in its own directory)
echo '*:*:otp:otp:the-password-of-otp' >>/etc/freeradius/.pgpass	needs root; changes /etc (tests/pg-readme.bats runs it in its own directory)
EOF
}

# examples: the README's code blocks as lines "B" (a block starts),
# "C<TAB>line" (a command), "D<TAB>line" (a command of a transcript, a
# block of "$ command" lines: what follows it up to the next "$ " is all
# it prints, nothing if nothing follows), "+<TAB>line" (its continuation
# after a trailing \ or |) and "O<TAB>line" (output the README shows for
# it).
examples() {
	awk '
	function code(x) {
		if (first) {
			dollar = x ~ /^\$ /
			first = 0
			print "B"
		}
		if (cont)
			print "+\t" x
		else if (dollar && x ~ /^\$ /)
			print "D\t" substr(x, 3)
		else if (dollar)
			print "O\t" x
		else if (x !~ /^[ \t]*(#|$)/)
			print "C\t" x
		else
			return
		cont = x ~ /(\\|\|)$/
	}
	/^```/ {
		if (fence) {
			fence = 0
		} else {
			fence = 1
			lang = substr($0, 4)
			shell = lang == "" || lang ~ /^(sh|console)$/
			first = 1; cont = 0
		}
		next
	}
	fence { if (shell) code($0); next }
	/^    / && (blank || incode) {
		if (!incode) { first = 1; cont = 0 }
		incode = 1
		code(substr($0, 5))
		next
	}
	{ incode = 0; blank = $0 ~ /^[ \t]*$/ }
	' "$README"
}

# sandbox DIR [provision]: a HOME and a working directory with the files
# the README's examples name.  A provisioning block starts from a user
# without a state file; the others find one holding scratch code 84885724.
sandbox() {
	local d=$1
	mkdir -p "$d/home/.config/otp" "$d/home/.otp" "$d/work"
	chmod 700 "$d/home"
	printf '%s\n' "$RFC_B32" > "$d/home/.config/otp/github.key"
	printf '%s\n' "$RFC_B32" > "$d/home/.otp/github.key"
	printf '%s\n' "$RFC_B32" > "$d/work/secret.txt"
	printf '%s\n' "$RFC_B32" > "$d/work/key.b32"
	printf '%s\n' "$RFC_B32" JBSWY3DPEHPK3PXP > "$d/work/keys.b32"
	printf '%s\n' "$URI" > "$d/work/accounts.txt"
	printf '%s\n' "$URI" > "$d/work/accounts"
	head -c 300000 /dev/urandom > "$d/work/backup.tar"
	if [ "${2:-}" != provision ]; then
		printf '%s\n" TOTP_AUTH\n84885724\n' "$RFC_B32" \
		    > "$d/home/.google_authenticator"
		chmod 400 "$d/home/.google_authenticator"
	fi
}

# Not in the last seconds of a TOTP step: examples that compute a code
# "now" twice (otp-gen and oathtool) must see the same step.
step_start() {
	while [ $(($(date +%s) % 30)) -ge 27 ]; do sleep 1; done
}

# A command that writes under a system directory: a redirection there, or
# a tool that changes files naming one.
SYSTEM_WRITE='(>|(^|[[:space:];|&(])(tee|install|cp|mv|rm|chmod|chown|chgrp|ln|mkdir|touch)[[:space:]][^|;&]*)[[:space:]]*/(etc|usr|var|lib|boot|root|opt)/'

# run_block N: run the commands of block N (CMDS, WANT) in a fresh sandbox,
# under the umask most users have (022); then no file the block wrote may
# be readable by others: examples write keys, PINs and lists, and a reader
# pastes them as they are.
run_block() {
	local n=$1 i have rc provision= f
	for i in "${!CMDS[@]}"; do
		[ "${BLOCK[i]}" = "$n" ] || continue
		# Provisioning examples write the state file themselves.
		[[ ${CMDS[i]} != otp-keygen*--state* ]] || provision=provision
	done
	sandbox "$T/b$n" ${provision:+"$provision"}
	find "$T/b$n" -type f | sort >"$T/b$n.before"
	step_start
	for i in "${!CMDS[@]}"; do
		[ "${BLOCK[i]}" = "$n" ] || continue
		# Never the system's files, as root least of all: a new
		# example that writes there belongs in not_run().
		if [[ ${CMDS[i]} =~ $SYSTEM_WRITE ]]; then
			printf 'not run, it writes the system'"'"'s files: %s\n' \
			    "${CMDS[i]}"
			fails=$((fails + 1))
			continue
		fi
		runs=$((runs + 1))
		# A transcript shows what the terminal shows: standard error
		# with standard output (the tools write their warnings first).
		: >"$T/err"
		have=$(umask 022 && cd "$T/b$n/work" && HOME=$T/b$n/home &&
		    KEY=$RFC_HEX code=$(otp-gen --totp -b @secret.txt) &&
		    USER=${USER:-$(id -un)} && export HOME KEY code USER &&
		    if [ -n "${SHOWN[i]}" ]; then
			bash -o pipefail -c "${CMDS[i]}" 2>&1
		    else
			bash -o pipefail -c "${CMDS[i]}" 2>"$T/err"
		    fi </dev/null) && rc=0 || rc=$?
		if [ "$rc" != 0 ]; then
			printf 'exit %s: %s\n' "$rc" "${CMDS[i]}"
			cat "$T/err"
			[ -z "${SHOWN[i]}" ] || printf '%s\n' "$have"
			fails=$((fails + 1))
		elif [ -n "${SHOWN[i]}" ]; then
			compared=$((compared + 1))
			[ "$have" = "${WANT[i]%$'\n'}" ] && continue
			printf 'output of: %s\n' "${CMDS[i]}"
			diff -u <(printf '%s' "${WANT[i]}") \
			    <(printf '%s\n' "$have") || true
			fails=$((fails + 1))
		fi
	done
	while IFS= read -r f; do
		printf 'block %s writes %s readable by others (mode %s)\n' \
		    "$n" "${f#"$T/b$n/"}" "$(stat -c %a "$f")"
		fails=$((fails + 1))
	done < <(find "$T/b$n" -type f -perm /044 | sort |
	    comm -23 - "$T/b$n.before")
}

# readme_examples: parse the README's examples into CMDS, WANT, BLOCK,
# SHOWN and n (the caller's locals), drop what not_run() lists (with
# NOT_RUN=1), then run every block: runs, compared and fails counted.
readme_examples() {
	local kind line entry reason first
	local -A why=() seen=()
	if [ -n "${NOT_RUN:-}" ]; then
		while IFS=$'\t' read -r entry reason; do
			why[$entry]=$reason
		done < <(not_run)
	fi
	while IFS= read -r line; do
		kind=${line%%$'\t'*}
		line=${line#*$'\t'}
		case $kind in
		B)	n=$((n + 1)) ;;
		C)	CMDS+=("$line") WANT+=("") BLOCK+=("$n") SHOWN+=("") ;;
		D)	CMDS+=("$line") WANT+=("") BLOCK+=("$n") SHOWN+=(1) ;;
		+)	CMDS[-1]+=$'\n'$line ;;
		O)	WANT[-1]+=$line$'\n' ;;
		esac
	done < <(examples)
	# Drop what cannot run here, and see that every reason is still used.
	for i in "${!CMDS[@]}"; do
		first=${CMDS[i]%%$'\n'*}
		[ -n "${why[$first]+x}" ] || continue
		seen[$first]=1
		unset "CMDS[i]"
	done
	for entry in "${!why[@]}"; do
		[ -n "${seen[$entry]+x}" ] && continue
		echo "not_run() lists what the README no longer has: $entry"
		fails=$((fails + 1))
	done
	for ((i = 1; i <= n; i++)); do
		mkdir "$T/b$i"
		run_block "$i"
	done
	echo "$n blocks, $runs commands run, $compared outputs compared"
}

@test "the README's examples run, print what the README shows and leave no file others can read" {
	local n=0 runs=0 compared=0 fails=0
	local -a CMDS=() WANT=() BLOCK=() SHOWN=()
	NOT_RUN=1 readme_examples
	# The README was read: a broken parser would pass everything.
	[ "$n" -ge 15 ] && [ "$runs" -ge 30 ] && [ "$compared" -ge 8 ]
	[ "$fails" -eq 0 ]
}

@test "a transcript's output is checked whole: nothing shown is nothing printed, warnings included" {
	local n=0 runs=0 compared=0 fails=0
	local -a CMDS=() WANT=() BLOCK=() SHOWN=()
	# Each of these transcripts misstates what its command prints.
	README=$T/README.md
	cat >"$README" <<-'EOF'
	A code, shown as nothing:

	    $ otp-gen 3132333435363738393031323334353637383930
	    $ echo done
	    done

	A warning left out:

	    $ otp-uri -A a JBSWY3DPEHPK3PXP
	    otpauth://totp/a?secret=JBSWY3DPEHPK3PXP

	Plain commands print what they like, but never write the system's
	files:

	    otp-gen 3132333435363738393031323334353637383930
	    echo x >>/etc/nothing-of-ours
	    install -m 0600 /dev/null /etc/nothing-of-ours
	EOF
	run readme_examples
	[ ! -e /etc/nothing-of-ours ]
	assert_output --partial "not run, it writes the system's files: echo x >>/etc/nothing-of-ours"
	assert_output --partial "not run, it writes the system's files: install -m 0600"
	assert_output --partial $'output of: otp-gen 3132333435363738393031323334353637383930\n'
	assert_output --partial '+755224'
	assert_output --partial '+otp-uri: warning: the secret is 80 bits'
	[[ $output != *"output of: echo done"* ]] || fail "$output"
	assert_output --partial "3 blocks, 4 commands run, 3 outputs compared"
	# Shown right, they pass.
	sed -i -e 's/^    \$ otp-gen 3132.*/&\n    755224/' \
	    -e 's|^    \$ otp-uri -A a .*|&\n    otp-uri: warning: the secret is 80 bits; RFC 4226 asks for at least 128|' \
	    "$README"
	sed -i '/nothing-of-ours/d' "$README"
	rm -rf "$T"/b[0-9]*
	readme_examples
	[ "$fails" -eq 0 ]
}

@test "the README's tool table names every tool, and its build needs every build package" {
	local tool table p deps
	table=$(awk '/^\| tool \| job \|/ { on = 1 } on && /^\|/ { print } on && !/^\|/ { exit }' "$README")
	for tool in "$ROOT"/cmd/*.c; do
		tool=${tool##*/}
		tool=${tool%.c}
		case $tool in cli | pam_* | *-live) continue ;; esac
		grep -qF "| \`$tool\` |" <<<"$table" || fail "the tool table lacks $tool"
	done
	grep -qF '| `pam_otp.so` |' <<<"$table"
	# Debian's packages the GNUmakefile's DEPS_BUILD installs, but the
	# compiler and the tools the sentence names in words.
	deps=$(make -s -C "$ROOT" --no-print-directory -pn 2>/dev/null |
	    sed -n 's/^DEPS_BUILD = //p' | head -n 1)
	[ -n "$deps" ]
	local sentence
	sentence=$(awk '/^The build needs a C11 compiler/ { on = 1 } on { print } on && /^$/ { exit }' "$README")
	for p in $deps; do
		case $p in gcc | make | pkg-config) continue ;; esac
		grep -qF "\`$p\`" <<<"$sentence" || fail "the build needs $p; the README does not say so"
	done
}

@test "the README's pskctool note: its reader warns on any encrypted file, RFC 6030's own too" {
	command -v pskctool >/dev/null || skip "pskctool is not installed"
	grep -q 'so it says "parse error" for every encrypted file' "$README"
	run -0 pskctool -q -e "$ROOT/tests/vectors/pskc/rfc6030-figure6.pskcxml"
	assert_output "warning: parse error (use -d to diagnose), output may be incomplete"
	run -0 pskctool -d -q -e "$ROOT/tests/vectors/pskc/rfc6030-figure6.pskcxml"
	assert_line "debug: unknown <Secret> element <EncryptedValue>"
}

@test "@~/FILE reads FILE in \$HOME, in every tool that takes a key" {
	mkdir -p "$T/home/.otp" "$T/work/~/.otp"
	printf '%s\n' "$RFC_B32" > "$T/home/.otp/k"
	# A directory named ~ in the working directory holds another key:
	# without the expansion the tools would read it.
	printf '%s\n' JBSWY3DPEHPK3PXP > "$T/work/~/.otp/k"
	cd "$T/work"
	export HOME=$T/home
	run -0 otp-gen -b @~/.otp/k
	assert_output 755224
	run -0 otp-verify -w 1 -b @~/.otp/k 287082
	assert_output 1
	run -0 otp-uri -A a @~/.otp/k
	assert_output "otpauth://totp/a?secret=$RFC_B32"
	# Only a leading ~/ is the home directory.
	run -0 otp-gen -b "@$T/work/~/.otp/k"
	assert_output "$(oathtool -b JBSWY3DPEHPK3PXP)"
	# HOME, not the working directory's ~, with no key there.
	HOME=$T/nowhere run -2 otp-gen -b @~/.otp/k
}

@test "make install puts pam_otp.so where libpam looks, whatever PREFIX is; PAMDIR overrides it" {
	[ -f "${OTP_LIBDIR:-}/pam_otp.so" ] || skip "pam_otp.so is not built"
	local build mk found dir
	build=$(dirname "$OTP_LIBDIR")
	# The tree is built: -o all installs it as it is.  The outer make's
	# jobserver is not ours.
	mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" -o all
	    BUILD="$build")
	run -0 "${mk[@]}" install PREFIX=/usr/local DESTDIR="$T/d"
	found=$(cd "$T/d" && find . -name pam_otp.so)
	[ "$(wc -l <<<"$found")" -eq 1 ]
	dir=${found#.}
	dir=${dir%/pam_otp.so}
	# libpam's own modules are there on this system.
	[ -f "$dir/pam_unix.so" ] || { echo "installed in $dir"; return 1; }
	[[ $dir != /usr/local/* ]]
	[ -x "$T/d/usr/local/bin/otp-gen" ]
	run -0 "${mk[@]}" uninstall PREFIX=/usr/local DESTDIR="$T/d"
	[ ! -e "$T/d$dir/pam_otp.so" ]
	run -0 "${mk[@]}" install PREFIX=/usr/local PAMDIR=/opt/pam \
	    DESTDIR="$T/o"
	[ -f "$T/o/opt/pam/pam_otp.so" ]
	[ "$(cd "$T/o" && find . -name pam_otp.so)" = ./opt/pam/pam_otp.so ]
}

@test "otp-verify and oathtool: exit codes swapped, TOTP offsets signed (README, otp-verify(1))" {
	local now='2009-02-13 23:31:30 UTC' old new
	old=$(otp-gen --totp -N "$now - 60 s" "$RFC_HEX")
	new=$(otp-gen --totp -N "$now + 60 s" "$RFC_HEX")
	# A code not in the window: oathtool 2, otp-verify 1.
	run oathtool --totp -N "$now" "$RFC_HEX" 000000
	assert_failure 2
	run otp-verify --totp -N "$now" "$RFC_HEX" 000000
	assert_failure 1
	# A malformed key: oathtool 1, otp-verify 2.
	run oathtool --totp -N "$now" 3132zz "$old"
	assert_failure 1
	run otp-verify --totp -N "$now" 3132zz "$old"
	assert_failure 2
	# A code two steps old and one two steps ahead: oathtool prints 2
	# for both, otp-verify -2 and +2.
	run -0 oathtool --totp -w 2 -N "$now" "$RFC_HEX" "$old"
	assert_output 2
	run -0 oathtool --totp -w 2 -N "$now" "$RFC_HEX" "$new"
	assert_output 2
	run -0 otp-verify --totp -w 2 -N "$now" "$RFC_HEX" "$old"
	assert_output -2
	run -0 otp-verify --totp -w 2 -N "$now" "$RFC_HEX" "$new"
	assert_output +2
	# HOTP: both print the counters after -c.
	run -0 oathtool -c 3 -w 5 "$RFC_HEX" 254676
	assert_output 2
	run -0 otp-verify -c 3 -w 5 "$RFC_HEX" 254676
	assert_output 2
	# Both places say so.
	grep -q 'oathtool exits 2 when the code is' "$README"
	grep -q 'oathtool exits 2' "$ROOT/man/otp-verify.1"
}

@test "the README's sudo example: a test service first, a root shell open, nullok" {
	local numbered b
	numbered=$(examples | awk -F '\t' '/^B/ { b++ } $1 == "C" { print b "\t" $2 }')
	b=$(awk -F '\t' '$2 ~ /tee -a \/etc\/pam.d\/sudo/ { print $1 }' <<<"$numbered")
	[ -n "$b" ]
	# Its block provisions, tries a service of its own, and only then
	# changes sudo, with nullok.
	# shellcheck disable=SC2016
	run -0 awk -F '\t' -v b="$b" '$1 == b { print $2 }' <<<"$numbered"
	[[ ${lines[0]} == otp-keygen*--state* ]]
	[[ ${lines[1]} == *"pam_otp.so nullok' | sudo tee /etc/pam.d/otp-test" ]]
	[[ ${lines[2]} == "pamtester otp-test "* ]]
	[[ ${lines[3]} == *"pam_otp.so nullok' | sudo tee -a /etc/pam.d/sudo" ]]
	grep -q 'keep a root shell open' "$README"
}

@test "the README's FreeRADIUS configuration is examples/freeradius, which freeradius -C accepts as shipped" {
	local x=$ROOT/examples/freeradius f table
	# The files the README's table names are there.
	table=$(awk '/^\*\*A whole configuration, both ways/ { on = 1 }
	    on && /^\| `/ { print }
	    /^\*\*In the server.s threads/ { on = 0 }' "$README")
	[ "$(wc -l <<<"$table")" -ge 6 ]
	while read -r f; do
		[ -f "$x/$f" ] || fail "the README names $f, not in $x"
	done < <(sed 's/^| `\([^`]*\)`.*/\1/' <<<"$table")
	# No fragment of radiusd.conf is left in the README to copy: the
	# last one was not FreeRADIUS syntax (one-line blocks with ;).
	! grep -nE '^[[:space:]]*(listen|authorize|authenticate|modules) *\{' \
	    "$README" || fail "a radiusd.conf fragment in the README"
	grep -qxF 'examples/freeradius' "$ROOT/debian/otp-utils.examples"
	command -v freeradius >/dev/null || skip "freeradius is not installed"
	getent passwd freerad >/dev/null || skip "no freerad account"
	[ -f /usr/lib/freeradius/rlm_python3.so ] ||
	    skip "freeradius-python3 is not installed (mods-enabled/otp_python needs it; make deps)"
	# The server reads the tree as root, then becomes freerad (the
	# example's security section) and logs to /var/log/freeradius: a
	# plain user checks a copy that names this account and logs to
	# stdout, all else as shipped, then says that the rest needs root.
	local args=(-C -d "$x") uid
	uid=$(id -u)
	if [ "$uid" != 0 ]; then
		cp -r "$x" "$T/mine"
		sed -i -E -e "s/^([[:space:]]*user = )freerad\$/\\1$(id -un)/" \
		    -e "s/^([[:space:]]*group = )freerad\$/\\1$(id -gn)/" \
		    "$T/mine/radiusd.conf"
		[ "$(grep -cE "^[[:space:]]*(user = $(id -un)|group = $(id -gn))\$" \
		    "$T/mine/radiusd.conf")" = 2 ] || fail "no security section to change"
		x=$T/mine
		args=(-C -l stdout -d "$x")
	elif ! runuser -u freerad -- test -r "$x/mods-config/python3/otp_radius.py"; then
		# otp_python imports its file once the server is freerad: a
		# checkout closed to it (under a 0700 home) is checked from a
		# copy it can read, every byte as shipped.
		PUB=$(mktemp -d /tmp/otp-readme.XXXXXX)
		cp -r "$x" "$PUB/freeradius"
		chmod -R a+rX "$PUB"
		x=$PUB/freeradius
		args=(-C -d "$x")
	fi
	# otp_python imports mods-config/python3/otp_radius.py: no
	# __pycache__ left in the checkout.
	export PYTHONDONTWRITEBYTECODE=1
	run freeradius "${args[@]}"
	assert_success
	[ ! -e "$x/mods-config/python3/__pycache__" ]
	# And -C can fail: a broken copy is refused.
	cp -r "$x" "$T/broken"
	echo 'server broken {' >>"$T/broken/sites-enabled/otp"
	args[-1]=$T/broken
	run freeradius "${args[@]}"
	assert_failure
	[ "$uid" = 0 ] ||
	    skip "needs root: freeradius -C of the tree as shipped (user = freerad, its log under /var/log/freeradius); checked with this account"
}

@test "the examples agree: every file is named and used, every PAM service the module runs is a file there" {
	local x=$ROOT/examples/freeradius f table names svc used declared n
	table=$(awk '/^\*\*A whole configuration, both ways/ { on = 1 }
	    on && /^\| `/ { print }
	    /^\*\*In the server.s threads/ { on = 0 }' "$README")
	while read -r f; do
		f=${f#./}
		grep -qF "| \`$f\` |" <<<"$table" || fail "the README's table lacks $f"
		grep -qE "^#[[:space:]]+$f[[:space:]]" "$x/radiusd.conf" ||
		    fail "radiusd.conf's list lacks $f"
	done < <(cd "$x" && find . -type f | sort)
	# The services the module runs; each pam.d file is one of them, as
	# its first line says where it goes.
	names=$(sed -n 's/^[[:space:]]*pam_auth = \([^[:space:]]*\)$/\1/p' \
	    "$x"/mods-enabled/* | sort -u)
	[ -n "$names" ]
	for f in "$x"/pam.d/*; do
		svc=$(head -n 1 "$f" | sed -n 's|^# /etc/pam.d/\([a-z-]*\).*|\1|p')
		grep -qxF "$svc" <<<"$names" ||
		    fail "${f#"$x"/} is for /etc/pam.d/$svc, which no module runs ($names)"
		grep -qE "^auth[[:space:]]+required[[:space:]]+pam_otp\.so " "$f"
	done
	for svc in $names; do
		[ -f "$x/pam.d/$svc" ] || fail "no pam.d/$svc for pam_auth = $svc"
	done
	# Every module instance is in the server, and the server's are there.
	declared=$(sed -n 's/^\(pam\|exec\|python3\) \([a-z_0-9]*\) {$/\2/p' \
	    "$x"/mods-enabled/* | sort)
	used=$(sed -n '/authenticate {/,$p' "$x/sites-enabled/otp" |
	    sed -n 's/^[[:space:]]*\([a-z_0-9]*\)$/\1/p' | sort -u)
	n=$(wc -l <<<"$declared")
	[ "$n" -ge 5 ]
	[ "$declared" = "$used" ] ||
	    fail "modules declared: $declared; used by sites-enabled/otp: $used"
	# The README's fleet installs radius-otp-pg under the name otp_pam runs.
	awk '/^### A fleet/ { on = 1; next } /^### / { on = 0 } on' "$README" |
	    tr -s ' \n' '  ' |
	    grep -qF 'pam.d/radius-otp-pg` installed as `/etc/pam.d/radius-otp`'
}

@test "pam_otp(8) and otp-verify(1) point at examples/freeradius and copy no radiusd.conf of their own" {
	local m
	for m in pam_otp.8 otp-verify.1; do
		grep -q 'examples/freeradius' "$ROOT/man/$m" ||
		    fail "$m does not name examples/freeradius"
		# A fragment without the client and security sections
		# started a server that ignored requests or refused files.
		! grep -nE '^[[:space:]]*(listen|authorize|authenticate|modules|server [a-z]+) *\{' \
		    "$ROOT/man/$m" || fail "a radiusd.conf fragment in $m"
	done
	# What the page says the example holds, it holds.
	grep -q '^client ' "$ROOT/examples/freeradius/clients.conf"
	grep -qE '^[[:space:]]*user = freerad' \
	    "$ROOT/examples/freeradius/radiusd.conf"
	grep -q 'pam_auth = radius-otp' \
	    "$ROOT/examples/freeradius/mods-enabled/otp_pam"
}

# The man pages' example lines (.Dl, and .Bd -literal blocks, a line
# continued with \e joined to the next) that redirect output into a file.
man_redirects() {
	awk '
	/^\.Bd -literal/ { lit = 1; next }
	/^\.Ed/ { lit = 0; next }
	/^\.Dl / { line = substr($0, 5) }
	lit { line = acc $0 }
	!lit && !/^\.Dl / { acc = ""; next }
	/\\e$/ { acc = substr(line, 1, length(line) - 2) " "; next }
	{
		acc = ""
		s = line
		gsub(/[0-9&]>+ *[^ ]*|>+ *\/dev\/null/, "", s)
		if (s ~ />/)
			print FILENAME ": " line
	}' "$@"
}

@test "the man pages' examples write no file others can read" {
	local line bad=0
	# Lines that write no secret: the reason after the tab.
	local -A ok=(
	    ["b32.1: \$ printf 'MZXW6YTB\\enGEZDGNBV\\en' > keys.b32"]="the example's own keys, printed on the page"
	    ["b32.1: \$ printf fo | b32 > a.b32; printf o | b32 > b.b32"]="'fo' and 'o', no key"
	    ["pam_otp.8: echo 'auth required pam_otp.so' >svc/otptest"]="a PAM service file"
	)
	while IFS= read -r line; do
		line=${line#"$ROOT/man/"}
		[[ -n ${ok[$line]+x} ]] && continue
		# Secrets go to -o FILE (mode 0600) or under umask 077.
		[[ $line == *"(umask 077;"* ]] && continue
		echo "writes a file under the reader's umask: $line"
		bad=$((bad + 1))
	done < <(man_redirects "$ROOT"/man/*.[158])
	[ "$bad" -eq 0 ]
	# The scan finds what it is for.
	run man_redirects <(printf '.Dl otp-keygen >k\n.Bd -literal\na \\e\n>b\n.Ed\n')
	[ "${#lines[@]}" -eq 2 ]
}

@test "make demo shows a login too: pam_otp.so through pamtester and pam_wrapper, a code accepted once" {
	command -v pamtester >/dev/null || skip "pamtester is not installed"
	# The demo loads the module into pamtester as a user would: an ASan
	# build of it cannot load there (tests/pam*.bats preload ASan).
	[[ -z ${OTP_SANITIZE:-} ]] || skip "pamtester does not load ASan"
	run --separate-stderr env OTP_BIN="$OTP_BIN" OTP_LIBDIR="$OTP_LIBDIR" \
	    sh "$BATS_TEST_DIRNAME/demo.sh"
	assert_success
	[[ $output == *"$ otp-gen "* ]] || fail "the client side is gone"
	[[ $output == *'pamtester otp-demo'* ]] || fail "no login shown: $output"
	# The first login gets in, the same code again does not.
	[[ $(grep -c 'pamtester: successfully authenticated' <<<"$output") == 1 ]]
	[[ $(grep -c 'pamtester: Authentication failure' <<<"$output") == 1 ]]
	assert_output --partial 'code already used'
	[[ $output != *"no default config"* ]]
	# A transcript: the module's log line as syslog has it, on its own,
	# not pam_wrapper's debug line after the prompt.
	refute_output --partial 'PWRAP_'
	assert_line --regexp \
	    '^\(syslog\) pam_otp\(otp-demo:auth\): .*: code already used'
	assert_line 'Verification code:'
}
