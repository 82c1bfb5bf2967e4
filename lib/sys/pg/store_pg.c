/*
 * store_pg.c - PostgreSQL as a store (postgresql://..., postgres://...):
 * many users' tokens in one database that any number of verifiers share.
 * Built into its own loadable object, store-pg.so, the only code that
 * links libpq; lib/sys/store.c loads it when a URL names it.
 *
 * A token is a row of otp_tokens (schema.sql): the user name as bytea,
 * its kind, whether it is disabled, its state — a state file image as
 * otp-state(5) describes, without its scratch codes, sealed under the
 * store key with the user, kind, generation, disabled flag, failures and
 * lock-out as associated data (assoc) — and its scratch codes as keyed
 * hashes.  A login is one transaction with the user's row locked
 * (SELECT ... FOR UPDATE): the row read, the state file engine's login
 * run over the image at the time read once the lock is held, the
 * attempt limit applied (limit), the new row written with the next
 * generation and an otp_log entry, COMMIT.  So any number of servers
 * accept a code, use a scratch code, move a counter or count a try
 * exactly once between them.  Anything that goes wrong — no server, the
 * deadline, a row that does not open or is older than one this process
 * has seen, a COMMIT that fails or does not come back — is a refusal,
 * never an accept.  Every statement has parameters; no SQL is ever built
 * from a string.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "otp.h"
#include "otp_seal.h"
#include "otp_state.h"
#include "pgconn.h"
#include "rowcache.h"
#include "schema.h"
#include "store_int.h"

#define SCHEMA_VERSION	2
#define USER_MAX	255		/* bytes of a login (schema.sql) */
#define SCRATCH_MAX	64		/* scratch codes one row keeps */
#define SEALED_MAX	(OTP_STATE_MAX + OTP_SEAL_OVERHEAD)
#define AD_MAX		(64 + USER_MAX)
#define KIND_MAX	7		/* bytes of a kind (struct pg_row) */
#define SCRATCH_BYTES	(SCRATCH_MAX * OTP_SEAL_HASHLEN)
#define FROM_MAX	160		/* bytes of otp_log.server */
#define LOG_TEXT_MAX	512		/* bytes of an otp_log text shown */
/* A bytea of n bytes as text: "\x" and hex, or at most 4 characters a
 * byte (bytea_output = escape). */
#define BYTEA_TEXT(n)	(2 + 4 * (size_t)(n))

/* The columns of a row a login reads, in the order row_of takes them. */
#define ROW_COLS	"kind, disabled, state, scratch, gen, failures, " \
	"locked_until"

/* The open store: where, and the keys once read. */
struct pg_store {
	char			*conninfo;
	int			 keyed;		/* keys read */
	struct otp_seal_keys	 keys;
};

/* How far each buffer of a pg_login was ever written. */
struct pg_used {
	size_t	img, out, body, sealed, scratch, codes;
};

/*
 * One login's buffers (they hold secrets: wiped at the end).  ~450 KiB
 * for the largest image, where a row's image is some hundred bytes: a
 * login wipes only as far as each buffer was written (used), as the
 * state file's does (statefile.c), not the whole of it at every login.
 * A call that fails counts as having written all of its buffer; one that
 * succeeds wrote its output's length (the engine zeroes what an edit
 * frees: state.c's splice).
 */
struct pg_login {
	char	img[OTP_STATE_OUTMAX];		/* opened state + scratch */
	char	out[OTP_STATE_OUTMAX];		/* the engine's new image */
	char	body[OTP_STATE_OUTMAX];		/* out without scratch */
	uint8_t	sealed[SEALED_MAX];
	uint8_t	scratch[SCRATCH_MAX * OTP_SEAL_HASHLEN];
	uint32_t codes[SCRATCH_MAX];
	struct pg_used used;
};

/* *at = max(*at, n): how far a buffer has been written. */
static void
used(size_t *at, size_t n)
{
	if (n > *at)
		*at = n;
}

/* What rewrite() changes of a row. */
enum rewrite {
	RW_ENABLE,
	RW_DISABLE,
	RW_UNLOCK,
	RW_RESEAL,		/* every row: a generation above any seen */
	RW_UPGRADE,		/* every row of schema version 1 */
};

static int rewrite(struct sys_store *, struct pgc *, const char *,
    enum rewrite, unsigned long *);
static void wipe_used(struct pg_login *);
static void audit(struct sys_login *, const struct sys_verdict *, int);
static int user_exec(struct sys_store *, const char *, const char *,
    PGresult **);

/* ---- store key ------------------------------------------------------ */

/* Read the key file: a regular file, this user's or root's, no access
 * for group or others (as ssh's keys). */
static int
read_key(struct sys_store *s, struct pg_store *ps)
{
	const char *path = s->cfg.store_key != NULL ? s->cfg.store_key :
	    SYS_STORE_KEY;
	uint8_t master[OTP_SEAL_KEYLEN];
	char text[2 * OTP_SEAL_KEYLEN + 2];
	struct stat st;
	ssize_t n;
	int fd, rc;

	if (ps->keyed)
		return 0;
	/* O_NONBLOCK: a FIFO put there opens at once (and is refused as no
	 * regular file), where a login would wait for a writer for ever. */
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) < 0) {
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s: "
		    "%s", path, errno == ELOOP ? "a symbolic link (not "
		    "followed)" : strerror(errno));
		return OTP_EIO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_mode & 077) != 0 ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		(void)close(fd);
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s",
		    path);
		return OTP_ESTOREKEYMODE;
	}
	n = read(fd, text, sizeof(text));
	(void)close(fd);
	if (n < 0) {
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s: "
		    "%s", path, strerror(errno));
		return OTP_EIO;
	}
	rc = otp_seal_key_parse(text, (size_t)n, master);
	otp_wipe(text, sizeof(text));
	if (rc != 0) {
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s",
		    path);
		return rc;
	}
	otp_seal_keys_init(&ps->keys, master);
	otp_wipe(master, sizeof(master));
	ps->keyed = 1;
	return 0;
}

/* A new key file at path, mode 0600, never over an existing one. */
static int
make_key(struct sys_store *s, int *made)
{
	const char *path = s->cfg.store_key != NULL ? s->cfg.store_key :
	    SYS_STORE_KEY;
	uint8_t master[OTP_SEAL_KEYLEN];
	char text[2 * OTP_SEAL_KEYLEN + 2], *slash, dir[PATH_MAX];
	struct stat st;
	int rc;

	*made = 0;
	if (lstat(path, &st) == 0)
		return 0;
	if (errno != ENOENT) {
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s: "
		    "%s", path, strerror(errno));
		return OTP_EIO;
	}
	/* The default's directory may not exist yet: make it, 0755. */
	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) < sizeof(dir) &&
	    (slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			(void)snprintf(s->reason, sizeof(s->reason), "%.200s: "
			    "%s", dir, strerror(errno));
			return OTP_EIO;
		}
	}
	if ((rc = sys_random_bytes(master, sizeof(master))) != 0)
		return rc;
	(void)otp_hex_encode(master, sizeof(master), text, sizeof(text));
	otp_wipe(master, sizeof(master));
	text[2 * OTP_SEAL_KEYLEN] = '\n';
	rc = sys_create(path, text, 2 * OTP_SEAL_KEYLEN + 1, 0600, 0,
	    OTP_ESTATETYPE);
	otp_wipe(text, sizeof(text));
	if (rc != 0) {
		(void)snprintf(s->reason, sizeof(s->reason), "store key %s: "
		    "%s", path, rc == OTP_EIO ? strerror(errno) :
		    otp_strerror(rc));
		return rc;
	}
	*made = 1;
	return 0;
}

/* ---- rows ------------------------------------------------------------ */

/* n big-endian bytes of v at p. */
static size_t
put_be(char *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(v >> (8 * (n - 1 - i)));
	return n;
}

/* What a row's seal binds: the store, the kind, the row's generation,
 * whether it is disabled, its failures and lock-out, and the user.  A
 * row of schema version 1 (gen 0) bound the kind and the user alone;
 * only init and reseal open one, to seal it anew.  A kind is at most
 * KIND_MAX bytes, a user USER_MAX (col_kind, the callers). */
static size_t
assoc(char *ad, const char *user, size_t ulen, const char *kind,
    const struct pg_meta *m)
{
	size_t n, k = strnlen(kind, KIND_MAX);

	if (m->gen == 0) {
		memcpy(ad, "otp-utils pg 1", 15);	/* with its NUL */
		n = 15;
	} else {
		memcpy(ad, "otp-utils pg 2", 15);
		n = 15;
	}
	memcpy(ad + n, kind, k);
	ad[n + k] = '\0';
	n += k + 1;
	if (m->gen != 0) {
		n += put_be(ad + n, (uint64_t)m->gen, 8);
		ad[n++] = m->disabled ? 1 : 0;
		n += put_be(ad + n, (uint32_t)m->failures, 4);
		n += put_be(ad + n, (uint64_t)m->locked, 8);
	}
	memcpy(ad + n, user, ulen);
	return n + ulen;
}

/* A new token's generation, and the least one after a restore (reseal):
 * microseconds of the real clock, above any a write has made before. */
