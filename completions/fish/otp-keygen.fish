# fish completion for otp-keygen(1)
complete -c otp-keygen -f
complete -c otp-keygen -l bytes -x -a '16 20 32 64' -d 'Key length in bytes'
complete -c otp-keygen -s b -l base32 -d 'Print the key in Base32 (default)'
complete -c otp-keygen -s x -l hex -d 'Print the key in hex'
complete -c otp-keygen -l scratch -x -a '0 5 10' -d 'Emergency scratch codes'
complete -c otp-keygen -l scratch-out -r -F -d 'Write scratch codes to a new file, - for stdout'
complete -c otp-keygen -l confirm -d 'Ask for a code from the app before writing'
complete -c otp-keygen -l uri -d 'Print an otpauth:// URI'
complete -c otp-keygen -s i -l issuer -x -d 'URI issuer'
complete -c otp-keygen -s A -l account -x -d 'URI account name'
complete -c otp-keygen -l totp -f -a 'SHA1 SHA256 SHA512 30 60' -d 'Time-based key (default)'
complete -c otp-keygen -l hotp -d 'Counter-based key'
complete -c otp-keygen -s a -l algorithm -x -a 'SHA1 SHA256 SHA512' -d 'URI HMAC algorithm'
complete -c otp-keygen -s d -l digits -x -a '6 7 8 9 10' -d 'URI code length'
complete -c otp-keygen -s p -l period -x -a '30 60 30s 1m' -d 'URI TOTP time step'
complete -c otp-keygen -s c -l counter -x -d 'URI initial HOTP counter'
complete -c otp-keygen -l state -r -F -d 'Write a new state file'
complete -c otp-keygen -l window-size -x -a '3 5 17 21' -d 'Codes valid at once'
complete -c otp-keygen -l step-size -x -a '30 60' -d 'State file TOTP time step'
complete -c otp-keygen -l rate-limit -x -a '3/30' -d 'At most N logins in SECONDS'
complete -c otp-keygen -l disallow-reuse -d 'A TOTP code works only once'
complete -c otp-keygen -s f -l force -d 'Replace an existing file'
complete -c otp-keygen -l print-state -r -F -d 'Show the key and codes of a state file'
complete -c otp-keygen -l usersfile -r -F -d 'Add a token to an OATH Toolkit users file'
complete -c otp-keygen -l user -x -a '(__fish_complete_users)' -d 'Usersfile, store: the user name; --uri: account NAME@HOST'
complete -c otp-keygen -l pin -r -d 'Usersfile: the PIN, or @FILE'
complete -c otp-keygen -l motp -d 'Usersfile: a Mobile-OTP token'
complete -c otp-keygen -l otpw -r -F -d 'Print an OTPW password list, write its file (default ~/.otpw)'
complete -c otp-keygen -l prefix -x -a '-' -d 'OTPW prefix password from @FILE or - (stdin)'
complete -c otp-keygen -l entries -x -a '50 100 280 560 1000' -d 'OTPW passwords in the list'
complete -c otp-keygen -s h -l help -d 'Show help'
complete -c otp-keygen -s V -l version -d 'Show version'
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
complete -c otp-keygen -l store -x -a '(__otp_store_url)' -d 'Where tokens live: ga:FILE, oath:FILE, otpw:FILE, postgresql://...'
complete -c otp-keygen -l store-key -r -F -d 'postgresql: the store key file'
