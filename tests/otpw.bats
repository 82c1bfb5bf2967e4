#!/usr/bin/env bats
# otpw.bats - OTPW lists from the command line: otp-keygen --otpw (the
# printed list in otpw-gen's layout, the file, its refusals) and
# otp-verify --otpw (challenges, responses, marking entries used), with
# lists and files made by Debian's otpw-gen (package otpw-bin) too.

bats_require_minimum_version 1.5.0

setup() {
	load common
	command -v otpw-gen >/dev/null || fail "otpw-gen missing (otpw-bin)"
	T=$BATS_TEST_TMPDIR
	printf 'pre fix\n' >"$T/prefix"
}

# pw_of LIST NNN: the password printed for number NNN, as printed.
pw_of() {
	tr -d '\r' <"$1" | grep -oE "(^|  )$2 [^ ]+ [^ ]+" | sed 's/^ *//' |
	    cut -d' ' -f2-
}

# mask: a list with its header's time and host blanked, then its
# passwords, so that two lists compare by layout alone.  In that order:
# the password pattern also matches "ated 2026" in the header, which the
# time's pattern would then miss (two lists a minute apart differed).
mask() {
	sed -e 's/generated .* on .*\r$/generated TIME on HOST\r/' \
	    -e 's/[A-Za-z0-9:=%+\/]\{4\} [A-Za-z0-9:=%+\/]\{4\}/xxxx xxxx/g' "$1"
}

# ours N FILE: a list of N entries from otp-keygen with prefix "pre fix".
ours() {
	otp-keygen --otpw="$2" --prefix=@"$T/prefix" --entries="$1" \
	    >"$2.list" || fail "otp-keygen failed"
}

# peer ROWS FILE [PAGES]: a list from otpw-gen, prefix "pre fix".
peer() {
	rm -f "$2"
	printf 'pre fix\npre fix\n' | otpw-gen -h "$(($1 + 4))" \
	    -s "${3:-1}" -f "$2" >"$2.list" 2>/dev/null ||
	    fail "otpw-gen failed"
}

@test "otp-keygen --otpw: the list has otpw-gen's layout, byte for byte but for the secrets" {
	ours 50 "$T/a"
	peer 10 "$T/b"
	diff -u <(mask "$T/b.list") <(mask "$T/a.list")
	ours 280 "$T/c"
	peer 56 "$T/d"
	diff -u <(mask "$T/d.list") <(mask "$T/c.list")
	ours 560 "$T/e"
	peer 56 "$T/f" 2
	diff -u <(mask "$T/f.list") <(mask "$T/e.list")
	# CRLF lines, a form feed between pages.
	run -0 grep -c $'\f' "$T/e.list"
	assert_output 1
	run -1 grep -vc $'\r$' "$T/c.list"
	assert_output 0
	run -0 head -1 "$T/a.list"
	assert_output --regexp "^OTPW list generated [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} on $(hostname)"$'\r$'
}

@test "otp-keygen --otpw: numbers run down the columns; the default is 280" {
	otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" >"$T/l"
	run -0 sed -n '3p' "$T/l"
	assert_output --regexp '^000 .... ....  056 .... ....  112 .... ....  168 .... ....  224 .... ....'$'\r''$'
	run -0 sed -n '2p' "$T/f"
	assert_output '280 3 12 8'
}

@test "otp-keygen --otpw: the file is OTPW1, mode 0600, entries in random order" {
	ours 50 "$T/f"
	run -0 stat -c %a "$T/f"
	assert_output 600
	run -0 head -2 "$T/f"
	assert_output $'OTPW1\n50 3 12 8'
	run -0 wc -l <"$T/f"
	assert_output 52
	run -0 grep -cE '^[0-9]{3}[A-Za-z2-9:=%+/]{12}$' "$T/f"
	assert_output 50
	tail -n +3 "$T/f" | cut -c1-3 | sort -c && fail "entries in order"
	run -0 bash -c "tail -n +3 '$T/f' | cut -c1-3 | sort -u | wc -l"
	assert_output 50
	# Two lists never share a password.
	ours 50 "$T/g"
	cmp -s "$T/f.list" "$T/g.list" && fail "the same list twice"
	true
}

@test "otpw-gen's module and ours agree on a list's hashes: otp-verify takes otpw-gen's answers" {
	peer 10 "$T/f"
	for n in 000 017 049; do
		run -0 otp-verify --otpw="$T/f" --challenge="$n" \
		    "pre fix$(pw_of "$T/f.list" "$n")"
	done
	assert_output "47 of 50 passwords left"
}

