/*
 * error.c - text for the OTP_E* codes, from the one list in otp.h.
 */
#include "otp.h"

const char *
otp_strerror(int err)
{
	/* A switch: the compiler refuses a value the list holds twice. */
	switch (err) {
	case OTP_OK:
		return "success";
#define OTP_ERROR_TEXT_(name, value, text)	case OTP_##name: return text;
	OTP_ERRORS(OTP_ERROR_TEXT_)
#undef OTP_ERROR_TEXT_
	default:
		return "unknown error";
	}
}
