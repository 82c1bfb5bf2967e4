/*
 * rowcache.h - the rows a long-lived host last wrote (rowcache.c), so
 * that the next login of the same user there starts without reading its
 * row: one round trip to the database in place of two.
 */
#ifndef OTP_ROWCACHE_H
#define OTP_ROWCACHE_H

#include <stddef.h>
#include <stdint.h>

/* What a row's seal binds besides its user and kind (schema.sql): its
 * generation, whether it is disabled, its wrong answers since the last
 * accept and the end of its lock-out (seconds since the epoch, 0 none). */
struct pg_meta {
	int64_t	 gen;
	int64_t	 locked;
	int32_t	 failures;
	int	 disabled;
};

/* A token's row as a login knows it: its kind, its sealed state and its
 * scratch codes' keyed hashes (nothing in it is a secret, as in a dump;
 * it is wiped all the same), and what the seal binds. */
struct pg_row {
	char		 kind[8];
	uint8_t		*state;
	size_t		 statelen;
	uint8_t		*scratch;
	size_t		 scratchlen;
	struct pg_meta	 m;
};

/* r holds copies of the three; 0, or OTP_ENOMEM with r empty. */
int pg_row_set(struct pg_row *r, const char *kind, const uint8_t *state,
    size_t statelen, const uint8_t *scratch, size_t scratchlen);
/* r wiped and emptied. */
void pg_row_clear(struct pg_row *r);

/* The row this process last kept for user at conninfo into r (empty
 * before), taken out: 1, or 0 when there is none. */
int rowcache_take(const char *conninfo, const char *user, struct pg_row *r);
/* Keep r, a row as this process has just written it, for user at
 * conninfo, in place of any other there; r is left empty.  Bounded: a
 * row may push out another one. */
void rowcache_keep(const char *conninfo, const char *user, struct pg_row *r);

/* The highest generation of user's row at conninfo this process has seen
 * before, 0 for none; gen is recorded when higher.  Bounded: a user may
 * be forgotten. */
int64_t rowcache_seen(const char *conninfo, const char *user, int64_t gen);

#endif /* OTP_ROWCACHE_H */
