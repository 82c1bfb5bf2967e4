#!/usr/bin/zsh -f
# capture.zsh FPATH_DIR 'command line' -> the matches zsh offers, one a line
zmodload zsh/zpty || exit 2
out=$(mktemp) setup=$(mktemp)
cat > $setup <<SETUP
PS1='' PS2='' RPS1=''
fpath=(${(q)1} \$fpath)
autoload -U compinit && compinit -u -D
zstyle ':completion:*' list-prompt ''
zstyle ':completion:*' menu no
compadd() {
	local -a m
	if (( \${@[(I)-[OAD]*]} )); then builtin compadd "\$@"; return; fi
	builtin compadd -A m "\$@"
	local p= hp= i
	for (( i = 1; i <= \$#; i++ )); do
		case \${@[i]} in
		-P) p=\${@[i+1]} ;;
		-P?*) p=\${@[i]#-P} ;;
		-p) hp=\${@[i+1]} ;;
		-p?*) hp=\${@[i]#-p} ;;
		--) break ;;
		esac
	done
	for i in \$m; do print -r -- "\$IPREFIX\$p\$hp\$i" >> ${(q)out}; done
	builtin compadd "\$@"
}
capture-complete() { zle complete-word; print -r -- '{{DO''NE}}'; }
zle -N capture-complete
bindkey '^I' capture-complete
print -r -- '{{READY}}'
SETUP
zpty z zsh -f -i
zpty -w z "source ${(q)setup}"
while zpty -r z line; do [[ $line == '{{READY}}'* ]] && break; done
zpty -w -n z "$2"$'\t'
while zpty -r z line; do [[ $line == *'{{DONE}}'* ]] && break; done
zpty -w z $'\C-u'
zpty -d z
sort -u $out
rm -f $out $setup
