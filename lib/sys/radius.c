/*
 * radius.c - a RADIUS request as FreeRADIUS's rlm_exec hands it to a
 * program: one environment variable per attribute (User-Name arrives as
 * USER_NAME), its value quoted and escaped as lib/radius.c undoes.
 */
#include <stdlib.h>

#include "otp.h"
#include "otp_radius.h"
#include "sys.h"

int
sys_radius_attr(const char *var, char *out, size_t outsz)
{
	const char *v;

	if ((v = getenv(var)) == NULL)
		return OTP_EEMPTY;
	return otp_radius_value(v, out, outsz);
}
