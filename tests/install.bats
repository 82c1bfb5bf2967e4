#!/usr/bin/env bats
# install.bats - `make install` puts the examples and the schema where the
# README says, and never writes over a file a Debian package owns,
# unless forced.  Nothing of the system's is touched: dpkg (and,
# where the target is the system's own PAM directory, install(1)) are
# fakes on PATH, and every other directory is under $BATS_TEST_TMPDIR.

bats_require_minimum_version 1.5.0

setup() {
	load common
	ROOT=$BATS_TEST_DIRNAME/..
	BUILDDIR=$(dirname "$OTP_BIN")
	[[ -f $BUILDDIR/lib/pam_otp.so ]] || skip "no pam_otp.so built"
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/fake" "$T/pam" "$T/pfx"
	# dpkg -S as on a merged-/usr Debian: the package's file is known by
	# the name the package ships (/lib/... for the PAM directory), and
	# any other pam_otp.so by the name asked.
	cat >"$T/fake/dpkg" <<'EOS'
#!/bin/sh
[ "$1" = -S ] || exit 2
shift
rc=1
for p; do
	case $p in
	/usr/lib/*/security/pam_otp.so) ;;
	*/pam_otp.so) echo "libpam-otp-utils: $p"; rc=0 ;;
	esac
done
exit $rc
EOS
	chmod 0755 "$T/fake/dpkg"
}

# inst ARGS...: make install with the fakes first on PATH.
inst() {
	PATH="$T/fake:$PATH" make -s -C "$ROOT" --no-print-directory \
	    BUILD="$BUILDDIR" PREFIX="$T/pfx" install "$@"
}

@test "make install: refused over a pam_otp.so a Debian package owns, naming it; FORCE=1 installs" {
	run -2 inst PAMDIR="$T/pam"
	assert_output --partial "a Debian package owns"
	assert_output --partial "$T/pam/pam_otp.so (package libpam-otp-utils)"
	assert_output --partial "FORCE=1"
	[[ ! -e $T/pam/pam_otp.so ]]
	[[ ! -e $T/pfx/bin ]]	# refused before anything is written
	run -0 inst PAMDIR="$T/pam" FORCE=1
	[[ -f $T/pam/pam_otp.so && -x $T/pfx/bin/otp-gen ]]
}

@test "make install: merged /usr: the system PAM directory's module is found by its /lib name" {
	# install(1) is a fake too: nothing reaches the system's directory.
	printf '#!/bin/sh\necho "install $*" >>"%s/installed"\n' "$T" \
	    >"$T/fake/install"
	chmod 0755 "$T/fake/install"
	run -2 inst PAMDIR=/usr/lib/x86_64-linux-gnu/security
	assert_output --partial \
	    "/lib/x86_64-linux-gnu/security/pam_otp.so (package libpam-otp-utils)"
	[[ ! -e $T/installed ]]
}

@test "make install: a staged install (DESTDIR) is not checked; nobody's file is there" {
	run -0 inst PAMDIR="$T/pam" DESTDIR="$T/stage"
	[[ -f $T/stage$T/pam/pam_otp.so ]]
}

@test "make install: the examples and the schema where the README says, byte for byte; uninstall takes them away" {
	local ex=share/doc/otp-utils/examples p
	run -0 inst PAMDIR="$T/pam" DESTDIR="$T/stage"
	diff -r "$ROOT/examples" "$T/stage$T/pfx/$ex"
	cmp "$ROOT/lib/sys/pg/schema.sql" "$T/stage$T/pfx/share/otp-utils/schema.sql"
	run -0 find "$T/stage$T/pfx/$ex" "$T/stage$T/pfx/share/otp-utils" \
	    -type f ! -perm 644
	assert_output ""
	run -0 make -s -C "$ROOT" --no-print-directory BUILD="$BUILDDIR" \
	    PREFIX="$T/pfx" PAMDIR="$T/pam" DESTDIR="$T/stage" uninstall
	run -0 find "$T/stage" -path '*otp-utils*'
	assert_output ""
	# EXAMPLESDIR puts them elsewhere.
	run -0 inst PAMDIR="$T/pam" DESTDIR="$T/o" EXAMPLESDIR=/opt/ex
	[[ -f $T/o/opt/ex/freeradius/radiusd.conf && ! -e $T/o$T/pfx/$ex ]]
	# With PREFIX=/usr, the paths the README names for the package: the
	# same for both.
	run -0 inst PAMDIR="$T/pam" DESTDIR="$T/u" PREFIX=/usr
	for p in $(grep -oE '/usr/share/(doc/otp-utils/examples/freeradius|otp-utils/schema\.sql)' \
	    "$ROOT/README.md" | sort -u); do
		[[ -e $T/u$p ]] || fail "the README names $p; make install PREFIX=/usr has not it"
	done
	[[ -n $p ]]
	grep -q '/usr/local/share/otp-utils/schema.sql` after `make install`' \
	    "$ROOT/README.md"
	grep -qx 'examples/freeradius' "$ROOT/debian/otp-utils.examples"
	grep -qx 'examples/openvpn' "$ROOT/debian/otp-utils.examples"
	grep -qx 'usr/share/otp-utils/schema.sql' "$ROOT/debian/otp-utils-pg.install"
}
