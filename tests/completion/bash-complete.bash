#!/usr/bin/env bash
# bash-complete.bash FILE LINE - what bash completes the last word of LINE
# to with the completion in FILE: one candidate a line, written as the
# whole word would read afterwards.  LINE is split into COMP_WORDS the way
# bash splits it (COMP_WORDBREAKS: "--opt=VALUE" is three words, "@FILE"
# two), and each candidate replaces only what readline replaces: the text
# after the last word-break character.
# shellcheck disable=SC1090,SC1091
source /usr/share/bash-completion/bash_completion || exit 2
source "$1" || exit 2
# bash-completion turns hostcomplete off, which takes '@' out of the
# word-break characters; HOSTCOMPLETE=1 puts it back.
[[ ${HOSTCOMPLETE-} == 1 ]] && shopt -s hostcomplete
line=$2

COMP_LINE=$line
COMP_POINT=${#line}
COMP_WORDS=()
word='' kind=space
for ((i = 0; i < ${#line}; i++)); do
	c=${line:i:1}
	if [[ $c == [[:space:]] ]]; then
		[[ $kind == space ]] || COMP_WORDS+=("$word")
		word='' kind=space
	elif [[ $COMP_WORDBREAKS == *"$c"* ]]; then
		# a run of break characters is a word of its own
		[[ $kind == word ]] && COMP_WORDS+=("$word") && word=
		word+=$c kind=break
	else
		[[ $kind == break ]] && COMP_WORDS+=("$word") && word=
		word+=$c kind=word
	fi
done
COMP_WORDS+=("$word")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))

spec=$(complete -p "${COMP_WORDS[0]}") || exit 2
func=${spec#*-F }
func=${func%% *}
COMPREPLY=()
# compopt needs a real completion in progress: its complaint is noise here.
"$func" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
    "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null

# The whole last word, and what of it stays: up to its last break char.
token=${line##*[[:space:]]}
keep=
for ((i = ${#token} - 1; i >= 0; i--)); do
	if [[ $COMP_WORDBREAKS == *"${token:i:1}"* ]]; then
		keep=${token:0:i+1}
		break
	fi
done
for r in "${COMPREPLY[@]}"; do
	printf '%s%s\n' "$keep" "$r"
done