@test "otp-verify --otpw: --challenge names the first unused entry in file order" {
	ours 50 "$T/f"
	first=$(sed -n 3p "$T/f" | cut -c1-3)
	run -0 otp-verify --otpw="$T/f" --challenge
	assert_output "$first"
	run -0 otp-verify --otpw="$T/f" "pre fix$(pw_of "$T/f.list" "$first")"
	assert_output "49 of 50 passwords left"
	run -0 sed -n 3p "$T/f"
	assert_output '---------------'
	second=$(sed -n 4p "$T/f" | cut -c1-3)
	run -0 otp-verify --otpw="$T/f" --challenge
	assert_output "$second"
}

@test "otp-verify --otpw: a wrong response consumes nothing; a used one is refused" {
	ours 50 "$T/f"
	cp "$T/f" "$T/before"
	n=$(otp-verify --otpw="$T/f" --challenge)
	run -1 otp-verify --otpw="$T/f" "pre fixAAAAAAAA"
	assert_output --partial "not accepted"
	run -1 otp-verify --otpw="$T/f" "prefix$(pw_of "$T/f.list" "$n")"
	run -1 otp-verify --otpw="$T/f" "pre fix $(pw_of "$T/f.list" "$n")"
	cmp "$T/before" "$T/f"
	run -0 otp-verify --otpw="$T/f" --challenge="$n" - \
	    <<<"pre fix$(pw_of "$T/f.list" "$n")"
	run -1 otp-verify --otpw="$T/f" --challenge="$n" - \
	    <<<"pre fix$(pw_of "$T/f.list" "$n")"
	assert_output --partial "no unused entry has that number"
	run -1 otp-verify -q --otpw="$T/f" --challenge="$n" - \
	    <<<"pre fix$(pw_of "$T/f.list" "$n")"
	assert_output ''
}

@test "otp-verify --otpw: spaces, look-alikes and backspaces as pam_otpw reads them" {
	printf 'OTPW1\n1 3 12 8\n000ROp:D7vJtPDB\n' >"$T/f"
	chmod 600 "$T/f"
	cp "$T/f" "$T/g"
	run -1 otp-verify --otpw="$T/f" 's3cret+ZQg DD06x'
	run -0 otp-verify --otpw="$T/f" 's3cret+ Z Q g D D 0 6 '
	assert_output "0 of 1 passwords left"
	run -0 otp-verify --otpw="$T/g" $'s3cret+ZQgDDOx\b6'
}

@test "otp-verify --otpw: the triple challenge takes three passwords, all consumed" {
	ours 50 "$T/f"
	r="pre fix$(pw_of "$T/f.list" 007)$(pw_of "$T/f.list" 013)$(pw_of "$T/f.list" 042)"
	run -1 otp-verify --otpw="$T/f" --challenge=013/007/042 "$r"
	run -0 otp-verify --otpw="$T/f" --challenge=007/013/042 "$r"
	assert_output "47 of 50 passwords left"
	run -0 grep -c -- '---------------' "$T/f"
	assert_output 3
	run -2 otp-verify --otpw="$T/f" --challenge=001/002 x
	assert_output --partial "malformed challenge"
	run -2 otp-verify --otpw="$T/f" --challenge=001/001/002 x
	run -2 otp-verify --otpw="$T/f" --challenge=1 x
	run -2 otp-verify --otpw="$T/f" --challenge=abc x
}

@test "otp-keygen --otpw refuses to replace a file without -f, and removes a lock with it" {
	ours 50 "$T/f"
	cp "$T/f" "$T/old"
	run -2 otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" --entries=50
	assert_output --partial "use -f to replace it"
	cmp "$T/old" "$T/f"
	ln -s 017 "$T/f.lock"
	run -0 otp-keygen -f --otpw="$T/f" --prefix=@"$T/prefix" --entries=50
	[[ ! -L $T/f.lock ]] || fail "lock left"
	cmp -s "$T/old" "$T/f" && fail "not replaced"
	mkdir "$T/d"
	run -2 otp-keygen -f --otpw="$T/d" --prefix=@"$T/prefix"
	assert_output --partial "never replaced"
}

@test "otp-keygen --otpw: a list that cannot be printed writes no file" {
	run -2 bash -c "otp-keygen --otpw='$T/f' --prefix=@'$T/prefix' >/dev/full"
	assert_output --partial "write error"
	[[ ! -e $T/f ]] || fail "file written"
}

