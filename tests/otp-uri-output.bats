#!/usr/bin/env bats
# otp-uri -o/--output and -f/--force (otp-uri(1)): a conversion's output
# as a new file of mode 0600 whatever the umask, written whole or not at
# all, never over an existing file without -f nor ever over a directory,
# device or FIFO; and the warning when secrets go to a standard output
# that is a file others may read.

bats_require_minimum_version 1.5.0
load common

setup() {
	T=$BATS_TEST_TMPDIR
	PSK=12345678901234567890123456789012
	U1="otpauth://totp/alice?secret=$RFC_B32"
	U2="otpauth://hotp/bob?secret=JBSWY3DPEHPK3PXP&digits=8&counter=3"
	printf '%s\n' "$U1" "$U2" > "$T/uris"
	umask 022
}

@test "-o writes every --to format as a new file of mode 0600 under umask 022, the same as standard output" {
	for f in uri migration pskc oath; do
		run -0 --separate-stderr otp-uri --to=$f -o "$T/out.$f" < "$T/uris"
		assert_output ""
		assert_equal "$stderr" ""
		[ "$(stat -c %a "$T/out.$f")" = 600 ] ||
		    fail "$f: mode $(stat -c %a "$T/out.$f")"
	done
	otp-uri --to=uri < "$T/uris" | cmp - "$T/out.uri"
	otp-uri --to=oath < "$T/uris" | cmp - "$T/out.oath"
	# Random batch ids, serials and IVs: compared as what they hold.
	run -0 otp-uri --from=migration "$(cat "$T/out.migration")"
	assert_output "$(cat "$T/uris")"
	run -0 otp-uri --from=pskc "$T/out.pskc"
	assert_output "$(cat "$T/uris")"
	# Encrypted, from another format, and --qr drawings.
	run -0 otp-uri --to=pskc --pskc-key=$PSK -o "$T/enc.pskc" < "$T/uris"
	[ "$(stat -c %a "$T/enc.pskc")" = 600 ]
	run -0 otp-uri --from=pskc --pskc-key=$PSK "$T/enc.pskc"
	assert_output "$(cat "$T/uris")"
	run -0 otp-uri --from=oath --to=uri -o "$T/back" "$T/out.oath"
	cmp "$T/back" "$T/uris"
	run -0 otp-uri --to=uri --qr=ascii -o "$T/qr" "$U1"
	[ "$(otp-uri --to=uri --qr=ascii "$U1")" = "$(cat "$T/qr")" ]
	# - is standard output.
	run -0 otp-uri --to=oath -o - "$U1"
	assert_output "$(otp-uri --to=oath "$U1")"
}

@test "-o refuses an existing file without -f, before any input is read or a password asked; -f replaces it (a symlink itself), never a directory, device or FIFO" {
	echo old > "$T/f"
	chmod 644 "$T/f"
	printf 'qwerty\n' > "$T/pw"
	run -2 --separate-stderr otp-uri --to=pskc -o "$T/f" < "$T/uris"
	assert_output ""
	assert_equal "$stderr" "otp-uri: --output: $T/f: file exists (use -f to replace it)"
	[ "$(cat "$T/f")" = old ]
	# Looked at first: the password on stdin is not even read.
	run -2 --separate-stderr bash -c 'otp-uri --to=pskc --pskc-password=- -o "$1" "$2"; rc=$?; cat; exit $rc' \
	    _ "$T/f" "$U1" < "$T/pw"
	assert_output qwerty
	[[ $stderr == *"file exists (use -f to replace it)" ]]
	run -0 otp-uri --to=oath -f -o "$T/f" "$U1"
	assert_equal "$(cat "$T/f")" "$(otp-uri --to=oath "$U1")"
	[ "$(stat -c %a "$T/f")" = 600 ]
	run -0 otp-uri --to=uri --force --output="$T/f" "$U2"
	assert_equal "$(cat "$T/f")" "$U2"
	# A symlink is replaced itself; what it points to is left alone.
	echo target > "$T/target"
	ln -s "$T/target" "$T/link"
	run -2 otp-uri --to=uri -o "$T/link" "$U1"
	run -0 otp-uri --to=uri -f -o "$T/link" "$U1"
	[ ! -L "$T/link" ]
	[ "$(cat "$T/link")" = "$U1" ]
	[ "$(cat "$T/target")" = target ]
	mkdir "$T/dir"
	mkfifo "$T/fifo"
	for x in "$T/dir" "$T/fifo" /dev/null; do
		run -2 --separate-stderr timeout 10 otp-uri --to=uri -f -o "$x" "$U1"
		assert_output ""
		assert_equal "$stderr" "otp-uri: --output: $x: not a regular file, and never replaced"
	done
	[ -d "$T/dir" ] && [ -p "$T/fifo" ] && [ -c /dev/null ]
	run -2 --separate-stderr otp-uri --to=uri -o "$T/nodir/f" "$U1"
	[[ $stderr == "otp-uri: --output: $T/nodir/f: No such file or directory" ]]
}

