/*
 * tz.c - the system's local time zone for the core's time parsing: the
 * rules TZ names (else /etc/localtime), through localtime_r().
 */
#include <time.h>

#include "sys.h"

_Static_assert(sizeof(time_t) == 8, "64-bit time_t is required");

static int
local_offset(void *arg, int64_t t, int32_t *off)
{
	time_t tt = (time_t)t;
	struct tm tm;

	(void)arg;
	if (localtime_r(&tt, &tm) == NULL)
		return OTP_ETIMERANGE;
	*off = (int32_t)tm.tm_gmtoff;
	return 0;
}

static const struct otp_zone local_zone = { local_offset, NULL };

const struct otp_zone *
sys_zone_local(void)
{
	/* localtime_r() need not look at TZ again; mktime() did, and a
	 * caller that changes TZ expects it read. */
	tzset();
	return &local_zone;
}
