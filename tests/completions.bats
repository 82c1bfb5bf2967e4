#!/usr/bin/env bats
# completions.bats - the bash, zsh and fish completions complete what a user
# types, as each shell really splits it: "--opt=VALUE" (bash breaks words
# at '='), "@FILE" operands and values (bash breaks at '@' while
# hostcomplete is on), option names and file names.  One table of cases,
# run through each shell's own completion machinery: bash through
# bash-completion with COMP_WORDS split as bash splits them
# (completion/bash-complete.bash), zsh through a pseudo-terminal and
# compinit (completion/zsh-complete.zsh), fish through `complete -C`.
# That every long option is offered at all: hygiene.bats.

bats_require_minimum_version 1.5.0

setup_file() {
	export D="$BATS_FILE_TMPDIR/d"
	mkdir -p "$D"
	touch "$D/statefile" "$D/state2" "$D/other"
}

setup() {
	load common
	ROOT=$BATS_TEST_DIRNAME/..
}

# TOOL LINE | what the last word may become (sorted; a trailing '=' and a
# description are dropped, as the shells differ there).  $D is a directory
# holding statefile, state2 and other.
cases() {
	cat <<CASES
otp-gen --totp=S|--totp=SHA1 --totp=SHA256 --totp=SHA512
otp-gen --algorithm=SHA2|--algorithm=SHA256
otp-gen -a SHA5|SHA512
otp-gen -d 1|10
otp-gen --tot|--totp
otp-gen @$D/st|@$D/state2 @$D/statefile
otp-gen --pin=@$D/st|--pin=@$D/state2 --pin=@$D/statefile
otp-verify --totp=SHA1|--totp=SHA1
otp-verify --find|--find-skew
otp-verify --state=$D/st|--state=$D/state2 --state=$D/statefile
otp-verify --state $D/o|$D/other
otp-verify @$D/o|@$D/other
otp-verify --pin=@$D/o|--pin=@$D/other
otp-verify --allowed-perm=04|--allowed-perm=0400
otp-verify --store=o|--store=oath: --store=otpw:
otp-verify --store=ga:$D/o|--store=ga:$D/other
otp-verify --sto|--store --store-key --store-timeout
otp-verify --store=p|--store=postgresql://
otp-verify --store-timeout=5|--store-timeout=500ms
otp-keygen --store=g|--store=ga:
otp-keygen --store-k|--store-key
otp-uri --qr=u|--qr=utf8 --qr=utf8-inverted
otp-uri --get=s|--get=secret
otp-uri --get=al|--get=algorithm
otp-uri --to-m|--to-migration
otp-uri @$D/state|@$D/state2 @$D/statefile
otp-uri --from=p|--from=pskc
otp-uri $D/o|$D/other
otp-verify --challenge=1|
otp-verify --chall|--challenge
otp-uri --to=m|--to=migration
otp-uri --to=o|--to=oath
otp-uri --from=oa|--from=oath
otp-uri --dro|--drop-issuer
otp-uri --allow|--allow-plain
otp-uri --output=$D/st|--output=$D/state2 --output=$D/statefile
otp-uri -o $D/o|$D/other
otp-uri --for|--force
otp-uri --map=$D/o|--map=$D/other
otp-uri --skip|--skip-unmapped
otp-uri --pskc-password=@$D/o|--pskc-password=@$D/other
otp-keygen --totp=SHA5|--totp=SHA512
otp-keygen --scr|--scratch --scratch-out
otp-keygen --state=$D/st|--state=$D/state2 --state=$D/statefile
otp-keygen --scratch-out=$D/o|--scratch-out=$D/other
otp-keygen --print-state $D/o|$D/other
b32 --wrap=7|--wrap=76
b32 --li|--lines
b32 -d $D/o|$D/other
CASES
}

# The candidates as one sorted line, without descriptions or a final '='.
normal() {
	cut -f1 | sed 's/=$//' | sort -u | paste -sd' ' -
}

# run_cases SHELL: every case through complete_SHELL; all mismatches shown.
run_cases() {
	local line want got bad=0 n=0
	while IFS='|' read -r line want; do
		got=$("complete_$1" "$line" | normal)
		n=$((n + 1))
		if [[ $got != "$want" ]]; then
			echo "$1: '$line': got '$got', want '$want'"
			bad=1
		fi
	done < <(cases)
	echo "$1: $n cases"
	return $bad
}

complete_bash() {
	bash "$ROOT/tests/completion/bash-complete.bash" \
	    "$ROOT/completions/bash/${1%% *}" "$1"
}

complete_zsh() {
	timeout 30 zsh -f "$ROOT/tests/completion/zsh-complete.zsh" \
	    "$ROOT/completions/zsh" "$1"
}

complete_fish() {
	fish --no-config -c 'source $argv[1]; complete -C $argv[2]' \
	    "$ROOT/completions/fish/${1%% *}.fish" "$1"
}

# A completion that shows the words it was given, through the harness.
probe_words() {
	local f="$BATS_TEST_TMPDIR/probe"
	printf '%s\n' '_p() { printf "<%s>" "${COMP_WORDS[@]}"; }' \
	    'complete -F _p probe' > "$f"
	bash "$ROOT/tests/completion/bash-complete.bash" "$f" "$1"
}

@test "bash (as bash-completion loads it, '@' not a word break) completes every case" {
	run_cases bash
}

@test "bash with hostcomplete on ('@' breaks words) completes every case" {
	HOSTCOMPLETE=1 run_cases bash
}

@test "zsh completes every case" {
	run_cases zsh
}

@test "fish completes every case" {
	run_cases fish
}

@test "the bash harness splits words as bash does" {
	# If it did not, the bash cases above would prove little.
	run -0 probe_words 'probe --pin=@x'
	assert_output '<probe><--pin><=><@x>'
	HOSTCOMPLETE=1 run -0 probe_words 'probe --pin==@x y '
	assert_output '<probe><--pin><==@><x><y><>'
}

@test "the bash completions are shellcheck clean" {
	for f in "$ROOT"/completions/bash/* "$ROOT"/tests/completion/*.bash; do
		shellcheck -s bash "$f"
	done
}