@test "-o writes all or nothing: an error writes no file, a skipped key does not stop it" {
	run -2 --separate-stderr otp-uri --to=uri -o "$T/f" "$U1" "otpauth://totp/x?secret=1"
	assert_output ""
	[ ! -e "$T/f" ]
	assert_equal "${stderr_lines[-1]}" "otp-uri: --output: $T/f: no export written"
	run -2 --separate-stderr otp-uri --to=oath -o "$T/f" "$U1" \
	    "otpauth://totp/x?secret=$RFC_B32&algorithm=SHA256"
	[ ! -e "$T/f" ]
	# An OCRA key is skipped (exit 1); the rest is written.
	f=$VECTORS/pskc/encrypted-integers.pskcxml
	run -1 --separate-stderr otp-uri -q --from=pskc --pskc-key=000102030405060708090a0b0c0d0e0f -o "$T/f" "$f"
	assert_output ""
	[ "$(wc -l < "$T/f")" = 2 ]
	[ "$(stat -c %a "$T/f")" = 600 ]
	# No temporary file is left beside it.
	[ "$(find "$T" -maxdepth 1 -name '.*' | wc -l)" = 0 ]
}

@test "secrets to a standard output that others may read: a warning; not for a private file, a pipe, an encrypted PSKC file, or with -q" {
	W="otp-uri: warning: standard output is a file that other users may read (mode 0644) and the output holds secrets; -o FILE writes a file of mode 0600"
	for f in uri migration pskc oath; do
		rm -f "$T/o"
		run -0 --separate-stderr bash -c 'otp-uri --to=$1 < "$2" > "$3"' _ $f "$T/uris" "$T/o"
		assert_equal "$stderr" "$W"
		[ -s "$T/o" ]
	done
	chmod 640 "$T/o"
	run -0 --separate-stderr bash -c 'otp-uri --to=oath < "$1" > "$2"' _ "$T/uris" "$T/o"
	assert_equal "$stderr" "${W/0644/0640}"
	chmod 600 "$T/o"
	run -0 --separate-stderr bash -c 'otp-uri --to=oath < "$1" > "$2"' _ "$T/uris" "$T/o"
	assert_equal "$stderr" ""
	rm "$T/o"
	run -0 --separate-stderr bash -c 'umask 077; otp-uri --from=uri < "$1" > "$2"' _ "$T/uris" "$T/o"
	assert_equal "$stderr" ""
	run -0 --separate-stderr bash -c 'otp-uri --to=pskc --pskc-key=$1 < "$2" > "$3"' _ $PSK "$T/uris" "$T/e"
	assert_equal "$stderr" ""
	run -0 --separate-stderr bash -c 'otp-uri -q --to=oath < "$1" > "$2"' _ "$T/uris" "$T/q"
	assert_equal "$stderr" ""
	run -0 --separate-stderr bash -c 'otp-uri --to=oath < "$1" | cat > "$2"' _ "$T/uris" "$T/p"
	assert_equal "$stderr" ""
}

@test "usage errors of -o and -f" {
	for args in "-f --to=uri $U1" "--force --from=oath $T/uris" \
	    "-o $T/x $RFC_B32" "-o $T/x --parse $U1" "-o $T/x --check $U1" \
	    "-o" "--output"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr otp-uri $args < /dev/null
		assert_output ""
		[[ ${stderr_lines[-1]} == "Try 'otp-uri --help' for more information." ]] ||
		    fail "$args: $stderr"
	done
	[ ! -e "$T/x" ]
}
