# fish completion for otp-store(1)
complete -c otp-store -f
# The operands before this word: the command, then its URLs and USER.
# Options may come before or after the command; "--" ends them.
function __otp_store_operands
    set -l skip 0
    set -l dashdash 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
        else if test $dashdash = 1
            echo $w
        else if test "x$w" = x--
            set dashdash 1
        else if contains -- $w --store-key --from-key --store-timeout --user --window --since --before
            set skip 1
        else if not string match -q -- '-*' $w
            echo $w
        end
    end
end
# What the word is: command, url or user.
function __otp_store_wants
    set -l ops (__otp_store_operands)
    set -l n (count $ops)
    switch "$n:$ops[1]"
        case 0:
            test $argv[1] = command
        case 1:init 1:list 1:copy 2:copy 1:remove 1:disable 1:enable 1:resync 1:unlock 1:reseal 1:log 1:prune
            test $argv[1] = url
        case 2:remove 2:disable 2:enable 2:resync 2:unlock
            test $argv[1] = user
        case '*'
            return 1
    end
end
# A URL: the schemes, then files after ga:; a libpq URI is typed in full.
function __otp_store_operand_url
    set -l tok (commandline -ct)
    if string match -q -- 'ga:*' $tok
        for f in (__fish_complete_path (string sub -s 4 -- $tok))
            echo ga:$f
        end
    else
        printf '%s\n' ga: postgresql://
    end
end
complete -c otp-store -n '__otp_store_wants command' -a init -d 'Make a database ready: its tables and the store key'
complete -c otp-store -n '__otp_store_wants command' -a list -d 'One line a token: user, kind, enabled, scratch codes, uses'
complete -c otp-store -n '__otp_store_wants command' -a copy -d 'Copy tokens with their state from one store to another'
complete -c otp-store -n '__otp_store_wants command' -a resync -d 'Bring a token in step with the app from 2 or 3 codes'
complete -c otp-store -n '__otp_store_wants command' -a remove -d "Remove a user's token"
complete -c otp-store -n '__otp_store_wants command' -a disable -d "Refuse every login on a user's token"
complete -c otp-store -n '__otp_store_wants command' -a enable -d "Allow logins on a user's token again"
complete -c otp-store -n '__otp_store_wants command' -a unlock -d "Clear a user's wrong codes and lock-out"
complete -c otp-store -n '__otp_store_wants command' -a reseal -d 'Seal every token anew above any generation seen (after a restore)'
complete -c otp-store -n '__otp_store_wants command' -a log -d 'The audit trail: time, user, server, outcome, reason'
complete -c otp-store -n '__otp_store_wants command' -a prune -d 'Remove audit entries older than --before'
complete -c otp-store -n '__otp_store_wants url' -a '(__otp_store_operand_url)' -d 'Store: ga:FILE or postgresql://...'
complete -c otp-store -n '__otp_store_wants user' -a '(__fish_complete_users)'
complete -c otp-store -s f -l force -d 'Copy: replace a token TO has already'
complete -c otp-store -l store-key -r -F -d "The database's store key (default /etc/otp-utils/store.key)"
complete -c otp-store -l from-key -r -F -d "Copy: the source database's key, if another"
complete -c otp-store -l store-timeout -x -a '500ms 1s 3s 10s' -d 'The deadline of each database call (default 3s)'
complete -c otp-store -l user -x -a '(__fish_complete_users)' -d "Copy: this user's token (a file store's: its name in TO); log: this user's entries"
complete -c otp-store -l since -x -d 'Log: entries at TIME or later'
complete -c otp-store -l before -x -d 'Prune: entries before TIME'
complete -c otp-store -l window -x -a '1 3 5 8 10' -d "Copy from a users file: pam_oath's window= (default 5)"
complete -c otp-store -s h -l help -d 'Show help'
complete -c otp-store -s V -l version -d 'Show version'