static int64_t
gen_now(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* A text-format bytea ("\x" and hex) into out; its length or -1. */
/* A bytea as text into out, whatever the server's bytea_output: "\x"
 * and hex, or the escape format (printable bytes as themselves, "\\"
 * for a backslash, "\ooo" for the others); its length, or -1 (a bad
 * text, or more than outsz). */
static long
bytea_in(const char *text, size_t n, uint8_t *out, size_t outsz)
{
	size_t len = 0, off, i;

	if (n >= 2 && text[0] == '\\' && text[1] == 'x') {
		if (n == 2)
			return 0;
		if (otp_hex_decode(text + 2, n - 2, out, outsz, &len, &off) !=
		    0)
			return -1;
		return (long)len;
	}
	for (i = 0; i < n; len++) {
		if (len == outsz)
			return -1;
		if (text[i] != '\\') {
			out[len] = (uint8_t)text[i++];
			continue;
		}
		if (i + 1 < n && text[i + 1] == '\\') {
			out[len] = '\\';
			i += 2;
			continue;
		}
		if (n - i < 4)
			return -1;
		if (text[i + 1] < '0' || text[i + 1] > '3' ||
		    text[i + 2] < '0' || text[i + 2] > '7' ||
		    text[i + 3] < '0' || text[i + 3] > '7')
			return -1;
		out[len] = (uint8_t)((text[i + 1] - '0') << 6 |
		    (text[i + 2] - '0') << 3 | (text[i + 3] - '0'));
		i += 4;
	}
	return (long)len;
}

/* The bytea in row and col of r into out: its length, or -1 (no such
 * field, NULL, bad, or longer than outsz). */
static long
col_bytea(const PGresult *r, int row, int col, uint8_t *out, size_t outsz)
{
	size_t n;
	const char *t = pgc_text(r, row, col, BYTEA_TEXT(outsz), &n);

	return t == NULL ? -1 : bytea_in(t, n, out, outsz);
}

/* The kind in row and col of r, or NULL (none, or longer than a kind). */
static const char *
col_kind(const PGresult *r, int row, int col)
{
	return pgc_text(r, row, col, KIND_MAX, NULL);
}

/* A boolean in row and col of r: 1, 0, or -1 (none). */
static int
col_bool(const PGresult *r, int row, int col)
{
	const char *t = pgc_text(r, row, col, 1, NULL);

	return t == NULL ? -1 : t[0] == 't';
}

/* Row i of r (ROW_COLS as text from column off) into row; a result of
 * fewer rows or columns (a server's answer is no bound) is a bad row. */
static int
row_at(const PGresult *r, int i, int off, struct pg_row *row)
{
	const char *kind = col_kind(r, i, off), *v[3];
	int j, dis;
	size_t stsz, scsz;
	long m, k;

	memset(row, 0, sizeof(*row));
	/* Numbers of at most 20 digits and a sign. */
	for (j = 0; j < 3; j++)
		if ((v[j] = pgc_text(r, i, off + 4 + j, 21, NULL)) == NULL)
			return OTP_ESTOREROW;
	/* Buffers as long as the text at most: a row is some hundred
	 * bytes, the largest state much more. */
	if (kind == NULL || (dis = col_bool(r, i, off + 1)) < 0 ||
	    pgc_text(r, i, off + 2, BYTEA_TEXT(SEALED_MAX), &stsz) == NULL ||
	    pgc_text(r, i, off + 3, BYTEA_TEXT(SCRATCH_BYTES), &scsz) == NULL)
		return OTP_ESTOREROW;
	stsz = stsz < SEALED_MAX ? stsz + 1 : SEALED_MAX;
	scsz = scsz < SCRATCH_BYTES ? scsz + 1 : SCRATCH_BYTES;
	(void)snprintf(row->kind, sizeof(row->kind), "%s", kind);
	row->m.disabled = dis;
	row->m.gen = strtoll(v[0], NULL, 10);
	row->m.failures = (int32_t)strtol(v[1], NULL, 10);
	row->m.locked = strtoll(v[2], NULL, 10);
	if ((row->state = malloc(stsz)) == NULL ||
	    (row->scratch = malloc(scsz)) == NULL) {
		pg_row_clear(row);
		return OTP_ENOMEM;
	}
	m = col_bytea(r, i, off + 2, row->state, stsz);
	k = col_bytea(r, i, off + 3, row->scratch, scsz);
	if (m < 0 || k < 0) {
		pg_row_clear(row);
		return OTP_ESTOREROW;
	}
	row->statelen = (size_t)m;
	row->scratchlen = (size_t)k;
	return 0;
}

/* ROW_COLS of r's first row from column off into row. */
static int
row_of(const PGresult *r, int off, struct pg_row *row)
{
	return row_at(r, 0, off, row);
}

static const char *
kind_of(enum otp_state_mode m)
{
	return m == OTP_STATE_HOTP ? "hotp" : "totp";
}

/* The scratch code's keyed hash for user. */
static void
scratch_hash(const struct pg_store *ps, const char *user, size_t ulen,
    uint32_t code, uint8_t out[OTP_SEAL_HASHLEN])
{
	char text[12];

	(void)snprintf(text, sizeof(text), "%08" PRIu32, code);
	otp_seal_hash(&ps->keys, user, ulen, text, 8, out);
	otp_wipe(text, sizeof(text));
}

/* The message for a failed database call, on the store or the login. */
static int
db_fail(char *reason, size_t n, const struct pgc *p, int rc)
{
	(void)snprintf(reason, n, "%s", p->why);
	return rc;
}

/* p failed for want of a table or a column: a store of no schema, or of
 * an older one (otp-store init makes it, or brings it up). */
static int
no_schema(const struct pgc *p)
{
	return strncmp(p->why, "42P01", 5) == 0 ||
	    strncmp(p->why, "42703", 5) == 0;
}

/* A statement outside a login: connect, run, give the connection back. */
static int
admin_exec(struct sys_store *s, struct pgc *p, const char *sql, int n,
    const char *const *vals, const int *lens, const int *fmts,
    PGresult **res)
{
	int rc;

	if (p->c == NULL && (rc = pgc_get(p)) != 0)
		return db_fail(s->reason, sizeof(s->reason), p, rc);
	rc = pgc_exec(p, sql, n, vals, lens, fmts, res, NULL);
	if (rc != 0)
		return db_fail(s->reason, sizeof(s->reason), p, rc);
	return 0;
}

static void
pgc_start(struct pgc *p, const struct sys_store *s)
{
	const struct pg_store *ps = s->impl;

	memset(p, 0, sizeof(*p));
	p->conninfo = ps->conninfo;
	p->deadline = pgc_now_ms() + (s->cfg.deadline_ms != 0 ?
	    s->cfg.deadline_ms : SYS_STORE_DEADLINE);
}

/* The schema is there, of our version, and the key is the one it was
 * initialised with. */
static int
check_schema(struct sys_store *s, struct pgc *p)
{
	struct pg_store *ps = s->impl;
	uint8_t check[OTP_SEAL_HASHLEN + 8];
	const char *v;
	PGresult *r;
	long n;
	int rc;

	rc = admin_exec(s, p, "SELECT version, key_check FROM otp_schema",
	    0, NULL, NULL, NULL, &r);
	if (rc != 0) {
		if (strncmp(p->why, "42P01", 5) == 0)	/* no such table */
			return OTP_ESTORESCHEMA;
		return rc;
	}
	if (PQntuples(r) != 1 || (v = pgc_text(r, 0, 0, 16, NULL)) == NULL ||
	    strtol(v, NULL, 10) != SCHEMA_VERSION || pgc_null(r, 0, 1)) {
		PQclear(r);
		return OTP_ESTORESCHEMA;
	}
	n = col_bytea(r, 0, 1, check, sizeof(check));
	PQclear(r);
	if (n != OTP_SEAL_HASHLEN ||
	    !otp_ct_equal(check, ps->keys.check, OTP_SEAL_HASHLEN))
		return OTP_EWRONGKEY;
	return 0;
}

/* ---- the store as a whole ------------------------------------------- */

/* Keep the URL (store.c shows it without a password). */
static int
pg_open(struct sys_store *s, const char *url)
{
	struct pg_store *ps;

	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return OTP_ENOMEM;
	if ((ps->conninfo = strdup(url)) == NULL) {
		free(ps);
		return OTP_ENOMEM;
	}
	s->impl = ps;
	/* HOTP as RFC 4226 §7.2 says: the counter moves only on an accept
	 * (a wrong code from anyone must not push a token out of reach). */
	s->cfg.ga.flags |= OTP_STATE_NOINCRHOTP;
	return 0;
}

static void
pg_close(struct sys_store *s)
{
	struct pg_store *ps = s->impl;

	if (ps == NULL)
		return;
	otp_seal_keys_wipe(&ps->keys);
	if (ps->conninfo != NULL) {
		otp_wipe(ps->conninfo, strlen(ps->conninfo));
		free(ps->conninfo);
	}
	free(ps);
	s->impl = NULL;
}

static int
pg_init(struct sys_store *s, int *made)
{
	struct pg_store *ps = s->impl;
	const char *vals[1];
	int lens[1], fmts[1] = { 1 };
	unsigned long n;
	struct pgc p;
	PGresult *r;
	int rc;

	if ((rc = make_key(s, made)) != 0)
		return rc;
	if ((rc = read_key(s, ps)) != 0)
		goto unmake;
	pgc_start(&p, s);
	if ((rc = admin_exec(s, &p, "BEGIN", 0, NULL, NULL, NULL, &r)) != 0)
		goto out;
	PQclear(r);
	/* The script as a DBA would run it (schema.sql, built in). */
	if ((rc = admin_exec(s, &p, otp_pg_schema, -1, NULL, NULL, NULL,
	    &r)) != 0)
		goto out;
	PQclear(r);
	vals[0] = (const char *)ps->keys.check;
	lens[0] = OTP_SEAL_HASHLEN;
	if ((rc = admin_exec(s, &p, "UPDATE otp_schema SET key_check = $1 "
	    "WHERE key_check IS NULL", 1, vals, lens, fmts, &r)) != 0)
		goto out;
	PQclear(r);
	if ((rc = check_schema(s, &p)) != 0)
		goto out;
	/* A version-1 store's rows, sealed anew for version 2. */
	if ((rc = rewrite(s, &p, NULL, RW_UPGRADE, &n)) != 0)
		goto out;
	rc = admin_exec(s, &p, "COMMIT", 0, NULL, NULL, NULL, &r);
	if (rc == 0)
		PQclear(r);
out:
	if (rc != 0)
		p.broken = 1;	/* an open transaction is rolled back */
	pgc_put(&p);
unmake:
	/* All or nothing: a key made for a database that was not set up
	 * goes (the next init makes one and says so). */
	if (rc != 0 && *made) {
		(void)unlink(s->cfg.store_key != NULL ? s->cfg.store_key :
		    SYS_STORE_KEY);
		*made = 0;
	}
	return rc;
}

/* Seal body for user, kind and m into the login's buffer; its length. */
static int
seal_body(const struct pg_store *ps, struct pg_login *pl, const char *user,
    size_t ulen, const char *kind, const struct pg_meta *m, size_t bodylen,
    size_t *sealedlen)
{
	uint8_t nonce[OTP_SEAL_NONCELEN];
	char ad[AD_MAX];
	size_t adlen = assoc(ad, user, ulen, kind, m);
	int rc;

	if ((rc = sys_random_bytes(nonce, sizeof(nonce))) != 0)
		return rc;
	rc = otp_seal(&ps->keys, nonce, ad, adlen, pl->body, bodylen,
	    pl->sealed, sizeof(pl->sealed), sealedlen);
	used(&pl->used.sealed, rc == 0 ? *sealedlen : sizeof(pl->sealed));
	return rc;
}

/* A new token: r->img is a whole state file image. */
static int
pg_put(struct sys_store *s, const char *user, const struct sys_record *r,
    int force, int *note)
{
	static const char *const sql[2] = {
		"INSERT INTO otp_tokens (login, kind, state, scratch, gen) "
		"VALUES ($1, $2, $3, $4, $5) ON CONFLICT (login) DO NOTHING",
		"INSERT INTO otp_tokens (login, kind, state, scratch, gen) "
		"VALUES ($1, $2, $3, $4, $5) ON CONFLICT (login) DO UPDATE "
		"SET kind = $2, state = $3, scratch = $4, gen = $5, "
		"disabled = false, failures = 0, locked_until = 0, "
		"created = now(), last_used = NULL, last_from = NULL, "
		"uses = 0",
	};
	struct pg_store *ps = s->impl;
	struct pg_login *pl;
	struct otp_state *st = NULL;
	struct pg_meta m = { gen_now(), 0, 0, 0 };
	const char *vals[5], *kind;
	char gen[24];
	int lens[5], fmts[5] = { 1, 0, 1, 1, 0 };
	size_t ulen, bodylen, n, i, sealedlen;
	struct pgc p;
	PGresult *res;
	int rc;

	(void)note;
	if (user == NULL || (ulen = strlen(user)) == 0 || ulen > USER_MAX)
		return OTP_EUSERSFIELD;
	if (r->img == NULL || r->len == 0 || r->len > OTP_STATE_MAX)
		return OTP_EINVAL;
	if ((rc = read_key(s, ps)) != 0)
		return rc;
	pl = calloc(1, sizeof(*pl));
	st = calloc(1, sizeof(*st));
	if (pl == NULL || st == NULL) {
		rc = OTP_ENOMEM;
		goto out;
	}
	if ((rc = otp_state_parse(r->img, r->len, st)) != 0)
		goto out;
	if (st->mode == OTP_STATE_SCRATCHONLY) {
		(void)snprintf(s->reason, sizeof(s->reason), "a token of "
		    "scratch codes only (neither TOTP nor HOTP)");
		rc = OTP_ESTOREOP;
		goto out;
	}
	kind = kind_of(st->mode);
	rc = otp_state_unscratch(r->img, r->len, pl->body, sizeof(pl->body),
	    &bodylen, pl->codes, SCRATCH_MAX, &n);
	if (rc != 0)
		goto out;
	/* A shared store refuses a TOTP code twice, whatever the file
	 * said: that is what sharing it is for. */
	if (st->mode == OTP_STATE_TOTP && !st->disallow_reuse &&
	    (rc = otp_state_set_option(pl->body, &bodylen, sizeof(pl->body),
	    "DISALLOW_REUSE", "")) != 0)
		goto out;
	for (i = 0; i < n; i++)
		scratch_hash(ps, user, ulen, pl->codes[i],
		    pl->scratch + i * OTP_SEAL_HASHLEN);
	/* A token replaced: above the generation it replaces, whatever the
	 * clocks of the hosts that wrote it said (a host refuses a row
	 * older than one it has seen). */
	if (force && (rc = user_exec(s, "SELECT gen FROM otp_tokens WHERE "
	    "login = $1", user, &res)) == 0) {
		const char *g = pgc_text(res, 0, 0, 21, NULL);

		if (g != NULL && strtoll(g, NULL, 10) >= m.gen)
			m.gen = strtoll(g, NULL, 10) + 1;
		PQclear(res);
	} else if (force)
		goto out;
	if ((rc = seal_body(ps, pl, user, ulen, kind, &m, bodylen,
	    &sealedlen)) != 0)
		goto out;
	(void)snprintf(gen, sizeof(gen), "%" PRId64, m.gen);
	vals[4] = gen;
	lens[4] = 0;
	vals[0] = user;
	lens[0] = (int)ulen;
	vals[1] = kind;
	lens[1] = 0;
	vals[2] = (const char *)pl->sealed;
	lens[2] = (int)sealedlen;
	vals[3] = (const char *)pl->scratch;
	lens[3] = (int)(n * OTP_SEAL_HASHLEN);
	pgc_start(&p, s);
	if ((rc = check_schema(s, &p)) == 0 &&
	    (rc = admin_exec(s, &p, sql[force != 0], 5, vals, lens, fmts,
	    &res)) == 0) {
		if (strcmp(PQcmdTuples(res), "1") != 0)
			rc = OTP_ESTATEEXIST;
		PQclear(res);
	}
	pgc_put(&p);
out:
	if (pl != NULL)
		otp_wipe(pl, sizeof(*pl));
	if (st != NULL)
		otp_wipe(st, sizeof(*st));
	free(pl);
	free(st);
	return rc;
}

/* One statement whose one parameter is user, outside a login: *r for the
 * caller to PQclear. */
static int
user_exec(struct sys_store *s, const char *sql, const char *user,
    PGresult **r)
{
	const char *vals[1] = { user };
	int lens[1] = { (int)strlen(user) }, fmts[1] = { 1 };
	struct pgc p;
	int rc;

	if (lens[0] == 0 || lens[0] > USER_MAX)
		return OTP_EUSERSFIELD;
	pgc_start(&p, s);
	rc = admin_exec(s, &p, sql, 1, vals, lens, fmts, r);
	pgc_put(&p);
	return rc;
}

static int
pg_has(struct sys_store *s, const char *user)
{
	PGresult *r;
	int rc;

	rc = user_exec(s, "SELECT 1 FROM otp_tokens WHERE login = $1", user,
	    &r);
	if (rc == 0) {
		rc = PQntuples(r) > 0;
		PQclear(r);
	}
	return rc;
}

struct list_arg {
	sys_store_each_fn	*fn;
	void			*arg;
	char			 user[USER_MAX + 1];
};

static int
list_row(void *arg, const PGresult *r)
{
	struct list_arg *la = arg;
	struct sys_store_entry e;
	const char *v[10];
	long n;
	int i;

	memset(&e, 0, sizeof(e));
	/* Numbers of at most 20 digits and a sign; last_used may be NULL. */
	for (i = 3; i < 9; i++)
		if ((v[i] = pgc_text(r, 0, i, 21, NULL)) == NULL &&
		    !(i == 5 && pgc_null(r, 0, i)))
			return OTP_ESTOREROW;
	if ((v[9] = pgc_text(r, 0, 9, FROM_MAX, NULL)) == NULL &&
	    !pgc_null(r, 0, 9))
		return OTP_ESTOREROW;
	n = col_bytea(r, 0, 0, (uint8_t *)la->user, USER_MAX);
	if (n <= 0 || (e.kind = col_kind(r, 0, 1)) == NULL ||
	    (i = col_bool(r, 0, 2)) < 0)
		return OTP_ESTOREROW;
	la->user[n] = '\0';
	e.user = la->user;
	e.userlen = (size_t)n;
	e.disabled = i;
	e.nscratch = (unsigned)strtoul(v[3], NULL, 10);
	e.created = strtoll(v[4], NULL, 10);
	e.last_used = v[5] == NULL ? -1 : strtoll(v[5], NULL, 10);
	e.uses = strtoull(v[6], NULL, 10);
	e.failures = (unsigned)strtoul(v[7], NULL, 10);
	e.locked_until = strtoll(v[8], NULL, 10);
	e.last_from = v[9];
	return la->fn(la->arg, &e);
}

static int
pg_list(struct sys_store *s, sys_store_each_fn *fn, void *arg)
{
	struct list_arg la = { fn, arg, { 0 } };
	struct pgc p;
	int rc;

	pgc_start(&p, s);
	/* A listing may be long: no login deadline, a minute a page. */
	p.deadline = pgc_now_ms() + 3600 * 1000;
	if ((rc = pgc_get(&p)) != 0)
		return db_fail(s->reason, sizeof(s->reason), &p, rc);
	rc = pgc_each(&p, "SELECT login, kind, disabled, "
	    "octet_length(scratch) / 32, "
	    "extract(epoch FROM created)::bigint, "
	    "extract(epoch FROM last_used)::bigint, uses, failures, "
	    "locked_until, last_from "
	    "FROM otp_tokens ORDER BY login", 0, NULL, NULL, NULL,
	    list_row, &la);
	if (rc == OTP_EDB || rc == OTP_EDEADLINE) {
		if (no_schema(&p))
			rc = OTP_ESTORESCHEMA;
		(void)db_fail(s->reason, sizeof(s->reason), &p, rc);
	}
	pgc_put(&p);
	return rc;
}

/* ---- rows sealed anew: enable, disable, unlock, reseal, upgrade ----- */


/* Who decides, for the audit trail: this host's name and the front
 * end's origin, printable ASCII only (the column is text). */
static void
origin(const struct sys_store *s, char *out, size_t outsz)
{
	char host[128];
	size_t i;

	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	(void)snprintf(out, outsz, "%s%s%s", host, s->cfg.origin != NULL &&
	    *host != '\0' ? " " : "", s->cfg.origin != NULL ?
	    s->cfg.origin : "");
	for (i = 0; out[i] != '\0'; i++)
		if ((unsigned char)out[i] < 0x20 ||
		    (unsigned char)out[i] > 0x7e)
			out[i] = '?';
}

/* The row and, with it, an audit entry. */
static int
pg_remove(struct sys_store *s, const char *user)
{
	char from[FROM_MAX];
	const char *vals[2] = { user, from };
	int lens[2] = { (int)strlen(user), 0 }, fmts[2] = { 1, 0 };
	struct pgc p;
	PGresult *r;
	int rc;

	if (lens[0] == 0 || lens[0] > USER_MAX)
		return OTP_EUSERSFIELD;
	origin(s, from, sizeof(from));
	pgc_start(&p, s);
	rc = admin_exec(s, &p, "WITH d AS (DELETE FROM otp_tokens WHERE "
	    "login = $1 RETURNING login) INSERT INTO otp_log (login, server, "
	    "outcome, reason) SELECT login, $2, 'admin', 'removed' FROM d", 2,
	    vals, lens, fmts, &r);
	if (rc == 0) {
		if (strcmp(PQcmdTuples(r), "0") == 0)
			rc = OTP_EUSERSUNKNOWN;
		PQclear(r);
	}
	pgc_put(&p);
	return rc;
}

/* Open row, user's as read, and seal it anew with nm into b->sealed. */
static int
reseal(const struct pg_store *ps, struct pg_login *b, const char *user,
    size_t ulen, const struct pg_row *row, const struct pg_meta *nm,
    size_t *sealedlen)
{
	char ad[AD_MAX];
	size_t adlen = assoc(ad, user, ulen, row->kind, &row->m), bodylen;
	int rc;

	if (row->statelen > SEALED_MAX)
		return OTP_ESTOREROW;
	rc = otp_unseal(&ps->keys, ad, adlen, row->state, row->statelen,
	    (uint8_t *)b->body, OTP_STATE_MAX, &bodylen);
	used(&b->used.body, rc == 0 ? bodylen : OTP_STATE_MAX);
	if (rc != 0)
		return rc;
	return seal_body(ps, b, user, ulen, row->kind, nm, bodylen,
	    sealedlen);
}

/* In p's open transaction: user's row (RW_ENABLE, RW_DISABLE,
 * RW_UNLOCK; an audit entry each) or every row (RW_RESEAL, RW_UPGRADE)
 * locked, opened and sealed anew as what says; *count rows. */
static int
rewrite(struct sys_store *s, struct pgc *p, const char *user,
    enum rewrite what, unsigned long *count)
{
	static const char *const reasons[] = { "enabled", "disabled",
	    "unlocked" };
	struct pg_store *ps = s->impl;
	struct pg_login *b;
	struct pg_row row;
	struct pg_meta nm;
	char login[USER_MAX + 1], num[3][24], from[FROM_MAX];
	const char *vals[6];
	int lens[6], fmts[6] = { 1, 1, 0, 0, 0, 0 }, logfmts[3] = { 1, 0, 0 };
	size_t sealedlen;
	PGresult *r = NULL, *w;
	long ulen;
	int rc = 0, i, n;

	*count = 0;
	vals[0] = user;
	lens[0] = user != NULL ? (int)strlen(user) : 0;
	rc = admin_exec(s, p, what == RW_UPGRADE ? "SELECT login, " ROW_COLS
	    " FROM otp_tokens WHERE gen = 0 FOR UPDATE" : "SELECT login, "
	    ROW_COLS " FROM otp_tokens WHERE $1::bytea IS NULL OR "
	    "login = $1 FOR UPDATE", what == RW_UPGRADE ? 0 : 1, vals, lens,
	    fmts, &r);
	if (rc != 0)
		return rc;
	if ((b = malloc(sizeof(*b))) == NULL) {
		PQclear(r);
		return OTP_ENOMEM;
	}
	memset(&b->used, 0, sizeof(b->used));
	origin(s, from, sizeof(from));
	n = PQntuples(r);
	for (i = 0; i < n && rc == 0; i++) {
		ulen = col_bytea(r, i, 0, (uint8_t *)login, USER_MAX);
		if (ulen <= 0 || row_at(r, i, 1, &row) != 0) {
			rc = OTP_ESTOREROW;
			break;
		}
		login[ulen] = '\0';
		nm = row.m;
		switch (what) {
		case RW_ENABLE:
		case RW_DISABLE:
			nm.disabled = what == RW_DISABLE;
			break;
		case RW_UNLOCK:
			nm.failures = 0;
			nm.locked = 0;
			break;
		case RW_RESEAL:
		case RW_UPGRADE:
			break;
		}
		nm.gen = what >= RW_RESEAL || row.m.gen <= 0 ? gen_now() : 0;
		if (nm.gen <= row.m.gen)
			nm.gen = row.m.gen + 1;
		rc = reseal(ps, b, login, (size_t)ulen, &row, &nm, &sealedlen);
		pg_row_clear(&row);
		if (rc != 0) {
			if (user == NULL)
				(void)snprintf(s->reason, sizeof(s->reason),
				    "a row does not open (otp-store list "
				    "names the users): nothing changed");
			break;
		}
		(void)snprintf(num[0], sizeof(num[0]), "%" PRId64, nm.gen);
		(void)snprintf(num[1], sizeof(num[1]), "%" PRId32,
		    nm.failures);
		(void)snprintf(num[2], sizeof(num[2]), "%" PRId64, nm.locked);
		vals[0] = login;
		lens[0] = (int)ulen;
		vals[1] = (const char *)b->sealed;
		lens[1] = (int)sealedlen;
		vals[2] = num[0];
		vals[3] = nm.disabled ? "t" : "f";
		vals[4] = num[1];
		vals[5] = num[2];
		if ((rc = admin_exec(s, p, "UPDATE otp_tokens SET state = $2, "
		    "gen = $3, disabled = $4, failures = $5, locked_until = "
		    "$6 WHERE login = $1", 6, vals, lens, fmts, &w)) != 0)
			break;
		PQclear(w);
		if (what <= RW_UNLOCK) {
			vals[1] = from;
			lens[1] = 0;
			vals[2] = reasons[what];
			if ((rc = admin_exec(s, p, "INSERT INTO otp_log (login, "
			    "server, outcome, reason) VALUES ($1, $2, 'admin', "
			    "$3)", 3, vals, lens, logfmts, &w)) != 0)
				break;
			PQclear(w);
		}
		(*count)++;
	}
	PQclear(r);
	wipe_used(b);
	free(b);
	otp_wipe(login, sizeof(login));
	return rc;
}

/* rewrite() in a transaction of its own, the store checked first. */
static int
rewrite_tx(struct sys_store *s, const char *user, enum rewrite what,
    unsigned long *count)
{
	struct pg_store *ps = s->impl;
	struct pgc p;
	PGresult *r;
	int rc;

	if (user != NULL && (strlen(user) == 0 || strlen(user) > USER_MAX))
		return OTP_EUSERSFIELD;
	if ((rc = read_key(s, ps)) != 0)
		return rc;
	pgc_start(&p, s);
	if ((rc = admin_exec(s, &p, "BEGIN", 0, NULL, NULL, NULL, &r)) != 0)
		goto out;
	PQclear(r);
	if ((rc = check_schema(s, &p)) != 0 ||
	    (rc = rewrite(s, &p, user, what, count)) != 0)
		goto out;
	if (user != NULL && *count == 0) {
		rc = OTP_EUSERSUNKNOWN;
		goto out;
	}
	if ((rc = admin_exec(s, &p, "COMMIT", 0, NULL, NULL, NULL, &r)) == 0)
		PQclear(r);
out:
	if (rc != 0)
		p.broken = 1;	/* an open transaction is rolled back */
	pgc_put(&p);
	return rc;
}

static int
pg_enable(struct sys_store *s, const char *user, int on)
{
	unsigned long n;

	return rewrite_tx(s, user, on ? RW_ENABLE : RW_DISABLE, &n);
}

static int
pg_unlock(struct sys_store *s, const char *user)
{
	unsigned long n;

	return rewrite_tx(s, user, RW_UNLOCK, &n);
}

static int
pg_reseal(struct sys_store *s, unsigned long *n)
{
	return rewrite_tx(s, NULL, RW_RESEAL, n);
}

/* ---- the audit trail ---------------------------------------------------- */

struct log_arg {
	sys_store_log_fn	*fn;
	void			*arg;
	char			 user[USER_MAX + 1];
};

static int
log_row(void *arg, const PGresult *r)
{
	struct log_arg *la = arg;
	struct sys_store_logent e;
	const char *at;
	long n;

	memset(&e, 0, sizeof(e));
	/* Every field bounded: a server's answer is no bound. */
	n = col_bytea(r, 0, 1, (uint8_t *)la->user, USER_MAX);
	if (n < 0 || (at = pgc_text(r, 0, 0, 21, NULL)) == NULL ||
	    (e.outcome = pgc_text(r, 0, 3, LOG_TEXT_MAX, NULL)) == NULL)
		return OTP_ESTOREROW;
	if ((e.server = pgc_text(r, 0, 2, LOG_TEXT_MAX, NULL)) == NULL)
		e.server = "";
	if ((e.reason = pgc_text(r, 0, 4, LOG_TEXT_MAX, NULL)) == NULL)
		e.reason = "";
	e.at = strtoll(at, NULL, 10);
	e.user = la->user;
	e.userlen = (size_t)n;
	return la->fn(la->arg, &e);
}

static int
pg_log(struct sys_store *s, const char *user, int64_t since,
    sys_store_log_fn *fn, void *arg)
{
	struct log_arg la = { fn, arg, { 0 } };
	char num[24];
	const char *vals[2] = { user, num };
	int lens[2] = { user != NULL ? (int)strlen(user) : 0, 0 };
	int fmts[2] = { 1, 0 };
	struct pgc p;
	int rc;

	if (user != NULL && (lens[0] == 0 || lens[0] > USER_MAX))
		return OTP_EUSERSFIELD;
	(void)snprintf(num, sizeof(num), "%" PRId64, since);
	pgc_start(&p, s);
	p.deadline = pgc_now_ms() + 3600 * 1000;
	if ((rc = pgc_get(&p)) != 0)
		return db_fail(s->reason, sizeof(s->reason), &p, rc);
	rc = pgc_each(&p, "SELECT extract(epoch FROM at)::bigint, login, "
	    "coalesce(server, ''), outcome, coalesce(reason, '') "
	    "FROM otp_log WHERE ($1::bytea IS NULL OR login = $1) AND "
	    "at >= to_timestamp($2::bigint) ORDER BY at", 2, vals, lens,
	    fmts, log_row, &la);
	if (rc == OTP_EDB || rc == OTP_EDEADLINE) {
		if (no_schema(&p))
			rc = OTP_ESTORESCHEMA;
		(void)db_fail(s->reason, sizeof(s->reason), &p, rc);
	}
	pgc_put(&p);
	return rc;
}

static int
pg_prune(struct sys_store *s, int64_t before, unsigned long *n)
{
	char num[24];
	const char *vals[1] = { num };
	int lens[1] = { 0 }, fmts[1] = { 0 };
	struct pgc p;
	PGresult *r;
	int rc;

	(void)snprintf(num, sizeof(num), "%" PRId64, before);
	pgc_start(&p, s);
	p.deadline = pgc_now_ms() + 3600 * 1000;
	rc = admin_exec(s, &p, "DELETE FROM otp_log WHERE at < "
	    "to_timestamp($1::bigint)", 1, vals, lens, fmts, &r);
	if (rc == 0) {
		*n = strtoul(PQcmdTuples(r), NULL, 10);
		PQclear(r);
	}
	pgc_put(&p);
	return rc;
}

/* ---- a login ----------------------------------------------------------- */

struct pg_impl {
	struct pg_login	*buf;
	uint64_t	 serial;	/* pgc_new_login's */
	struct pgc	 p;
	struct pg_row	 pre;		/* the row as pg_begin found it */
	int		 have_pre;
	int		 cached;	/* pre: the row this host last wrote */
	struct pg_meta	 nm;		/* the new row's (decide) */
	char		 from[FROM_MAX];	/* origin() */
};

static int
pg_login_open(struct sys_login *l)
{
	struct pg_impl *pi;

	/* Not calloc: zeroing the buffers would cost what the wipe saves
	 * (pg_login); nothing is read past what was written. */
	if ((pi = calloc(1, sizeof(*pi))) == NULL ||
	    (pi->buf = malloc(sizeof(*pi->buf))) == NULL) {
		free(pi);
		return OTP_ENOMEM;
	}
	memset(&pi->buf->used, 0, sizeof(pi->buf->used));
	pi->serial = pgc_new_login();
	origin(l->s, pi->from, sizeof(pi->from));
	l->impl = pi;
	return 0;
}

/* pgc_start for a use by login l: the pool tells by l's serial a
 * connection an earlier login made (pgc_run). */
static void
login_pgc(struct sys_login *l)
{
	struct pg_impl *pi = l->impl;

	pgc_start(&pi->p, l->s);
	pi->p.login = pi->serial;
}

/* Wipe b as far as it was written. */
static void
wipe_used(struct pg_login *b)
{
	const struct pg_used *u = &b->used;

	otp_wipe(b->img, u->img);
	otp_wipe(b->out, u->out);
	otp_wipe(b->body, u->body);
	otp_wipe(b->sealed, u->sealed);
	otp_wipe(b->scratch, u->scratch);
	otp_wipe(b->codes, u->codes * sizeof(b->codes[0]));
	otp_wipe(&b->used, sizeof(b->used));
}

static void
pg_login_free(struct sys_login *l)
{
	struct pg_impl *pi = l->impl;

	if (pi == NULL)
		return;
	pi->p.broken = 1;	/* a transaction left open is abandoned */
	if (pi->p.c != NULL)
		pgc_put(&pi->p);
	pg_row_clear(&pi->pre);
	wipe_used(pi->buf);
	free(pi->buf);
	free(pi);
	l->impl = NULL;
}

static int
login_fail(struct sys_login *l, int rc)
{
	struct pg_impl *pi = l->impl;

	(void)db_fail(l->reason, sizeof(l->reason), &pi->p, rc);
	pi->p.broken = 1;
	return rc == OTP_EDB && no_schema(&pi->p) ? OTP_ESTORESCHEMA : rc;
}

/* Run sql in the login's connection. */
static int
login_exec(struct sys_login *l, const char *sql, int n,
    const char *const *vals, const int *lens, const int *fmts,
    PGresult **res)
{
	struct pg_impl *pi = l->impl;
	int rc;

	if ((rc = pgc_exec(&pi->p, sql, n, vals, lens, fmts, res, NULL)) !=
	    0)
		return login_fail(l, rc);
	return 0;
}

/* The end of a login's phase: now and the store's deadline. */
static int64_t
login_deadline(const struct sys_login *l)
{
	return pgc_now_ms() + (l->s->cfg.deadline_ms != 0 ?
	    l->s->cfg.deadline_ms : SYS_STORE_DEADLINE);
}

/* A connection and BEGIN by deadline; a pooled connection that turns out
 * dead (the server restarted, a failover) is replaced once. */
static int
login_begin_tx(struct sys_login *l, int64_t deadline)
{
	struct pg_impl *pi = l->impl;
	PGresult *r;
	int rc, tries;

	login_pgc(l);
	pi->p.deadline = deadline;
	if ((rc = pgc_get(&pi->p)) != 0)
		return login_fail(l, rc);
	for (tries = 0; tries < 2; tries++) {
		rc = pgc_exec(&pi->p, "BEGIN", 0, NULL, NULL, NULL, &r, NULL);
		if (rc == 0) {
			PQclear(r);
			return 0;
		}
		if (!pi->p.pooled || rc == OTP_EDEADLINE)
			break;
		/* A pooled connection the server dropped (a restart, a
		 * failover): the pool goes, and a new one is made. */
		if ((rc = pgc_renew(&pi->p)) != 0)
			break;
	}
	return login_fail(l, rc);
}

static void
login_end_tx(struct sys_login *l, int commit_ok)
{
	struct pg_impl *pi = l->impl;
	PGresult *r;

	if (!commit_ok && pi->p.c != NULL &&
	    PQtransactionStatus(pi->p.c) != PQTRANS_IDLE &&
	    pgc_exec(&pi->p, "ROLLBACK", 0, NULL, NULL, NULL, &r, NULL) == 0)
		PQclear(r);
	pgc_put(&pi->p);
}

/* Before any prompt: whether user has a token, and whether it is off.
 * Nothing is locked or written.  The row read is kept: the end writes
 * its new row only over this one (pg_end).  The row this host itself
 * wrote at the user's last login here stands in for the read
 * (rowcache.c): the end finds out if it is still the row. */
static int
pg_begin(struct sys_login *l, struct sys_verdict *v)
{
	static const struct pgc_stmt sel = { "SELECT " ROW_COLS " FROM "
	    "otp_tokens WHERE login = $1", 1, 1u << 0 };
	struct pg_store *ps = l->s->impl;
	struct pg_impl *pi = l->impl;
	const char *vals[1] = { l->user };
	int lens[1] = { (int)strlen(l->user) }, fmts[1] = { 1 };
	PGresult *r;
	int rc;

	if (lens[0] == 0)
		return OTP_EUSERSFIELD;
	pg_row_clear(&pi->pre);
	pi->have_pre = pi->cached = 0;
	if (!l->s->cfg.dry &&
	    rowcache_take(ps->conninfo, l->user, &pi->pre)) {
		pi->have_pre = pi->cached = 1;
		return 0;
	}
	login_pgc(l);
	if ((rc = pgc_get(&pi->p)) != 0)
		return login_fail(l, rc);
	rc = pgc_run(&pi->p, &sel, vals, lens, fmts, &r, NULL);
	if (rc != 0 && pi->p.pooled && rc != OTP_EDEADLINE) {
		/* A pooled connection the server dropped: once more, on a
		 * new one, the pool gone with it. */
		if ((rc = pgc_renew(&pi->p)) != 0)
			return login_fail(l, rc);
		rc = pgc_run(&pi->p, &sel, vals, lens, fmts, &r, NULL);
	}
	if (rc != 0)
		return login_fail(l, rc);
	if (PQntuples(r) == 0) {
		v->unknown = 1;
		v->why = "no token";
	} else if (col_bool(r, 0, 1) == 1) {
		v->decided = 1;
		v->why = "token disabled";
	} else {
		/* A row that does not read is the locked way's to refuse. */
		pi->have_pre = row_of(r, 0, &pi->pre) == 0;
	}
	PQclear(r);
	/* Decided here: no end follows to record it. */
	if (v->unknown || v->decided)
		audit(l, v, 0);
	pgc_put(&pi->p);
	return 0;
}

/* The 8-digit answers that are one of the row's scratch codes go into
 * the image, so that the engine weighs them in its own order (rate limit
 * first); *added gets how many. */
static int
scratch_in(struct sys_login *l, const uint8_t *hashes, size_t nh,
    const struct otp_answer *a, size_t n, size_t *imglen, size_t *added)
{
	struct pg_store *ps = l->s->impl;
	struct pg_impl *pi = l->impl;
	uint8_t h[OTP_SEAL_HASHLEN];
	const char *t;
	size_t i, j, len, ulen = strlen(l->user);
	uint32_t code;
	int rc, hit;

	*added = 0;
	for (i = 0; i < n; i++) {
		/* The last 8 characters: after a password (forward_pass)
		 * or the token's PIN, if either goes before it. */
		t = a[i].text;
		len = strlen(t);
		if (len < 8)
			continue;
		t += len - 8;
		if (otp_state_code_shape(t) != 0 || strlen(t) != 8)
			continue;
		code = (uint32_t)strtoul(t, NULL, 10);
		scratch_hash(ps, l->user, ulen, code, h);
		for (hit = 0, j = 0; j < nh; j++)
			hit |= otp_ct_equal(h, hashes + j * OTP_SEAL_HASHLEN,
			    OTP_SEAL_HASHLEN);
		otp_wipe(h, sizeof(h));
		if (!hit || *added == SCRATCH_MAX)
			continue;
		rc = otp_state_add_scratch(pi->buf->img, imglen,
		    sizeof(pi->buf->img), code);
		used(&pi->buf->used.img, rc == 0 ? *imglen :
		    sizeof(pi->buf->img));
		if (rc != 0)
			return rc;
		pi->buf->codes[(*added)++] = code;
		used(&pi->buf->used.codes, *added);
	}
	return 0;
}

/* The row's scratch hashes less the one the engine used: the codes added
 * that the new image no longer holds. */
static size_t
scratch_out(struct sys_login *l, uint8_t *hashes, size_t nh,
    const uint32_t *left, size_t nleft, size_t added)
{
	struct pg_store *ps = l->s->impl;
	struct pg_impl *pi = l->impl;
	uint8_t h[OTP_SEAL_HASHLEN];
	size_t i, j, k, ulen = strlen(l->user);
	int kept;

	for (i = 0; i < added; i++) {
		for (kept = 0, k = 0; k < nleft; k++)
			kept |= left[k] == pi->buf->codes[i];
		if (kept)
			continue;
		scratch_hash(ps, l->user, ulen, pi->buf->codes[i], h);
		for (j = 0; j < nh; j++)
			if (otp_ct_equal(h, hashes + j * OTP_SEAL_HASHLEN,
			    OTP_SEAL_HASHLEN)) {
				memmove(hashes + j * OTP_SEAL_HASHLEN,
				    hashes + (j + 1) * OTP_SEAL_HASHLEN,
				    (nh - j - 1) * OTP_SEAL_HASHLEN);
				nh--;
				break;
			}
		otp_wipe(h, sizeof(h));
	}
	return nh;
}

/* A row opened into the login's buffers: the image in img (*imglen),
 * the scratch hashes in scratch (*nh).  A row older than one this
 * process has seen of the user is one written back: refused. */
static int
open_row(struct sys_login *l, const struct pg_row *row, size_t *imglen,
    size_t *nh)
{
	struct pg_store *ps = l->s->impl;
	struct pg_login *b = ((struct pg_impl *)l->impl)->buf;
	char ad[AD_MAX];
	size_t adlen;
	int64_t seen;
	int rc;

	if (row->m.gen <= 0) {
		(void)snprintf(l->reason, sizeof(l->reason), "a row of schema "
		    "version 1 (otp-store init seals it anew)");
		return OTP_ESTOREROW;
	}
	if ((seen = rowcache_seen(ps->conninfo, l->user, 0)) > row->m.gen) {
		(void)snprintf(l->reason, sizeof(l->reason), "the row is older "
		    "than one this host has seen (generation %" PRId64 " < %"
		    PRId64 "): written back?", row->m.gen, seen);
		return OTP_ESTOREROW;
	}
	adlen = assoc(ad, l->user, strlen(l->user), row->kind, &row->m);
	rc = row->statelen > sizeof(b->sealed) ? OTP_ESTOREROW :
	    otp_unseal(&ps->keys, ad, adlen, row->state, row->statelen,
	    (uint8_t *)b->img, OTP_STATE_MAX, imglen);
	used(&b->used.img, rc == 0 ? *imglen : OTP_STATE_MAX);
	if (rc != 0) {
		(void)snprintf(l->reason, sizeof(l->reason), "the row does not "
		    "open with the store key (changed without it?)");
		return rc;
	}
	if (row->scratchlen > sizeof(b->scratch) ||
	    row->scratchlen % OTP_SEAL_HASHLEN != 0) {
		(void)snprintf(l->reason, sizeof(l->reason), "scratch codes "
		    "column");
		return OTP_ESTOREROW;
	}
	if (row->scratchlen > 0)
		memcpy(b->scratch, row->scratch, row->scratchlen);
	used(&b->used.scratch, row->scratchlen);
	*nh = row->scratchlen / OTP_SEAL_HASHLEN;
	(void)rowcache_seen(ps->conninfo, l->user, row->m.gen);
	return 0;
}

/* Keep the row just written for the user's next login on this host. */
static void
keep_row(const struct sys_login *l, const char *kind, size_t sealedlen,
    size_t nh)
{
	const struct pg_store *ps = l->s->impl;
	const struct pg_impl *pi = l->impl;
	const struct pg_login *b = pi->buf;
	struct pg_row row;

	(void)rowcache_seen(ps->conninfo, l->user, pi->nm.gen);
	if (pg_row_set(&row, kind, b->sealed, sealedlen, b->scratch,
	    nh * OTP_SEAL_HASHLEN) == 0) {
		row.m = pi->nm;
		rowcache_keep(ps->conninfo, l->user, &row);
	}
}

/* A refusal that counts against the attempt limit: a guess.  A code
 * used already (a host that sends the same answer again), the rate limit
 * or skew learning is not one. */
static int
counts(const struct otp_state_result *r)
{
	return !r->accepted && (r->why == OTP_STATE_WHY_WRONG ||
	    r->why == OTP_STATE_WHY_SHAPE || r->why == OTP_STATE_WHY_NOCODE);
}

/* Whether an HOTP answer is a code the token has used already: one of
 * the WINDOW_SIZE counters before the stored one, after the token's PIN
 * (a host that sends the same answer again, a request resent), which the
 * engine refuses as a wrong code but is no guess. */
static int
hotp_replay(const struct sys_login *l, const struct otp_answer *a,
    size_t n, size_t imglen)
{
	const struct pg_login *b = ((const struct pg_impl *)l->impl)->buf;
	struct otp_state *st;
	struct otp_hmac h;
	struct otp_match m;
	size_t i, plen;
	uint64_t w;
	int hit = 0;

	if ((st = malloc(sizeof(*st))) == NULL)
		return 0;
	if (otp_state_parse(b->img, imglen, st) != 0 ||
	    st->mode != OTP_STATE_HOTP || st->window == 0 ||
	    st->hotp_counter == 0 ||
	    otp_hmac_init(&h, st->alg, st->key.buf, st->key.len) != 0)
		goto out;
	w = st->window < st->hotp_counter ? st->window : st->hotp_counter;
	plen = strlen(st->pin);
	for (i = 0; i < n && !hit; i++) {
		if (strlen(a[i].text) != plen + st->digits ||
		    (plen > 0 && !otp_ct_equal(a[i].text, st->pin, plen)))
			continue;
		hit = otp_verify(&h, a[i].text + plen, st->digits,
		    st->hotp_counter - w, w - 1, OTP_WINDOW_AHEAD, &m) == 1;
	}
	otp_hmac_wipe(&h);
out:
	otp_wipe(st, sizeof(*st));
	free(st);
	return hit;
}

/*
 * The attempt limit, counted in the row on every server alike: a wrong
 * answer (guess) counts, deny of them in a row lock the token for
 * unlock_time seconds (the users file's defaults, SYS_USERS_DENY and
 * SYS_USERS_UNLOCK; deny < 0: counted, never locked), an accept clears
 * the count.  A locked token is refused without a look at the answer.
 */
static void
limit(const struct sys_login *l, int accepted, int guess, int64_t now,
    struct pg_meta *nm)
{
	const struct sys_store_cfg *c = &l->s->cfg;
	int64_t deny = c->deny != 0 ? c->deny : SYS_USERS_DENY;

	if (accepted) {
		nm->failures = 0;
		nm->locked = 0;
		return;
	}
	if (!guess)
		return;
	if (nm->failures < INT32_MAX)
		nm->failures++;
	if (deny > 0 && nm->failures >= deny)
		nm->locked = now + (c->unlock_time != 0 ? c->unlock_time :
		    SYS_USERS_UNLOCK);
}

/* The state file engine's login over the opened row, at the clock read
 * now: the verdict in v, and *wr when there is a new row to record,
 * sealed (*sealedlen bytes) with its scratch hashes (*nh) and the
 * login's pg_meta (nm).  A locked token, an accept with nothing to
 * record, or a refusal that is no guess and changes nothing (a code used
 * already) leaves *wr 0: only the audit entry is written. */
static int
decide(struct sys_login *l, const struct otp_answer *a, size_t n,
    const struct pg_row *row, size_t imglen, size_t *nh, size_t *sealedlen,
    struct sys_verdict *v, int *wr)
{
	struct pg_store *ps = l->s->impl;
	struct pg_impl *pi = l->impl;
	struct pg_login *b = pi->buf;
	struct otp_state_result res;
	struct otp_state_opts o;
	uint32_t left[SCRATCH_MAX];
	size_t outlen, bodylen, added, nleft;
	int64_t now;
	int rc, guess;

	*wr = 0;
	now = l->s->cfg.now != SYS_NOW_REAL ? l->s->cfg.now :
	    (int64_t)time(NULL);
	pi->nm = row->m;
	pi->nm.gen = row->m.gen + 1;
	if (pi->nm.locked != 0 && now < pi->nm.locked) {
		v->decided = 1;
		v->why = "locked out";
		return 0;
	}
	if (pi->nm.locked != 0) {	/* the lock-out is over */
		pi->nm.locked = 0;
		pi->nm.failures = 0;
	}
	if ((rc = scratch_in(l, b->scratch, *nh, a, n, &imglen, &added)) != 0)
		return rc;
	/* linger: the records are the image's, so every server sharing the
	 * row sees them; a new one's salt is fresh. */
	o = l->s->cfg.ga;
	o.user = l->user;
	if (otp_state_lingers(&o) &&
	    (rc = sys_random_bytes(o.linger_salt, sizeof(o.linger_salt))) != 0)
		return rc;
	rc = otp_state_login(b->img, imglen, OTP_LOGIN_OPEN |
	    OTP_LOGIN_LINGER | OTP_LOGIN_SETTLE, a, n, now, &o, &res, b->out,
	    sizeof(b->out), &outlen);
	otp_wipe(o.linger_salt, sizeof(o.linger_salt));
	used(&b->used.out, rc == 0 ? outlen : sizeof(b->out));
	if (rc != 0) {
		(void)snprintf(l->reason, sizeof(l->reason), "the stored "
		    "state: %s", otp_strerror(rc));
		return OTP_ESTOREROW;
	}
	sys_state_verdict(&res, v);
	v->decided = 1;		/* one transaction: nothing more to ask */
	guess = counts(&res) && !hotp_replay(l, a, n, imglen);
	/* A lingering answer whose time did not move: nothing to write. */
	if (res.accepted && res.how == OTP_STATE_BYLINGER && !res.changed)
		return 0;
	if (l->s->cfg.dry || (!res.changed && !guess)) {
		v->recorded = 0;
		/* Nothing to write: an accept that changes nothing is one
		 * the engine would not make; refuse to be safe. */
		if (!l->s->cfg.dry && v->accepted) {
			v->accepted = 0;
			v->how = SYS_BY_NONE;
			v->why = "not recorded";
		}
		return 0;
	}
	/* A lingering answer is no attempt: it clears no count either. */
	limit(l, res.accepted && res.how != OTP_STATE_BYLINGER, guess, now,
	    &pi->nm);
	if (!res.changed) {
		/* A refusal the engine records nothing of: the row is
		 * written all the same, for its count. */
		memcpy(b->out, b->img, imglen);
		outlen = imglen;
		used(&b->used.out, outlen);
	}
	rc = otp_state_unscratch(b->out, outlen, b->body, sizeof(b->body),
	    &bodylen, left, SCRATCH_MAX, &nleft);
	used(&b->used.body, rc == 0 ? bodylen : sizeof(b->body));
	if (rc == 0) {
		*nh = scratch_out(l, b->scratch, *nh, left, nleft, added);
		rc = seal_body(ps, b, l->user, strlen(l->user), row->kind,
		    &pi->nm, bodylen, sealedlen);
	}
	otp_wipe(left, sizeof(left));
	*wr = rc == 0;
	return rc;
}

/* A verdict that was not recorded is a refusal: an error, or an accept
 * whose row was not written (a dry run's stands). */
static int
settle(const struct sys_login *l, struct sys_verdict *v, int rc,
    int committed)
{
	if (rc != 0 || (!committed && v->accepted && !l->s->cfg.dry)) {
		v->accepted = 0;
		v->how = SYS_BY_NONE;
		v->recorded = 0;
		v->decided = 1;
	}
	return rc;
}

/* The audit entry's outcome and reason for v (an error's: rc); never a
 * code. */
static void
outcome(const struct sys_login *l, const struct sys_verdict *v, int rc,
    const char **out, const char **why)
{
	if (rc != 0) {
		*out = "error";
		*why = *l->reason != '\0' ? l->reason : otp_strerror(rc);
	} else if (v->accepted) {
		*out = "accept";
		*why = v->how == SYS_BY_SCRATCH ? "scratch code" :
		    v->how == SYS_BY_GRACE ? "grace period" :
		    v->how == SYS_BY_LINGER ? "lingering answer" : "code";
	} else {
		*out = "refuse";
		*why = v->why != NULL ? v->why : "refused";
	}
}

/* Record a decision that writes no row (an unknown user, a disabled or
 * locked token, a code used already, a row that does not open) in the
 * login's connection, in the transaction open there if any; a failure to
 * is not the login's.  Its commit waits for no synchronous standby: it
 * changes nothing a replay could use, and a standby lost must not hold
 * up a refusal (the commit would wait until the deadline). */
static void
audit(struct sys_login *l, const struct sys_verdict *v, int rc)
{
	static const char sql[] = "WITH s AS (SELECT set_config("
	    "'synchronous_commit', 'local', true)) INSERT INTO otp_log "
	    "(login, server, outcome, reason) SELECT $1, $2, $3, $4 FROM s";
	struct pg_impl *pi = l->impl;
	const char *vals[4];
	int lens[4] = { 0, 0, 0, 0 }, fmts[4] = { 1, 0, 0, 0 };
	char why[256];
	PGresult *r;

	if (l->s->cfg.dry || pi->p.c == NULL)
		return;
	vals[0] = l->user;
	lens[0] = (int)strlen(l->user);
	vals[1] = pi->from;
	outcome(l, v, rc, &vals[2], &vals[3]);
	(void)snprintf(why, sizeof(why), "%.200s", vals[3]);
	vals[3] = why;
	if (pgc_exec(&pi->p, sql, 4, vals, lens, fmts, &r, NULL) == 0)
		PQclear(r);
}

/* The new row's parameters: $1 the user, $2 the sealed state, $3 the
 * scratch hashes, $4 whether it is a use, $5 and $6 the state and scratch
 * as read, $7 to $9 the new gen, failures and locked_until, $10 where
 * the answer came from, $11 and $12 the audit entry's outcome and
 * reason, $13 the gen as read.  num holds the numbers' text. */
static void
new_row(const struct sys_login *l, const struct sys_verdict *v,
    const struct pg_row *pre, size_t sealedlen, size_t nh,
    const char **vals, int *lens, char num[4][24])
{
	const struct pg_impl *pi = l->impl;
	const struct pg_login *b = pi->buf;

	memset(lens, 0, 13 * sizeof(*lens));
	vals[0] = l->user;
	lens[0] = (int)strlen(l->user);
	vals[1] = (const char *)b->sealed;
	lens[1] = (int)sealedlen;
	vals[2] = (const char *)b->scratch;
	lens[2] = (int)(nh * OTP_SEAL_HASHLEN);
	/* A lingering answer is no use of the token: its time slides in
	 * the state alone. */
	vals[3] = v->accepted && v->how != SYS_BY_LINGER ? "t" : "f";
	vals[4] = (const char *)pre->state;
	lens[4] = (int)pre->statelen;
	vals[5] = (const char *)pre->scratch;
	lens[5] = (int)pre->scratchlen;
	(void)snprintf(num[0], 24, "%" PRId64, pi->nm.gen);
	(void)snprintf(num[1], 24, "%" PRId32, pi->nm.failures);
	(void)snprintf(num[2], 24, "%" PRId64, pi->nm.locked);
	(void)snprintf(num[3], 24, "%" PRId64, pre->m.gen);
	vals[6] = num[0];
	vals[7] = num[1];
	vals[8] = num[2];
	vals[9] = pi->from;
	outcome(l, v, 0, &vals[10], &vals[11]);
	vals[12] = num[3];
}

/*
 * The write of a login, its audit entry and, for end_swap, the row as it
 * is: the row is written only if it is still the row as read, byte for
 * byte (each write seals with a new nonce, so any other login's write in
 * between changes it), and the audit entry only with it.  One snapshot
 * for all: cur is the row before any write.
 */
#define LOGIN_WRITE "WITH cur AS (SELECT " ROW_COLS " FROM otp_tokens " \
	"WHERE login = $1), " \
	"upd AS (UPDATE otp_tokens SET state = $2, scratch = $3, " \
	"last_used = CASE WHEN $4 THEN now() ELSE last_used END, " \
	"uses = uses + CASE WHEN $4 THEN 1 ELSE 0 END, " \
	"gen = $7, failures = $8, locked_until = $9, " \
	"last_from = CASE WHEN $4 THEN $10 ELSE last_from END " \
	"WHERE login = $1 AND state = $5 AND scratch = $6 AND gen = $13 " \
	"AND NOT disabled RETURNING 1), " \
	"ins AS (INSERT INTO otp_log (login, server, outcome, reason) " \
	"SELECT $1, $10, $11, $12 FROM upd) " \
	"SELECT (SELECT count(*) FROM upd), cur.* FROM cur"

static const int login_fmts[13] = { 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0,
    0 };

/*
 * The end in one statement, for a login whose start read the row (or
 * took the row this host last wrote): the engine runs over that row, and
 * the new row is written only if the row is still that one (LOGIN_WRITE):
 * one conditional UPDATE with its audit entry, a transaction of its own
 * with the row locked while it runs, committed before its answer comes.
 * When it matches nothing, the same statement gives the row as it is,
 * and the engine runs once more over that one (a kept row another server
 * has written since costs one statement more, not the locked way).
 * *done is 0 when the locked way must decide instead: the row changed
 * twice, went or was disabled; the outcome writes nothing but its audit
 * entry (a locked token; a refusal stands only on the row as it is now);
 * a row that does not open or run (the store key changed since, a row
 * written back: the locked way records it); or the statement failed
 * before the deadline (it took effect or not: the locked way reads
 * which).  The deadline passed with it running: its outcome is unknown,
 * a refusal.
 */
static int
end_swap(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v, int64_t deadline, int *done)
{
	static const struct pgc_stmt upd = { LOGIN_WRITE, 13, 1u << 1 };
	struct pg_impl *pi = l->impl;
	const struct pg_row *pre = &pi->pre;
	struct pg_row now;
	const char *vals[13];
	char num[4][24];
	int lens[13];
	size_t imglen, nh, sealedlen;
	PGresult *r = NULL;
	const char *t;
	int rc, wr, tries, committed = 0;

	*done = 1;
	login_pgc(l);
	pi->p.deadline = deadline;
	for (tries = 0;; tries++) {
		if (open_row(l, pre, &imglen, &nh) != 0 ||
		    decide(l, a, n, pre, imglen, &nh, &sealedlen, v, &wr) !=
		    0 || !wr)
			goto locked;
		if (pi->p.c == NULL && (rc = pgc_get(&pi->p)) != 0) {
			rc = login_fail(l, rc);
			break;
		}
		new_row(l, v, pre, sealedlen, nh, vals, lens, num);
		rc = pgc_run(&pi->p, &upd, vals, lens, login_fmts, &r, NULL);
		if (rc == OTP_EDEADLINE) {
			(void)login_fail(l, rc);
			rc = OTP_ECOMMIT;
			break;
		}
		if (rc != 0) {
			pi->p.broken = 1;
			goto locked;
		}
		if ((t = pgc_text(r, 0, 0, 1, NULL)) != NULL &&
		    strcmp(t, "1") == 0) {
			committed = 1;
			v->recorded = 1;
			keep_row(l, pre->kind, sealedlen, nh);
			break;
		}
		/* Not written: the row changed since.  Once more, over the
		 * row as it is, if it is there and on. */
		if (tries > 0 || PQntuples(r) != 1 ||
		    col_bool(r, 0, 2) != 0 || row_of(r, 1, &now) != 0)
			goto locked;
		PQclear(r);
		r = NULL;
		pg_row_clear(&pi->pre);
		pi->pre = now;
		pi->cached = 0;
		memset(v, 0, sizeof(*v));
		v->why = "refused";
		l->reason[0] = '\0';
	}
	PQclear(r);
	pgc_put(&pi->p);
	return settle(l, v, rc, committed);
locked:
	PQclear(r);
	pgc_put(&pi->p);
	*done = 0;
	return 0;
}

/*
 * A user without a token costs what a refused one does: the row's work
 * done on a dummy token (a TOTP one of a random key, sealed for this
 * user), its unseal and the engine over the answers, with the seal a
 * refusal writes.  Nothing of it is kept or written, nor marked in the
 * row cache (open_row would).
 */
static void
dummy_work(struct sys_login *l, const struct otp_answer *a, size_t n)
{
	struct pg_store *ps = l->s->impl;
	struct pg_login *b = ((struct pg_impl *)l->impl)->buf;
	struct sys_verdict v;
	struct pg_row row;
	uint8_t key[20];
	char b32[40], ad[AD_MAX];
	size_t ulen = strlen(l->user), bodylen, sealedlen, imglen, nh = 0;
	int len, wr;

	if (sys_random_bytes(key, sizeof(key)) != 0 ||
	    otp_b32_encode(key, sizeof(key), b32, sizeof(b32), 0) < 0) {
		otp_wipe(key, sizeof(key));
		return;
	}
	otp_wipe(key, sizeof(key));
	len = snprintf(b->body, sizeof(b->body), "%s\n\" TOTP_AUTH\n"
	    "\" DISALLOW_REUSE\n", b32);
	otp_wipe(b32, sizeof(b32));
	bodylen = len > 0 ? (size_t)len : 0;
	used(&b->used.body, bodylen);
	memset(&row, 0, sizeof(row));
	(void)snprintf(row.kind, sizeof(row.kind), "totp");
	row.m.gen = 1;
	if (seal_body(ps, b, l->user, ulen, row.kind, &row.m, bodylen,
	    &sealedlen) != 0)
		return;
	if (otp_unseal(&ps->keys, ad, assoc(ad, l->user, ulen, row.kind,
	    &row.m), b->sealed, sealedlen, (uint8_t *)b->img, OTP_STATE_MAX,
	    &imglen) == 0) {
		used(&b->used.img, imglen);
		memset(&v, 0, sizeof(v));
		(void)decide(l, a, n, &row, imglen, &nh, &sealedlen, &v, &wr);
	}
	l->reason[0] = '\0';
}

/* The end in one transaction on the locked row: BEGIN, SELECT ... FOR
 * UPDATE, the engine, the write (LOGIN_WRITE) or the audit entry alone,
 * COMMIT. */
static int
end_locked(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v, int64_t deadline)
{
	static const char sel[] = "SELECT " ROW_COLS " FROM otp_tokens "
	    "WHERE login = $1 FOR UPDATE";
	const char *vals[13];
	char num[4][24];
	int lens[13];
	struct pg_row row;
	size_t imglen, nh, sealedlen;
	PGresult *r = NULL;
	const char *t;
	int rc, wr = 0, committed = 0, dis;

	memset(&row, 0, sizeof(row));
	if ((rc = login_begin_tx(l, deadline)) != 0)
		return settle(l, v, rc, 0);
	vals[0] = l->user;
	lens[0] = (int)strlen(l->user);
	if ((rc = login_exec(l, sel, 1, vals, lens, login_fmts, &r)) != 0)
		goto out;
	if (PQntuples(r) == 0) {
		/* An enrolled user's work on a dummy token, then the same
		 * statements as a refusal (its audit entry, COMMIT): no one
		 * tells by the time of a refusal who is enrolled. */
		dummy_work(l, a, n);
		memset(v, 0, sizeof(*v));
		v->unknown = 1;
		v->why = "no token";
	} else if ((dis = col_bool(r, 0, 1)) != 0) {
		if (dis < 0)
			rc = OTP_ESTOREROW;
		v->decided = 1;
		v->why = "token disabled";
		v->decided = 1;
		v->why = "token disabled";
	} else if ((rc = row_of(r, 0, &row)) == 0 &&
	    (rc = open_row(l, &row, &imglen, &nh)) == 0) {
		/* The clock is read once the row is ours (decide). */
		rc = decide(l, a, n, &row, imglen, &nh, &sealedlen, v, &wr);
	}
	PQclear(r);
	r = NULL;
	if (rc == OTP_EDB || rc == OTP_EDEADLINE)
		goto out;
	if (!wr) {
		/* Nothing to write but the audit entry. */
		if (!l->s->cfg.dry) {
			audit(l, v, rc);
			if (login_exec(l, "COMMIT", 0, NULL, NULL, NULL, &r) ==
			    0)
				committed = rc == 0;
		}
		goto out;
	}
	new_row(l, v, &row, sealedlen, nh, vals, lens, num);
	if ((rc = login_exec(l, LOGIN_WRITE, 13, vals, lens, login_fmts,
	    &r)) != 0)
		goto out;
	if ((t = pgc_text(r, 0, 0, 1, NULL)) == NULL || strcmp(t, "1") != 0) {
		rc = OTP_ECOMMIT;	/* the locked row not written */
		goto out;
	}
	PQclear(r);
	r = NULL;
	/* The outcome stands only once COMMIT says so. */
	if ((rc = login_exec(l, "COMMIT", 0, NULL, NULL, NULL, &r)) != 0) {
		rc = OTP_ECOMMIT;
		goto out;
	}
	committed = 1;
	v->recorded = 1;
	keep_row(l, row.kind, sealedlen, nh);
out:
	PQclear(r);
	pg_row_clear(&row);
	login_end_tx(l, committed);
	return settle(l, v, rc, committed);
}

/* The login: the row as the start read it written over in one
 * statement, else one transaction on the locked row; both within one
 * deadline. */
static int
pg_end(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	struct pg_store *ps = l->s->impl;
	struct pg_impl *pi = l->impl;
	size_t ulen = strlen(l->user);
	int64_t deadline;
	int rc = 0, done = 0;

	memset(v, 0, sizeof(*v));
	v->why = "refused";
	if (ulen == 0 || ulen > USER_MAX)
		return OTP_EUSERSFIELD;
	if ((rc = read_key(l->s, ps)) != 0) {
		(void)snprintf(l->reason, sizeof(l->reason), "%s",
		    l->s->reason);
		return rc;
	}
	deadline = login_deadline(l);
	if (pi->have_pre && !l->s->cfg.dry) {
		rc = end_swap(l, a, n, v, deadline, &done);
		if (!done) {
			memset(v, 0, sizeof(*v));
			v->why = "refused";
			l->reason[0] = '\0';
		}
	}
	pg_row_clear(&pi->pre);
	pi->have_pre = pi->cached = 0;
	if (!done)
		rc = end_locked(l, a, n, v, deadline);
	l->cycles++;
	return rc;
}

/* Start and end in one transaction, for answers known at the start. */
static int
pg_check(struct sys_login *l, const struct otp_answer *a, size_t n,
    struct sys_verdict *v)
{
	return pg_end(l, a, n, v);
}

/* An administrator's resync: one transaction on the locked row, as a
 * login is, the state file engine's resync in place of the check. */
static int
pg_resync(struct sys_store *s, const char *user, const char *const *codes,
    size_t n, int64_t *moved)
{
	static const char sel[] = "SELECT " ROW_COLS " FROM otp_tokens "
	    "WHERE login = $1 FOR UPDATE";
	static const char upd[] = "UPDATE otp_tokens SET state = $2, "
	    "gen = $3 WHERE login = $1";
	struct pg_store *ps = s->impl;
	struct sys_login *l;
	struct pg_impl *pi;
	struct pg_login *b;
	const char *vals[3];
	int lens[3], fmts[3] = { 1, 1, 0 };
	char ad[AD_MAX], gen[24];
	struct pg_row row;
	size_t ulen, adlen, imglen, outlen, bodylen, sealedlen, nc;
	uint32_t left[SCRATCH_MAX];
	int64_t now;
	PGresult *r = NULL;
	int rc, committed = 0;

	if ((rc = read_key(s, ps)) != 0)
		return rc;
	memset(&row, 0, sizeof(row));
	if ((rc = sys_login_open(s, user, &l)) != 0)
		return rc;
	pi = l->impl;
	b = pi->buf;
	ulen = strlen(l->user);
	if (ulen == 0 || ulen > USER_MAX) {
		sys_login_free(l);
		return OTP_EUSERSFIELD;
	}
	if ((rc = login_begin_tx(l, login_deadline(l))) != 0)
		goto out;
	vals[0] = l->user;
	lens[0] = (int)ulen;
	if ((rc = login_exec(l, sel, 1, vals, lens, fmts, &r)) != 0)
		goto out;
	now = s->cfg.now != SYS_NOW_REAL ? s->cfg.now : (int64_t)time(NULL);
	if (PQntuples(r) == 0) {
		rc = OTP_EUSERSUNKNOWN;
		goto out;
	}
	if ((rc = row_of(r, 0, &row)) != 0)
		goto out;
	PQclear(r);
	r = NULL;
	adlen = assoc(ad, l->user, ulen, row.kind, &row.m);
	rc = row.m.gen <= 0 || row.statelen > SEALED_MAX ? OTP_ESTOREROW :
	    otp_unseal(&ps->keys, ad, adlen, row.state, row.statelen,
	    (uint8_t *)b->img, OTP_STATE_MAX, &imglen);
	used(&b->used.img, rc == 0 ? imglen : OTP_STATE_MAX);
	if (rc != 0)
		goto out;
	rc = otp_state_resync(b->img, imglen, codes, n, now, b->out,
	    sizeof(b->out), &outlen, moved);
	used(&b->used.out, rc == 0 ? outlen : sizeof(b->out));
	if (rc != 0)
		goto out;
	/* The image holds no scratch code; the split keeps it so. */
	rc = otp_state_unscratch(b->out, outlen, b->body, sizeof(b->body),
	    &bodylen, left, SCRATCH_MAX, &nc);
	used(&b->used.body, rc == 0 ? bodylen : sizeof(b->body));
	if (rc != 0)
		goto out;
	row.m.gen++;
	if ((rc = seal_body(ps, b, l->user, ulen, row.kind, &row.m, bodylen,
	    &sealedlen)) != 0)
		goto out;
	if (s->cfg.dry)
		goto out;
	vals[1] = (const char *)b->sealed;
	lens[1] = (int)sealedlen;
	(void)snprintf(gen, sizeof(gen), "%" PRId64, row.m.gen);
	vals[2] = gen;
	lens[2] = 0;
	if ((rc = login_exec(l, upd, 3, vals, lens, fmts, &r)) != 0)
		goto out;
	PQclear(r);
	r = NULL;
	if ((rc = login_exec(l, "COMMIT", 0, NULL, NULL, NULL, &r)) != 0) {
		rc = OTP_ECOMMIT;
		goto out;
	}
	committed = 1;
out:
	PQclear(r);
	pg_row_clear(&row);
	if (rc != 0 && *l->reason != '\0')
		(void)snprintf(s->reason, sizeof(s->reason), "%s", l->reason);
	if (pi->p.c != NULL)
		login_end_tx(l, committed);
	sys_login_free(l);
	return rc;
}

static int
pg_export(struct sys_store *s, const char *user, char *img, size_t imgsz,
    size_t *len)
{
	struct pg_store *ps = s->impl;
	struct pg_row row;
	char ad[AD_MAX];
	PGresult *r;
	int rc;

	if ((rc = read_key(s, ps)) != 0)
		return rc;
	if ((rc = user_exec(s, "SELECT " ROW_COLS " FROM otp_tokens WHERE "
	    "login = $1", user, &r)) != 0)
		return rc;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return OTP_EUSERSUNKNOWN;
	}
	rc = row_of(r, 0, &row);
	PQclear(r);
	if (rc != 0)
		return rc;
	rc = row.m.gen <= 0 || row.statelen > SEALED_MAX ? OTP_ESTOREROW :
	    otp_unseal(&ps->keys, ad, assoc(ad, user, strlen(user), row.kind,
	    &row.m), row.state, row.statelen, (uint8_t *)img, imgsz, len);
	pg_row_clear(&row);
	return rc;
}

