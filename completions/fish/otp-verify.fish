# fish completion for otp-verify(1)
complete -c otp-verify -l hotp -d 'Check HOTP codes (default)'
complete -c otp-verify -l totp -f -a 'SHA1 SHA256 SHA512' -d 'Check TOTP codes'
complete -c otp-verify -s a -l algorithm -x -a 'SHA1 SHA256 SHA512' -d 'HMAC algorithm'
complete -c otp-verify -s b -l base32 -d 'Keys are Base32'
complete -c otp-verify -s x -l hex -d 'Keys are hex (default)'
complete -c otp-verify -l strict -d 'Base32 keys must be canonical'
complete -c otp-verify -s c -l counter -x -d 'HOTP counter expected next'
complete -c otp-verify -s d -l digits -x -a '6 7 8 9 10' -d 'Code length'
complete -c otp-verify -s s -l time-step-size -x -a '30 60 30s 1m' -d 'TOTP time step'
complete -c otp-verify -s S -l start-time -x -a now -d 'TOTP epoch'
complete -c otp-verify -s N -l now -x -a now -d 'Current time'
complete -c otp-verify -s w -l window -x -d 'HOTP counters ahead, TOTP steps either side'
complete -c otp-verify -l steam -d 'Steam Guard codes'
complete -c otp-verify -l motp -d 'Mobile-OTP codes'
complete -c otp-verify -l pin -x -a '(set -l t (string replace -r -- "^--pin=" "" (commandline -ct))
	string match -q -- "@*" $t; and __fish_complete_path (string sub -s 2 -- $t) | string replace -r -- "^" "@")' -d 'Mobile-OTP PIN, or @FILE'
complete -c otp-verify -s q -l quiet -d 'No message when a code is not accepted'
complete -c otp-verify -s v -l verbose -d 'Explain the match and the clock'
complete -c otp-verify -l find-skew -d 'Place 2 or 3 consecutive codes'
complete -c otp-verify -l diagnose -d 'Explain a code that does not verify'
complete -c otp-verify -s i -l interactive -d 'Clock debugger: codes around now, each code typed explained'
complete -c otp-verify -l around -x -a '0 1 2 3 5 10' -d 'Interactive: steps shown either side of now'
complete -c otp-verify -l show-key -d 'Interactive: show the key in the view'
complete -c otp-verify -l state -r -F -d 'Google Authenticator state file'
complete -c otp-verify -l no-skew-adjust -d 'State: do not learn clock skew'
complete -c otp-verify -l no-increment-hotp -d 'State: keep the HOTP counter on failure'
complete -c otp-verify -l no-strict-owner -d 'State: accept a file owned by another user'
complete -c otp-verify -l allowed-perm -x -a '0600 0400 0640' -d 'State: permission bits allowed'
complete -c otp-verify -l allow-readonly -d 'State: accept even if the update cannot be written'
complete -c otp-verify -l dry-run -d 'State, usersfile: say what would happen, write nothing'
complete -c otp-verify -l usersfile -r -F -d 'OATH Toolkit users file (also with --radius)'
complete -c otp-verify -l user -x -a '(__fish_complete_users)' -d 'Usersfile: whose tokens'
complete -c otp-verify -l otpw -r -F -d 'Check a response against an OTPW file (default ~/.otpw)'
complete -c otp-verify -l challenge -x -d 'OTPW: print the number to answer, or the numbers answered'
complete -c otp-verify -l radius -d 'Answer FreeRADIUS rlm_exec from the environment'
complete -c otp-verify -l state-dir -r -a '(__fish_complete_directories)' -d 'RADIUS: directory of per-user state files'
complete -c otp-verify -s h -l help -d 'Show help'
complete -c otp-verify -s V -l version -d 'Show version'
# KEY operands as @FILE: a file name after the '@'
complete -c otp-verify -n 'string match -q -- "@*" (commandline -ct)' -f -a '(__fish_complete_path (string sub -s 2 -- (commandline -ct)) | string replace -r -- "^" "@")'
# --store=SCHEME:PATH: the schemes, then files after one.
function __otp_store_url
    set -l tok (commandline -ct | string replace -r -- '^--store=' '')
    if string match -qr -- '^(ga|oath|otpw):' $tok
        set -l scheme (string match -r -- '^[a-z]+:' $tok)
        for f in (__fish_complete_path (string replace -r -- '^[a-z]+:' '' $tok))
            echo $scheme$f
        end
    else
        printf '%s\n' ga: oath: otpw: postgresql://
    end
end
complete -c otp-verify -l store -x -a '(__otp_store_url)' -d 'Where tokens live: ga:FILE, oath:FILE, otpw:FILE, postgresql://...'
complete -c otp-verify -l store-key -r -F -d 'postgresql: the store key file'
complete -c otp-verify -l store-timeout -x -a '500ms 1s 3s 10s' -d 'postgresql: the deadline of a check'
complete -c otp-verify -l allow-group-read -d 'users file: take one its group may read'
complete -c otp-verify -l deny -x -d 'users file, database: wrong codes in a row that lock a user out'
complete -c otp-verify -l unlock-time -x -d 'users file, database: how long a lock-out lasts'
complete -c otp-verify -l pam-oath-shared -x -a '0 1' -d 'users file: whether pam_oath uses it too'
