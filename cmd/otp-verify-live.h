/*
 * otp-verify-live.h - otp-verify --interactive, the clock debugger
 * (cmd/otp-verify-live.c), as cmd/otp-verify.c calls it.  It calls
 * nothing of otp-verify.c: what both need is lib/'s.
 */
#ifndef OTP_VERIFY_LIVE_H
#define OTP_VERIFY_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "otp.h"
#include "otp_uri.h"

#define LIVE_AROUND_DEFAULT	3	/* steps shown either side of now */
#define LIVE_AROUND_MAX		30

/* What the debugger works on: a TOTP token, read only. */
struct live {
	const struct otp_uri *u;	/* key, algorithm, step */
	unsigned	 digits;	/* 0: each code's own length */
	int64_t		 start;		/* T0 */
	const char	*keytext;	/* the key as text, for the diagnosis */
	enum otp_keyenc	 enc;		/* and how to read it */
	int64_t		 lo, hi;	/* steps from now the verifier admits */
	uint64_t	 window;	/* the window a diagnosis starts from */
	const char	*source;	/* "the key" or the store, for the view */
	const char	*url;		/* the store's URL (no password), for
					 * the resync hint; NULL for a key */
	const char	*user;		/* its user, or "" */
	char		 rule[160];	/* where lo..hi comes from */
	unsigned	 around;	/* steps shown either side of now */
	int		 fake;		/* --now: a clock of our own */
	int64_t		 now;		/* its time at the start */
	int		 show_key;	/* --show-key */
};

/* Run the debugger: the live view when standard input and output are
 * terminals, else one answer line per line of standard input.  Returns
 * the exit status. */
int	live_run(const struct live *l);

#endif /* OTP_VERIFY_LIVE_H */
