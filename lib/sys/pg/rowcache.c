/*
 * rowcache.c - the rows this process last wrote, by server and user.
 *
 * A login reads its row, decides, and writes the new row only over the
 * row as read (store_pg.c: a conditional UPDATE; every write seals with a
 * new nonce, so any other write in between makes it match nothing).  In
 * a long-lived host (FreeRADIUS's rlm_pam) the row a login wrote is
 * usually the row the same user's next login there finds: kept here, it
 * lets that login skip the read.  The write stays conditional, so a row
 * another server changed since (a code taken, a token disabled, removed
 * or replaced) matches nothing, and the login is decided again on the
 * row as it is.  A kept row is only ever a guess: nothing is refused on
 * it alone.
 *
 * Bounded (ROWCACHE_SLOTS rows, a slot per server and user by hash, a
 * newer row pushing out an older), thread-safe (a mutex; a row is taken
 * out while a login uses it, so two logins never start from one), and
 * fork-safe (a row belongs to the process that kept it).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fnv.h"
#include "otp.h"
#include "rowcache.h"

#define ROWCACHE_SLOTS	4096
#define SEEN_SLOTS	65536

struct entry {
	char		*conninfo;
	char		*user;
	pid_t		 pid;
	struct pg_row	 row;
};

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry cache[ROWCACHE_SLOTS];
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* The generations seen, by a 64-bit hash of server and user: a row
 * older than one seen here is one written back (store_pg.c).  A child
 * of fork() saw what its parent saw: the marks stay true there. */
static struct {
	uint64_t	key;
	int64_t		gen;
} seen[SEEN_SLOTS];

/* fork() with the mutex held by another thread would leave it locked in
 * the child: hold it across the fork.  The child's rows stay where they
 * are, not its own (pid): never used, freed when pushed out. */
static void
fork_prepare(void)
{
	(void)pthread_mutex_lock(&cache_mu);
}

static void
fork_release(void)
{
	(void)pthread_mutex_unlock(&cache_mu);
}

static void
fork_register(void)
{
	(void)pthread_atfork(fork_prepare, fork_release, fork_release);
}

int
pg_row_set(struct pg_row *r, const char *kind, const uint8_t *state,
    size_t statelen, const uint8_t *scratch, size_t scratchlen)
{
	memset(r, 0, sizeof(*r));
	if ((r->state = malloc(statelen + 1)) == NULL ||
	    (r->scratch = malloc(scratchlen + 1)) == NULL) {
		free(r->state);
		r->state = NULL;
		return OTP_ENOMEM;
	}
	(void)snprintf(r->kind, sizeof(r->kind), "%s", kind);
	memcpy(r->state, state, statelen);
	r->statelen = statelen;
	if (scratchlen > 0)
		memcpy(r->scratch, scratch, scratchlen);
	r->scratchlen = scratchlen;
	return 0;
}

void
pg_row_clear(struct pg_row *r)
{
	if (r->state != NULL) {
		otp_wipe(r->state, r->statelen);
		free(r->state);
	}
	if (r->scratch != NULL) {
		otp_wipe(r->scratch, r->scratchlen);
		free(r->scratch);
	}
	memset(r, 0, sizeof(*r));
}

static void
entry_clear(struct entry *e)
{
	free(e->conninfo);
	free(e->user);
	pg_row_clear(&e->row);
	memset(e, 0, sizeof(*e));
}

/* FNV-1a over conninfo, a NUL, and user. */
static uint64_t
hash_of(const char *conninfo, const char *user)
{
	uint64_t h = fnv1a64(FNV64_BASIS, conninfo) * 0x100000001b3ULL;

	return fnv1a64(h, user);
}

static size_t
slot_of(const char *conninfo, const char *user)
{
	return (size_t)(hash_of(conninfo, user) % ROWCACHE_SLOTS);
}

int64_t
rowcache_seen(const char *conninfo, const char *user, int64_t gen)
{
	uint64_t key = hash_of(conninfo, user) | 1;	/* 0: an empty slot */
	size_t i = (size_t)(key % SEEN_SLOTS);
	int64_t was = 0;

	(void)pthread_once(&fork_once, fork_register);
	(void)pthread_mutex_lock(&cache_mu);
	if (seen[i].key == key)
		was = seen[i].gen;
	else {
		seen[i].key = key;
		seen[i].gen = 0;
	}
	if (gen > seen[i].gen)
		seen[i].gen = gen;
	(void)pthread_mutex_unlock(&cache_mu);
	return was;
}

int
rowcache_take(const char *conninfo, const char *user, struct pg_row *r)
{
	struct entry *e = &cache[slot_of(conninfo, user)];
	int hit = 0;

	(void)pthread_once(&fork_once, fork_register);
	memset(r, 0, sizeof(*r));
	(void)pthread_mutex_lock(&cache_mu);
	if (e->user != NULL && e->pid == getpid() &&
	    strcmp(e->user, user) == 0 &&
	    strcmp(e->conninfo, conninfo) == 0) {
		*r = e->row;
		memset(&e->row, 0, sizeof(e->row));
		entry_clear(e);
		hit = 1;
	}
	(void)pthread_mutex_unlock(&cache_mu);
	return hit;
}

void
rowcache_keep(const char *conninfo, const char *user, struct pg_row *r)
{
	struct entry n, *e = &cache[slot_of(conninfo, user)];

	(void)pthread_once(&fork_once, fork_register);
	memset(&n, 0, sizeof(n));
	if ((n.conninfo = strdup(conninfo)) == NULL ||
	    (n.user = strdup(user)) == NULL) {
		free(n.conninfo);
		pg_row_clear(r);
		return;
	}
	n.pid = getpid();
	n.row = *r;
	memset(r, 0, sizeof(*r));
	(void)pthread_mutex_lock(&cache_mu);
	entry_clear(e);
	*e = n;
	(void)pthread_mutex_unlock(&cache_mu);
}
