/*
 * pgconn.h - connections to PostgreSQL for the store (pgconn.c): within
 * a deadline, and kept across logins in a long-lived host.
 */
#ifndef OTP_PGCONN_H
#define OTP_PGCONN_H

#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

/* What a pooled connection keeps of its past: the login it was made
 * for, and its prepared statements (pgc_run). */
struct pgc_kept {
	uint64_t	 born;		/* the login c was made for */
	unsigned	 prepared;	/* the pgc_stmt bits prepared on c */
	int		 noprep;	/* c keeps no prepared statement */
};

/* One use of a connection: where to, until when, and what went wrong. */
struct pgc {
	const char	*conninfo;
	int64_t		 deadline;	/* CLOCK_MONOTONIC ms */
	PGconn		*c;
	int		 pooled;	/* c came from the pool */
	int		 broken;	/* never to be pooled again */
	uint64_t	 login;		/* the login using c (pgc_new_login) */
	struct pgc_kept	 kept;
	char		 why[400];	/* the last failure, no secret */
};

/*
 * A statement a long-lived host runs at every login.  On a connection
 * that an earlier login made (the host serves several logins in one
 * process) it is prepared once under its name and then run by name: the
 * server parses and plans it once a connection, not once a login; a
 * process that serves one login prepares nothing.  A connection that
 * does not keep it (a pooler that hands each transaction to another
 * server session) runs it unnamed from then on.  Only for a statement
 * that is a transaction of its own: a prepared statement gone makes an
 * error that would abort a transaction around it.
 */
struct pgc_stmt {
	const char	*sql;		/* named "otp_" and a hash of it */
	int		 nparams;
	unsigned	 bit;		/* one bit a statement */
};

/* A new login's serial, unique in the process, never 0: struct pgc's
 * login (0, not a login: nothing is prepared). */
uint64_t pgc_new_login(void);
/* Milliseconds of CLOCK_MONOTONIC. */
int64_t pgc_now_ms(void);
/* A connection for p: an idle pooled one to the same conninfo made by
 * this process, else a new one, connected within p->deadline.  0,
 * OTP_EDEADLINE or OTP_EDB (p->why says why). */
int pgc_get(struct pgc *p);
/* p->c failed: drop it and every idle connection to the same place (the
 * server went away for all of them), then connect anew. */
int pgc_renew(struct pgc *p);
/* Done with p->c: back to the pool when it is idle and whole, else
 * closed. */
void pgc_put(struct pgc *p);
/* Run sql with n parameters (vals/lens/fmts as PQexecParams, results as
 * text; n < 0: sql is a script of statements without any) within the
 * deadline: *res on success (PQclear it), else
 * OTP_EDEADLINE (the query cancelled on the server, the connection
 * dropped) or OTP_EDB with p->why; sqlstate (may be NULL, 6 bytes) gets
 * the server's code. */
int pgc_exec(struct pgc *p, const char *sql, int n, const char *const *vals,
    const int *lens, const int *fmts, PGresult **res, char *sqlstate);
/* pgc_exec for a pgc_stmt: by name on a connection an earlier login
 * made, else unnamed; the same results and errors. */
int pgc_run(struct pgc *p, const struct pgc_stmt *st,
    const char *const *vals, const int *lens, const int *fmts,
    PGresult **res, char *sqlstate);
/* Stream sql's rows one at a time: fn(arg, row result) for each until
 * it returns non-zero. */
int pgc_each(struct pgc *p, const char *sql, int n,
    const char *const *vals, const int *lens, const int *fmts,
    int (*fn)(void *arg, const PGresult *row), void *arg);
/*
 * The one way a result's field is read: the text of row and col of r,
 * *len its length (len may be NULL), or NULL when r has no such row or
 * column (a server that sends fewer than asked), the field is NULL, or
 * it is longer than max bytes.  A constraint of the schema is no bound
 * here: a table's owner can drop it and write any value.
 */
const char *pgc_text(const PGresult *r, int row, int col, size_t max,
    size_t *len);
/* 1 when r has row and col and the field is NULL, else 0. */
int pgc_null(const PGresult *r, int row, int col);

#endif /* OTP_PGCONN_H */
