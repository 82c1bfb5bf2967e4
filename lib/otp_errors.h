/*
 * otp_errors.h - the one error vocabulary of otp-utils, core and system
 * floor alike (included by otp.h; values in lib/error.c's table).
 */
#ifndef OTP_ERRORS_H
#define OTP_ERRORS_H

/*
 * Every error code once, as X(NAME, value, text): OTP_NAME = value below,
 * the text for otp_strerror(), the name for tests/unit.  Values are kept
 * for good; a code removed leaves its value unused.
 */
#define OTP_ERRORS(X) \
	/* general */ \
	X(EINVAL,	-1,	"invalid argument") \
	X(ERANGE,	-2,	"number out of range") \
	X(ENOSPACE,	-3,	"output buffer too small") \
	X(ETOOLONG,	-4,	"input too long") \
	X(EIO,		-5,	"input/output error")	/* errno: the cause */ \
	X(EEMPTY,	-6,	"empty input") \
	X(ENUL,		-7,	"NUL byte in input") \
	X(ENOMEM,	-8,	"out of memory") \
	/* codecs */ \
	X(EBASE32,	-10,	"invalid Base32 character") \
	X(EBASE32LEN,	-11,	"impossible Base32 length") \
	X(EBASE32PAD,	-12,	"invalid Base32 padding") \
	X(EBASE32BITS,	-13,	"non-zero trailing bits in Base32") \
	X(EHEX,		-14,	"invalid hex character") \
	X(EHEXLEN,	-15,	"odd number of hex digits") \
	X(EBASE64,	-16,	"invalid base64") \
	/* keys and OTP parameters */ \
	X(EKEYEMPTY,	-20,	"key is empty") \
	X(EKEYLONG,	-21,	"key too long") \
	X(EALG,		-22,	"unknown algorithm") \
	X(EDIGITS,	-23,	"digits out of range 6..10") \
	X(ECOUNTER,	-24,	"counter must be a decimal from 0 to " \
	    "18446744073709551615") \
	X(ESTEP,	-25,	"invalid time step") \
	X(EWINDOW,	-26,	"invalid window") \
	X(EBEFORESTART,	-27,	"time is before the start time") \
	X(ECODE,	-28,	"malformed one-time password") \
	/* time and duration parsing */ \
	X(ETIME,	-40,	"unrecognised time") \
	X(ETIMERANGE,	-41,	"time out of range") \
	X(EDURATION,	-42,	"unrecognised duration") \
	X(ETIMEFIELD,	-43,	"date or time field out of range") \
	X(ETIMEGAP,	-44,	"local time skipped by a clock change") \
	X(ETIMEAMBIG,	-45,	"signed offset after a time without a zone " \
	    "is ambiguous; add a zone such as UTC") \
	X(ETIMEAGO,	-46,	"'ago' after more than one item is ambiguous " \
	    "(date -d negates only the last); write 'now - 90 seconds'") \
	/* otpauth URIs */ \
	X(EURI,		-50,	"not an otpauth:// URI") \
	X(EURITYPE,	-51,	"URI type must be totp, hotp or steam") \
	X(ENOSECRET,	-52,	"URI has no secret") \
	X(EURIESC,	-53,	"bad percent-encoding in URI") \
	X(EURIPARAM,	-54,	"malformed URI parameter") \
	X(EURILABEL,	-55,	"malformed URI label") \
	X(EUTF8,	-56,	"text is not valid UTF-8") \
	X(EURICTRL,	-57,	"control character in URI text") \
	X(EURIDUP,	-58,	"duplicate parameter") \
	X(EURISTEAM,	-59,	"Steam codes are 5 characters of SHA1: " \
	    "digits=5 and algorithm=SHA1 only") \
	/* migration payloads */ \
	X(EMIGRATION,	-70,	"not an otpauth-migration:// URI") \
	X(EPROTOBUF,	-71,	"malformed migration payload") \
	X(EMIGRATEUNSUP, -72,	"parameter cannot be carried by the " \
	    "migration format") \
	X(EMIGRATIONDATA, -73,	"migration URI has no data= parameter") \
	X(EMIGRATEPERIOD, -74,	"an export carries only a period of 30 " \
	    "seconds") \
	X(EMIGRATEDIGITS, -75,	"an export carries 6 or 8 digits only") \
	X(EMIGRATECOUNTER, -76,	"an export carries HOTP counters up to " \
	    "2^63-1") \
	X(EMIGRATENAME,	-77,	"an export cannot carry an account that starts " \
	    "with a space and holds a ':'") \
	X(EMIGRATESTEAM, -78,	"an export cannot carry a Steam account") \
	/* state file */ \
	X(ESTATESECRET,	-91,	"bad secret in state file") \
	X(ESTATEOPT,	-92,	"bad option line in state file") \
	X(ESTATESIZE,	-93,	"state file empty or larger than 64 KiB") \
	X(ESTATEOWNER,	-94,	"state file has the wrong owner") \
	X(ESTATEMODE,	-95,	"state file permissions are too open") \
	X(ESTATETYPE,	-96,	"state file is not a regular file") \
	X(ESTATECHANGED, -97,	"state file changed during update") \
	X(ESTATEEXIST,	-98,	"file exists") \
	X(EREADONLY,	-100,	"state file cannot be updated") \
	X(ELOCK,	-101,	"cannot lock state file") \
	X(EBUSY,	-102,	"state file is being rewritten by another " \
	    "program") \
	X(ESTATEWINDOW,	-103,	"window size out of range 1..21") \
	X(ESTATESTEP,	-104,	"step size out of range 1..60 seconds") \
	X(ESTATERATE,	-105,	"rate limit out of range 1..10 attempts per " \
	    "15..600 seconds") \
	X(ESTATEHOTP,	-106,	"step size and reuse refusal do not apply to " \
	    "HOTP") \
	/* users file (OATH Toolkit's, otp-users(5)) */ \
	X(EUSERSLINE,	-110,	"malformed token line in users file") \
	X(EUSERSKEY,	-111,	"bad key in users file") \
	X(EUSERSCOUNTER, -112,	"bad counter in users file") \
	X(EUSERSTIME,	-113,	"bad last-login time in users file") \
	X(EUSERSSIZE,	-114,	"users file larger than 16 MiB") \
	X(EUSERSUNKNOWN, -115,	"no such user in users file") \
	X(EUSERSEXIST,	-116,	"user already has a token in users file") \
	X(EUSERSFIELD,	-117,	"user name or PIN cannot be written in a " \
	    "users file") \
	X(EUSERSMODE,	-118,	"users file permissions are too open") \
	X(EUSERSLOCK,	-119,	"users file stays locked by another program") \
	X(EUSERSTYPE,	-120,	"users file is not a regular file") \
	/* OTPW password lists */ \
	X(EOTPWMAGIC,	-150,	"not an OTPW file (no OTPW1 line)") \
	X(EOTPWPARAM,	-151,	"bad OTPW parameters line") \
	X(EOTPWENTRY,	-152,	"bad OTPW entry line") \
	X(EOTPWSIZE,	-153,	"OTPW file larger than 400 KiB") \
	X(EOTPWEMPTY,	-154,	"no unused one-time passwords left") \
	X(EOTPWFEW,	-155,	"fewer than 10 unused one-time passwords: no " \
	    "challenge while another login is in progress") \
	X(EOTPWCHAL,	-156,	"malformed challenge (NNN or NNN/NNN/NNN)") \
	X(EOTPWUNKNOWN,	-157,	"no unused entry has that number") \
	X(EOTPWPREFIX,	-158,	"the prefix password is empty") \
	X(EOTPWCOUNT,	-159,	"number of entries out of range 10..1000") \
	X(EOTPWOWNER,	-160,	"OTPW file has the wrong owner") \
	X(EOTPWMODE,	-161,	"OTPW file is writable by others") \
	X(EOTPWTYPE,	-162,	"OTPW file is not a regular file") \
	X(EOTPWLOCKED,	-163,	"another login holds the lock") \
	X(EOTPWTRAIL,	-164,	"data after the last OTPW entry") \
	/* RADIUS requests (lib/radius.c) */ \
	X(EUSERNAME,	-170,	"user name unfit to name a file (letters, " \
	    "digits, '.', '_', '-', '@', a final '$'; no leading '.' or '-')") \
	X(ERADIUSVALUE,	-171,	"malformed attribute value (quotes or " \
	    "backslash escapes)") \
	/* stores (lib/sys/store.c) */ \
	X(ESTORESCHEME,	-180,	"unknown store scheme (want ga:, oath:, " \
	    "otpw: or postgresql:)") \
	X(ESTOREURL,	-181,	"store URL names no path") \
	X(ESTOREOP,	-182,	"the store cannot do that") \
	X(ESTOREKEY,	-183,	"store key file is not 64 hex digits") \
	X(ESEALED,	-184,	"a stored secret does not decrypt (wrong " \
	    "store key, or a row moved to another user)") \
	X(ESTOREMODULE,	-185,	"the PostgreSQL store module cannot be " \
	    "loaded") \
	X(EDB,		-186,	"database error") \
	X(EDEADLINE,	-187,	"the store did not answer within the login " \
	    "deadline") \
	X(ESTOREROW,	-188,	"a stored token is malformed") \
	X(ESTORESCHEMA,	-189,	"the database has no otp-utils schema of a " \
	    "version this program reads (otp-store init)") \
	X(ECOMMIT,	-190,	"the commit's outcome is unknown: refused") \
	X(EWRONGKEY,	-191,	"the store key is not the one the database " \
	    "was initialised with") \
	X(EDISABLED,	-192,	"the token is disabled") \
	X(ECONVERT,	-195,	"the token cannot be held by the other store " \
	    "(a PIN, Mobile-OTP, 7 or 8 digits, or a step other than 30 or " \
	    "60 seconds)") \
	X(ERESYNC,	-194,	"the codes match no run of consecutive steps " \
	    "or counters, or more than one: give codes in a row") \
	X(ESTOREKEYMODE, -193,	"store key file is not a regular file of its " \
	    "owner's alone (mode 0600 or stricter, owned by this user or " \
	    "root)") \
	/* PSKC containers */ \
	X(EPSKC,	-130,	"malformed PSKC container") \
	X(EPSKCDTD,	-131,	"PSKC file has a DTD or entity references " \
	    "(refused: no entities are expanded)") \
	X(EPSKCSIZE,	-132,	"PSKC file larger than 1 MiB") \
	X(EPSKCTYPE,	-133,	"key type has no otpauth:// form (not HOTP or " \
	    "TOTP with HMAC-SHA1/256/512 and decimal codes)") \
	X(EPSKCTIME,	-134,	"key's start time is not 0: no otpauth:// form") \
	X(EPSKCDRIFT,	-135,	"key has a time drift: no otpauth:// form") \
	X(EPSKCNOKEY,	-136,	"the container is encrypted: a key or " \
	    "password is needed") \
	X(EPSKCWRONGKEY, -137,	"wrong key or password (the MAC key does not " \
	    "decrypt)") \
	X(EPSKCMAC,	-138,	"ValueMAC does not match: wrong key or " \
	    "tampered value") \
	X(EPSKCMETHOD,	-139,	"unknown encryption, MAC or key derivation " \
	    "algorithm") \
	X(EPSKCCIPHER,	-140,	"malformed encrypted value") \
	X(EPSKCNOSECRET, -141,	"key has no secret") \
	X(EPSKCVALUE,	-142,	"malformed value in key data") \
	X(EPSKCKDF,	-143,	"malformed PBKDF2 parameters") \
	X(EPSKCKEYLEN,	-144,	"key length does not fit the encryption " \
	    "algorithm") \
	X(EPSKCNOMAC,	-145,	"encrypted value without a MAC (a wrong key " \
	    "could not be told)") \
	X(EPSKCITER,	-146,	"PBKDF2 iteration count out of range") \
	X(EPSKCPLAIN,	-147,	"secret in plain text in an encrypted " \
	    "container (neither its key nor its MAC protects it)") \
	X(EPSKCUNENC,	-148,	"the container is not encrypted, but a key " \
	    "or password was given (its secrets are not protected)")

#endif /* OTP_ERRORS_H */
