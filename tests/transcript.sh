# shellcheck shell=sh
# transcript.sh - sourced by the demos (tests/demo.sh, tests/demo-fleet.sh):
# the commands they show are written as a shell reads them, so that a
# reader can paste them.

# quote WORD: WORD as one shell word: as it is when every character of it
# stands for itself, else in single quotes (a ' in it as '\'').
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_@%+=:,./-]*)
		printf "'%s'" "$(printf '%s\n' "$1" | sed "s/'/'\\\\''/g")" ;;
	*)
		printf '%s' "$1" ;;
	esac
}

# words WORD...: the words quoted, one space between them.
words() {
	sep=
	for w; do
		printf '%s%s' "$sep" "$(quote "$w")"
		sep=' '
	done
}
