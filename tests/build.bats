#!/usr/bin/env bats
# build.bats - the GNUmakefile as a new user meets it: the build prints
# one short line per file, V=1 the command lines.

bats_require_minimum_version 1.5.0

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