static int
pg_load_state(struct sys_store *s, const char *user, struct otp_state *st)
{
	char *img;
	size_t len;
	int rc;

	if (user == NULL)
		return OTP_EUSERSFIELD;
	if ((img = malloc(OTP_STATE_MAX)) == NULL)
		return OTP_ENOMEM;
	if ((rc = pg_export(s, user, img, OTP_STATE_MAX, &len)) == 0)
		rc = otp_state_parse(img, len, st);
	otp_wipe(img, OTP_STATE_MAX);
	free(img);
	return rc;
}

/* Before the row is read: a code of 6 to 8 digits, perhaps after a PIN
 * (the row says which digits and PIN). */
static int
pg_shape(const char *code)
{
	size_t n = strlen(code), i;

	if (n < 6 || n > OTP_STATE_PIN_MAX + 8)
		return OTP_ECODE;
	for (i = 0; i < n; i++)
		if ((unsigned char)code[i] <= ' ' || code[i] == 0x7f ||
		    (i >= n - 6 && (code[i] < '0' || code[i] > '9')))
			return OTP_ECODE;
	return 0;
}

static const struct sys_store_ops pg_ops = {
	.scheme = "postgresql",
	.caps = SYS_STORE_MANY | SYS_STORE_SCRATCH | SYS_STORE_SHARED,
	.put = pg_put,
	.has = pg_has,
	.load_state = pg_load_state,
	.shape = pg_shape,
	.badshape = "not a code of 6 to 8 digits (after the token's PIN)",
	.want = "a code of 6 to 8 digits or an 8-digit scratch code, after "
	    "the token's PIN if it has one",
	.login_open = pg_login_open,
	.begin = pg_begin,
	.end = pg_end,
	.check = pg_check,
	.login_free = pg_login_free,
	.open = pg_open,
	.close = pg_close,
	.init = pg_init,
	.list = pg_list,
	.remove = pg_remove,
	.enable = pg_enable,
	.export = pg_export,
	.resync = pg_resync,
	.unlock = pg_unlock,
	.reseal = pg_reseal,
	.log = pg_log,
	.prune = pg_prune,
};

/* The object's one exported symbol (the link exports nothing else). */
const struct sys_store_ops *otp_store_pg_ops(unsigned long abi);

const struct sys_store_ops *
otp_store_pg_ops(unsigned long abi)
{
	return abi == SYS_STORE_ABI ? &pg_ops : NULL;
}
