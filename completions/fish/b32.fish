# fish completion for b32(1)

complete -c b32 -s d -l decode -d 'Decode Base32 to bytes'
complete -c b32 -s i -l ignore-garbage -d 'With -d, drop characters outside the alphabet'
complete -c b32 -s w -l wrap -x -a '0 64 76' -d 'Wrap encoded lines at COLS (0 for none)'
complete -c b32 -s n -l no-padding -d 'Encode without = padding'
complete -c b32 -l hex -d 'The binary side is hex text'
complete -c b32 -l lines -d 'Convert each line on its own'
complete -c b32 -l base32hex -d 'RFC 4648 extended-hex alphabet'
complete -c b32 -l strict -d 'Decode canonical Base32 only'
complete -c b32 -s h -l help -d 'Show the usage'
complete -c b32 -s V -l version -d 'Show the version'
