/*
 * error.c - text for the OTP_E* codes.
 */
#include "otp.h"

static const struct {
	int		 code;
	const char	*text;
} errors[] = {
	{ OTP_OK,		"success" },
	{ OTP_EINVAL,		"invalid argument" },
	{ OTP_ERANGE,		"number out of range" },
	{ OTP_ENOSPACE,		"output buffer too small" },
	{ OTP_ETOOLONG,		"input too long" },
	{ OTP_EIO,		"input/output error" },
	{ OTP_EEMPTY,		"empty input" },
	{ OTP_ENUL,		"NUL byte in input" },
	{ OTP_ENOMEM,		"out of memory" },
	{ OTP_EBASE32,		"invalid Base32 character" },
	{ OTP_EBASE32LEN,	"impossible Base32 length" },
	{ OTP_EBASE32PAD,	"invalid Base32 padding" },
	{ OTP_EBASE32BITS,	"non-zero trailing bits in Base32" },
	{ OTP_EHEX,		"invalid hex character" },
	{ OTP_EHEXLEN,		"odd number of hex digits" },
	{ OTP_EBASE64,		"invalid base64" },
	{ OTP_EKEYEMPTY,	"key is empty" },
	{ OTP_EKEYLONG,		"key too long" },
	{ OTP_EALG,		"unknown algorithm" },
	{ OTP_EDIGITS,		"digits out of range 6..10" },
	{ OTP_ECOUNTER,		"counter must be a decimal from 0 to 18446744073709551615" },
	{ OTP_ESTEP,		"invalid time step" },
	{ OTP_EWINDOW,		"invalid window" },
	{ OTP_EBEFORESTART,	"time is before the start time" },
	{ OTP_ECODE,		"malformed one-time password" },
	{ OTP_ETIME,		"unrecognised time" },
	{ OTP_ETIMERANGE,	"time out of range" },
	{ OTP_EDURATION,	"unrecognised duration" },
	{ OTP_ETIMEFIELD,	"date or time field out of range" },
	{ OTP_ETIMEGAP,		"local time skipped by a clock change" },
	{ OTP_ETIMEAMBIG,	"signed offset after a time without a zone is ambiguous; add a zone such as UTC" },
	{ OTP_EURI,		"not an otpauth:// URI" },
	{ OTP_EURITYPE,		"URI type must be totp or hotp" },
	{ OTP_ENOSECRET,	"URI has no secret" },
	{ OTP_EURIESC,		"bad percent-encoding in URI" },
	{ OTP_EURIPARAM,	"malformed URI parameter" },
	{ OTP_EURILABEL,	"malformed URI label" },
	{ OTP_EUTF8,		"text is not valid UTF-8" },
	{ OTP_EURICTRL,		"control character in URI text" },
	{ OTP_EMIGRATION,	"not an otpauth-migration:// URI" },
	{ OTP_EPROTOBUF,	"malformed migration payload" },
	{ OTP_EMIGRATEUNSUP,	"parameter cannot be carried by the migration format" },
	{ OTP_EMIGRATIONDATA,	"migration URI has no data= parameter" },
	{ OTP_ESTATE,		"malformed state file" },
	{ OTP_ESTATESECRET,	"bad secret in state file" },
	{ OTP_ESTATEOPT,	"bad option line in state file" },
	{ OTP_ESTATESIZE,	"state file empty or larger than 64 KiB" },
	{ OTP_ESTATEOWNER,	"state file has the wrong owner" },
	{ OTP_ESTATEMODE,	"state file permissions are too open" },
	{ OTP_ESTATETYPE,	"state file is not a regular file" },
	{ OTP_ESTATECHANGED,	"state file changed during update" },
	{ OTP_ESTATEEXIST,	"file exists" },
	{ OTP_ERATELIMIT,	"too many attempts; rate limit reached" },
	{ OTP_EREADONLY,	"state file cannot be updated" },
	{ OTP_ELOCK,		"cannot lock state file" },
	{ OTP_EBUSY,		"state file is being rewritten by another program" },
};

const char *
otp_strerror(int err)
{
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].code == err)
			return errors[i].text;
	return "unknown error";
}
