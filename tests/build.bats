#!/usr/bin/env bats
# build.bats - the GNUmakefile as a new user meets it: the first run on a
# machine without the build's libraries builds everything (issue 36), and
# the build prints one short line per file, V=1 the command lines.
#
# The first run is proved in a mount namespace of the test's own, where
# the four packages the build probes for are not installed: every file
# of theirs is hidden by a whiteout in an overlay over /usr, dpkg-query
# reports them missing, and apt-get's "install" removes the overlay, so
# that their files appear as an installation makes them.  Nothing of the
# machine is installed, removed or changed.  As root (CI) the namespace
# must work; a plain user needs user namespaces, else the test skips.

bats_require_minimum_version 1.5.0

# The packages whose headers and pkg-config files the GNUmakefile reads
# to decide what it builds: pam_otp.so, store-pg.so, the QR and XML flags.
FIRST_RUN_PKGS="libpam0g-dev libpq-dev libqrencode-dev libxml2-dev"

setup() {
	load common
	ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	T=$BATS_TEST_TMPDIR
}

# mk ARGS...: make as a user types it: nothing of the make or the suite
# that runs this test (MAKEFLAGS, BUILD, the built tools) reaches it.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u V -u OTP_BIN \
	    -u OTP_LIBDIR make --no-print-directory "$@"
}

@test "the build prints one short line per file; V=1 the command lines, make -s nothing" {
	obj=$T/b/lib/hex.o
	run -0 mk -C "$ROOT" BUILD="$T/b" "$obj"
	assert_output "  CC     $obj"
	run -0 mk -C "$ROOT" BUILD="$T/b" V=1 -B "$obj"
	assert_output --regexp "^[^ ]+ -std=c11 .* -c lib/hex.c -o $obj\$"
	run -0 mk -s -C "$ROOT" BUILD="$T/b" -B "$obj"
	assert_output ''
}

@test "every target that depends on deps installs before make reads the tree (DEPS_GOALS)" {
	# make's database: the rules as read, and DEPS_GOALS.
	db=$(mk -pn -C "$ROOT" BUILD="$T/b" -f GNUmakefile -f - nothing \
	    <<<'nothing: ; @:')
	goals=$(sed -n 's/^DEPS_GOALS = //p' <<<"$db")
	[ -n "$goals" ]
	needs=$(awk '/^[a-z][a-z0-9-]*:( |$)/ {
		for (i = 2; i <= NF; i++)
			if ($i == "deps") { sub(/:$/, "", $1); print $1 }
	}' <<<"$db" | sort -u)
	[[ $needs == *demo* && $needs == *check* ]]
	for t in $needs; do
		[[ " $goals " == *" $t "* ]] ||
		    fail "make $t runs deps but is not in DEPS_GOALS"
	done
}

# first_run_setup: $T/src, a copy of the tree as a clone has it (no
# build/); $T/hide, the files of FIRST_RUN_PKGS relative to /usr; the
# fakes in $T/fake.  Skips where the proof cannot run, saying why.
first_run_setup() {
	[[ -z ${OTP_SANITIZE:-} ]] ||
	    skip "the demo's pamtester cannot load an ASan build; make check runs this"
	[[ ${DEPS_SKIP:-0} != 1 ]] ||
	    skip "DEPS_SKIP=1: the packages come from elsewhere (a package build)"
	local c p f d
	for c in unshare mount umount mknod pamtester; do
		command -v "$c" >/dev/null || skip "$c is not installed"
	done
	# Every package of make deps, the four to hide among them: the only
	# ones the run below installs.
	for p in $(mk -s -C "$ROOT" -f GNUmakefile -f - print-deps \
	    <<<'print-deps: ; @echo $(DEPS)'); do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		    grep -q 'install ok installed' ||
		    skip "$p is not installed (make deps)"
	done
	if [[ $(id -u) != 0 ]]; then
		unshare -rm true 2>/dev/null ||
		    skip "no user namespaces for a plain user here (root runs this)"
	fi
	mkdir "$T/src" "$T/fake" "$T/state"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$ROOT" ls-files -z -co --exclude-standard |
		    tar -C "$ROOT" --null --no-recursion -T - -cf - |
		    tar -xf - -C "$T/src"
	else
		tar -C "$ROOT" --exclude=./build --exclude=./.git -cf - . |
		    tar -xf - -C "$T/src"
	fi
	# shellcheck disable=SC2086  # the package names
	dpkg-query -L $FIRST_RUN_PKGS | while IFS= read -r f; do
		[[ $f == /* && ! -d $f && (-e $f || -L $f) ]] || continue
		# Merged /usr: /lib/x is /usr/lib/x.
		d=$(cd "${f%/*}" && pwd -P)
		if [[ $d/ == /usr/* ]]; then
			printf '%s\n' "${d#/usr/}/${f##*/}"
		fi
	done >"$T/hide"
	# What the GNUmakefile probes is among them.
	grep -qx include/security/pam_modules.h "$T/hide"
	grep -qx include/postgresql/libpq-fe.h "$T/hide"
	cat >"$T/fake/dpkg-query" <<EOF
#!/bin/sh
# The packages are missing until apt-get installs them.
if [ ! -e "$T/state/installed" ]; then
	for a; do
		case " $FIRST_RUN_PKGS " in
		*" \$a "*)
			echo "dpkg-query: no packages found matching \$a" >&2
			exit 1 ;;
		esac
	done
fi
exec /usr/bin/dpkg-query "\$@"
EOF
	cat >"$T/fake/apt-get" <<EOF
#!/bin/sh
# update does nothing; install makes the hidden files appear.
echo "\$*" >>"$T/state/apt-get.log"
[ "\$1" = update ] && exit 0
umount -l /usr && : >"$T/state/installed"
EOF
	chmod 0755 "$T/fake/dpkg-query" "$T/fake/apt-get"
	# The namespace's own program: the overlay, then the command; 77
	# when the kernel allows no overlay here.
	cat >"$T/ns.sh" <<EOF
set -eu
umask 022
hide() {
	mount -t tmpfs first-run "$T/ov" &&
	    mkdir "$T/ov/up" "$T/ov/work" || return
	while IFS= read -r f; do
		mkdir -p "$T/ov/up/\${f%/*}" &&
		    mknod "$T/ov/up/\$f" c 0 0 || return
	done <"$T/hide"
	mount -t overlay first-run \\
	    -o "lowerdir=/usr,upperdir=$T/ov/up,workdir=$T/ov/work" /usr
}
hide || exit 77
[ ! -e /usr/include/security/pam_modules.h ]
cd "$T/src"
PATH="$T/fake:\$PATH" exec "\$@"
EOF
	mkdir "$T/ov"
}