@test "otp-keygen --otpw: the prefix from -, never from the command line; none at all without a terminal" {
	run -0 otp-keygen --otpw="$T/f" --prefix=- --entries=10 <<<"pre fix"
	n=$(otp-verify --otpw="$T/f" --challenge)
	run -0 otp-verify --otpw="$T/f" "pre fix$(pw_of <(printf '%s\n' "${lines[@]}") "$n")"
	run -2 otp-keygen --otpw="$T/g" --prefix=secret
	assert_output --partial "@FILE or -"
	refute_output --partial secret
	run -2 otp-keygen --otpw="$T/g" --prefix=- <<<""
	assert_output --partial "prefix password is empty"
	run -2 setsid otp-keygen --otpw="$T/g" </dev/null
	assert_output --partial "no terminal"
	[[ ! -e $T/g ]] || fail "file written"
}

@test "otp-keygen --otpw: option checks" {
	run -2 otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" --entries=9
	assert_output --partial "from 10 to 1000"
	run -2 otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" --entries=1001
	run -2 otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" --state="$T/s"
	assert_output --partial "--otpw takes only"
	run -2 otp-keygen --prefix=@"$T/prefix"
	assert_output --partial "need --otpw"
	run -2 otp-keygen --entries=50
	run -2 otp-verify --challenge x
	assert_output --partial "--challenge needs --otpw"
	run -2 otp-verify --otpw="$T/f" --state="$T/f"
	run -2 otp-verify --otpw="$T/f" -w 3 x
	run -2 otp-verify --otpw="$T/f" a b
}

@test "otp-verify --otpw: an unsafe or malformed file is an error that names it" {
	ours 50 "$T/f"
	run -2 otp-verify --otpw="$T/none" --challenge
	assert_output --partial "No such file"
	chmod 620 "$T/f"
	run -2 otp-verify --otpw="$T/f" --challenge
	assert_output --partial "writable by others"
	chmod 600 "$T/f"
	ln -s "$T/f" "$T/link"
	run -2 otp-verify --otpw="$T/link" --challenge
	assert_output --partial "not a regular file"
	printf 'OTPW1\n2 3 12 8\n000ROp:D7vJtPDB\n' >"$T/bad"
	chmod 600 "$T/bad"
	run -2 otp-verify --otpw="$T/bad" --challenge
	assert_output --partial "line 4: bad OTPW entry line"
	printf 'OTPW1\n1 3 12 8\n---------------\n' >"$T/used"
	chmod 600 "$T/used"
	run -1 otp-verify --otpw="$T/used" --challenge
	assert_output --partial "no unused one-time passwords left"
}

@test "--otpw without FILE is ~/.otpw of the password database's home" {
	local nss=/usr/lib/x86_64-linux-gnu/libnss_wrapper.so
	[[ -f $nss ]] || fail "libnss-wrapper missing"
	mkdir "$T/home"
	printf '%s:x:%s:%s::%s:/bin/sh\n' "$(id -un)" "$(id -u)" "$(id -g)" \
	    "$T/home" >"$T/passwd"
	printf '%s:x:%s:\n' "$(id -gn)" "$(id -g)" >"$T/group"
	# A sanitized build wants its runtime loaded before the wrapper.
	export LD_PRELOAD=$nss NSS_WRAPPER_PASSWD=$T/passwd \
	    NSS_WRAPPER_GROUP=$T/group NSS_WRAPPER_DISABLE_DEEPBIND=1 \
	    ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0
	HOME=/nonexistent otp-keygen --otpw --prefix=@"$T/prefix" \
	    --entries=10 >"$T/l"
	[[ -f $T/home/.otpw ]] || fail "no ~/.otpw"
	n=$(HOME=/nonexistent otp-verify --otpw --challenge)
	run -0 env HOME=/nonexistent otp-verify --otpw "pre fix$(pw_of "$T/l" "$n")"
	assert_output "9 of 10 passwords left"
}

@test "otp-verify(1)'s OTPW example: the next number, then its password after the prefix, 279 left" {
	otp-keygen --otpw="$T/f" --prefix=@"$T/prefix" >"$T/l"
	run -0 otp-verify --otpw="$T/f" --challenge
	assert_output --regexp '^[0-9]{3}$'
	n=$output
	run -0 otp-verify --otpw="$T/f" --challenge="$n" "pre fix$(pw_of "$T/l" "$n")"
	assert_output "279 of 280 passwords left"
}