# first_run CMD...: CMD in $T/src, in a mount namespace of its own where
# FIRST_RUN_PKGS are not installed; its output in $output.  A plain user
# whose kernel allows no overlay there skips; root fails.
first_run() {
	local ns=(unshare -m --propagation private)
	[[ $(id -u) == 0 ]] || ns=(unshare -rm --propagation private)
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD -u V -u OTP_BIN \
	    -u OTP_LIBDIR "${ns[@]}" bash "$T/ns.sh" "$@"
	[[ $status != 77 || $(id -u) == 0 ]] ||
	    skip "no overlay over /usr in a user namespace here (root runs this)"
	assert_success
	installed
}

# installed: apt-get was asked for the four packages, and only them.
installed() {
	local log=$T/state/apt-get.log pkgs
	[ "$(head -n 1 "$log")" = "update -qq" ] || fail "$(cat "$log")"
	pkgs=$(sed -n 's/^install .* --no-install-recommends //p' "$log")
	[ "$(tr ' ' '\n' <<<"$pkgs" | sort | xargs)" = "$FIRST_RUN_PKGS" ] ||
	    fail "apt-get: $(cat "$log")"
}

@test "make demo, the first run on a machine without the build's libraries: installs them, builds and shows everything" {
	first_run_setup
	first_run make -j2 demo
	assert_line --partial "deps: installing"
	[ -f "$T/src/build/lib/pam_otp.so" ]
	[ -f "$T/src/build/lib/otp-utils/store-pg.so" ]
	refute_output --partial "no login shown"
	[[ $(grep -c 'pamtester: successfully authenticated' <<<"$output") == 1 ]]
	# The build before it, one short line a file.
	assert_line --regexp '^  CC +build/lib/[a-z0-9_]+\.o$'
	assert_line --regexp '^  LD +build/lib/pam_otp\.so$'
	refute_output --partial -- "-std=c11"
}

@test "make deps all in one command line, on a machine without the build's libraries: all is everything" {
	first_run_setup
	# What make builds, not what compiling costs: a compiler that makes
	# empty outputs (the demo above builds for real).
	local real_cc
	real_cc=$(command -v cc)
	# The preprocessor runs for real: a header is made from its output.
	printf '#!/bin/sh\nfor a; do [ "$a" != -E ] || exec %s "$@"; done\n' \
	    "$real_cc" >"$T/fake/cc"
	cat >>"$T/fake/cc" <<'EOF'
while [ $# -gt 0 ]; do
	[ "$1" != -o ] || { out=$2; shift; }
	shift
done
: >"$out"
EOF
	chmod 0755 "$T/fake/cc"
	first_run make -j2 deps all CC="$T/fake/cc" BUILD="$T/b"
	[ -f "$T/b/lib/pam_otp.so" ]
	[ -f "$T/b/lib/otp-utils/store-pg.so" ]
	[ -f "$T/b/bin/otp-uri" ]
}
