/*
 * pgconn.c - connections for the PostgreSQL store.
 *
 * Every wait is bounded by the login's deadline: libpq runs non-blocking
 * and we poll its socket.  A query still running at the deadline is
 * cancelled on the server and its connection dropped; a COMMIT among
 * them has an unknown outcome, which the store treats as a refusal.
 *
 * A connection costs about 150 transactions, so a long-lived host
 * (FreeRADIUS running pam_otp.so in its threads) keeps a few idle ones:
 * a pool guarded by a mutex, bounded, keyed by conninfo.  A connection
 * belongs to the process that made it: a child after fork() never uses
 * one it inherited, nor closes it politely (PQfinish would send the
 * server a Terminate on the parent's socket); it forgets it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fnv.h"
#include "otp.h"
#include "pgconn.h"

#define POOL_MAX	16	/* idle connections kept, all URLs */

struct slot {
	PGconn		*c;
	char		*conninfo;
	pid_t		 pid;
	struct pgc_kept	 kept;
};

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct slot pool[POOL_MAX];
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

/* fork() with the mutex held by another thread would leave it locked in
 * the child: hold it across the fork. */
static void
fork_prepare(void)
{
	(void)pthread_mutex_lock(&pool_mu);
}

static void
fork_parent(void)
{
	(void)pthread_mutex_unlock(&pool_mu);
}

/* The child forgets the parent's connections: no use, no Terminate.
 * What they hold stays allocated in the child (at most POOL_MAX). */
static void
fork_child(void)
{
	size_t i;

	for (i = 0; i < POOL_MAX; i++) {
		pool[i].c = NULL;
		pool[i].conninfo = NULL;
	}
	(void)pthread_mutex_unlock(&pool_mu);
}

static void
fork_register(void)
{
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
}

uint64_t
pgc_new_login(void)
{
	static _Atomic uint64_t serial;

	return atomic_fetch_add(&serial, 1) + 1;
}

int64_t
pgc_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
set_why(struct pgc *p, const char *what, const char *msg)
{
	char raw[sizeof(p->why)];
	size_t n, o;
	char c;

	(void)snprintf(raw, sizeof(raw), "%s%s%s", what,
	    msg != NULL && *msg != '\0' ? ": " : "", msg != NULL ? msg : "");
	/* libpq's messages end in a newline; a log line must not. */
	n = strlen(raw);
	while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == ' '))
		raw[--n] = '\0';
	/* One line: libpq's lines joined with "; " (its second line is a
	 * sentence of its own: "Is the server running ..."), indents and
	 * tabs one blank. */
	for (n = 0, o = 0; raw[n] != '\0' && o + 2 < sizeof(p->why); n++) {
		c = raw[n] == '\t' ? ' ' : raw[n];
		if (c == '\n') {
			while (o > 0 && p->why[o - 1] == ' ')
				o--;
			if (o > 0 && p->why[o - 1] != ';')
				p->why[o++] = ';';
			c = ' ';
		}
		if (c == ' ' && o > 0 && p->why[o - 1] == ' ')
			continue;
		p->why[o++] = c;
	}
	p->why[o] = '\0';
}

/* Wait for c's socket to be readable (or writable); 0, OTP_EDEADLINE,
 * OTP_EDB. */
static int
wait_sock(struct pgc *p, int wr)
{
	struct pollfd fd;
	int64_t left;
	int r;

	if ((fd.fd = PQsocket(p->c)) < 0) {
		set_why(p, "no connection", NULL);
		return OTP_EDB;
	}
	fd.events = wr ? POLLOUT : POLLIN;
	for (;;) {
		if ((left = p->deadline - pgc_now_ms()) <= 0)
			return OTP_EDEADLINE;
		r = poll(&fd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r > 0)
			return 0;
		if (r == 0)
			return OTP_EDEADLINE;
		if (errno != EINTR) {
			set_why(p, "poll", strerror(errno));
			return OTP_EDB;
		}
	}
}

static void
drop(struct pgc *p)
{
	if (p->c != NULL)
		PQfinish(p->c);
	p->c = NULL;
}

static void
quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/*
 * Host names resolved within the deadline.  libpq resolves a name with a
 * blocking getaddrinfo() that no deadline bounds (4 s of a slow resolver
 * against a login's 500 ms), and neither a signal nor process-wide state
 * may bound it here (pam_otp.so runs in threaded hosts): a thread of its
 * own resolves each name, which the login waits for until the deadline,
 * then gives libpq the addresses (hostaddr=, host= kept for TLS and
 * password lookups).  A resolver still running at the deadline finishes
 * alone; the last of the two to let go frees the job.
 */
#define ADDR_MAX	8	/* addresses of one name, as libpq tries */

struct dns_job {
	char		*name;
	struct addrinfo	*res;
	int		 rc;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 done;
	int		 refs;
};

static void
dns_release(struct dns_job *j)
{
	int last;

	(void)pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	(void)pthread_mutex_unlock(&j->mu);
	if (last) {
		if (j->res != NULL)
			freeaddrinfo(j->res);
		free(j->name);
		(void)pthread_mutex_destroy(&j->mu);
		(void)pthread_cond_destroy(&j->cv);
		free(j);
	}
}

static void *
dns_run(void *arg)
{
	struct dns_job *j = arg;
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(j->name, NULL, &hints, &res);
	(void)pthread_mutex_lock(&j->mu);
	j->rc = rc;
	j->res = res;
	j->done = 1;
	(void)pthread_cond_signal(&j->cv);
	(void)pthread_mutex_unlock(&j->mu);
	dns_release(j);
	return NULL;
}

/* name's addresses by p's deadline: 0 and *res (freeaddrinfo it), else
 * OTP_EDEADLINE, OTP_ENOMEM or OTP_EDB, with p->why. */
static int
resolve(struct pgc *p, const char *name, struct addrinfo **res)
{
	struct dns_job *j;
	pthread_condattr_t ca;
	pthread_attr_t attr;
	struct timespec until;
	pthread_t t;
	int64_t at;
	int started = 0, rc;
	char why[300];

	*res = NULL;
	if ((j = calloc(1, sizeof(*j))) == NULL ||
	    (j->name = strdup(name)) == NULL) {
		free(j);
		set_why(p, "connect", "out of memory");
		return OTP_ENOMEM;
	}
	(void)pthread_mutex_init(&j->mu, NULL);
	(void)pthread_condattr_init(&ca);
	(void)pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	(void)pthread_cond_init(&j->cv, &ca);
	(void)pthread_condattr_destroy(&ca);
	j->refs = 2;
	if (pthread_attr_init(&attr) == 0) {
		(void)pthread_attr_setdetachstate(&attr,
		    PTHREAD_CREATE_DETACHED);
		started = pthread_create(&t, &attr, dns_run, j) == 0;
		(void)pthread_attr_destroy(&attr);
	}
	if (!started) {
		j->refs = 1;
		dns_release(j);
		set_why(p, "connect", "no thread to resolve a host name");
		return OTP_EDB;
	}
	at = p->deadline;
	until.tv_sec = (time_t)(at / 1000);
	until.tv_nsec = (long)(at % 1000) * 1000000L;
	(void)pthread_mutex_lock(&j->mu);
	while (!j->done && pthread_cond_timedwait(&j->cv, &j->mu,
	    &until) == 0)
		;
	if (j->done && j->rc == 0) {
		*res = j->res;
		j->res = NULL;
	}
	rc = !j->done ? OTP_EDEADLINE : j->rc != 0 ? OTP_EDB : 0;
	if (rc == OTP_EDB)
		(void)snprintf(why, sizeof(why), "could not translate host "
		    "name \"%.200s\" to address: %s", name,
		    gai_strerror(j->rc));
	(void)pthread_mutex_unlock(&j->mu);
	dns_release(j);
	if (rc == OTP_EDEADLINE) {
		(void)snprintf(why, sizeof(why), "resolving \"%.200s\": "
		    "deadline passed", name);
		set_why(p, "connect", why);
	} else if (rc == OTP_EDB)
		set_why(p, "connect", why);
	return rc;
}

/* Whether host (one entry of host=) is libpq's without a name to
 * resolve: an address, a socket directory, the default. */
static int
no_name(const char *h)
{
	struct in6_addr a;

	return *h == '\0' || *h == '/' || *h == '@' ||
	    inet_pton(AF_INET, h, &a) == 1 || inet_pton(AF_INET6, h, &a) == 1;
}

/* The n-th entry of a comma-separated list into out ("" past its end). */
static void
list_at(const char *list, size_t n, char *out, size_t outsz)
{
	const char *e;

	for (; n > 0 && list != NULL; n--)
		if ((list = strchr(list, ',')) != NULL)
			list++;
	if (list == NULL) {
		*out = '\0';
		return;
	}
	e = strchr(list, ',');
	(void)snprintf(out, outsz, "%.*s", (int)(e != NULL ? (size_t)(e -
	    list) : strlen(list)), list);
}

static size_t
list_len(const char *list)
{
	size_t n = 1;

	while ((list = strchr(list, ',')) != NULL) {
		list++;
		n++;
	}
	return n;
}

/* Append ",item" (or "item" first) to a growing list. */
static int
list_add(char **list, size_t *len, int first, const char *item)
{
	size_t n = strlen(item);
	char *l;

	if ((l = realloc(*list, *len + n + 2)) == NULL)
		return -1;
	if (!first)
		l[(*len)++] = ',';
	memcpy(l + *len, item, n + 1);
	*len += n;
	*list = l;
	return 0;
}

/*
 * Start connecting: the conninfo as it is when no host name needs
 * resolving (or hostaddr= is given), else with each name's addresses
 * resolved by the deadline, as host=, hostaddr= and port= lists of one
 * entry per address.  *c NULL and 0: out of memory.
 */
static int
connect_start(struct pgc *p, PGconn **c)
{
	PQconninfoOption *opts, *o;
	const char *host = NULL, *hostaddr = NULL, *port = NULL;
	const char **kw = NULL, **val = NULL;
	char *hosts = NULL, *addrs = NULL, *ports = NULL, *err = NULL;
	char h[256], pt[32], ip[64];
	size_t nh, i, k, hl = 0, al = 0, pl = 0, nopt = 0, got = 0;
	struct addrinfo *res, *ai;
	int rc = 0, names = 0;

	*c = NULL;
	if ((opts = PQconninfoParse(p->conninfo, &err)) == NULL) {
		PQfreemem(err);
		*c = PQconnectStart(p->conninfo);	/* libpq says why */
		return 0;
	}
	for (o = opts; o->keyword != NULL; o++, nopt++) {
		if (strcmp(o->keyword, "host") == 0)
			host = o->val;
		else if (strcmp(o->keyword, "hostaddr") == 0)
			hostaddr = o->val;
		else if (strcmp(o->keyword, "port") == 0)
			port = o->val;
	}
	/* What libpq would take from the environment otherwise. */
	if (host == NULL)
		host = getenv("PGHOST");
	if (hostaddr == NULL)
		hostaddr = getenv("PGHOSTADDR");
	if (port == NULL)
		port = getenv("PGPORT");
	nh = host != NULL ? list_len(host) : 0;
	for (i = 0; i < nh; i++) {
		list_at(host, i, h, sizeof(h));
		names |= !no_name(h);
	}
	if (!names || (hostaddr != NULL && *hostaddr != '\0') ||
	    (port != NULL && list_len(port) != 1 && list_len(port) != nh)) {
		PQconninfoFree(opts);
		*c = PQconnectStart(p->conninfo);
		return 0;
	}
	for (i = 0; i < nh && rc != OTP_EDEADLINE && rc != OTP_ENOMEM; i++) {
		list_at(host, i, h, sizeof(h));
		list_at(port, port != NULL && list_len(port) > 1 ? i : 0, pt,
		    sizeof(pt));
		if (no_name(h)) {
			if (list_add(&hosts, &hl, got == 0, h) != 0 ||
			    list_add(&addrs, &al, got == 0, "") != 0 ||
			    list_add(&ports, &pl, got == 0, pt) != 0)
				rc = OTP_ENOMEM;
			got++;
			continue;
		}
		/* A name that does not resolve: the next host's turn. */
		if ((rc = resolve(p, h, &res)) != 0)
			continue;
		for (ai = res, k = 0; ai != NULL && k < ADDR_MAX;
		    ai = ai->ai_next, k++) {
			if (getnameinfo(ai->ai_addr, ai->ai_addrlen, ip,
			    sizeof(ip), NULL, 0, NI_NUMERICHOST) != 0)
				continue;
			if (list_add(&hosts, &hl, got == 0, h) != 0 ||
			    list_add(&addrs, &al, got == 0, ip) != 0 ||
			    list_add(&ports, &pl, got == 0, pt) != 0) {
				rc = OTP_ENOMEM;
				break;
			}
			got++;
		}
		freeaddrinfo(res);
	}
	if (rc == OTP_EDEADLINE || rc == OTP_ENOMEM || got == 0) {
		if (rc == OTP_ENOMEM)
			set_why(p, "connect", "out of memory");
		rc = rc == 0 ? OTP_EDB : rc;
		goto out;
	}
	rc = 0;
	kw = calloc(nopt + 4, sizeof(*kw));
	val = calloc(nopt + 4, sizeof(*val));
	if (kw == NULL || val == NULL)
		goto out;
	for (o = opts, k = 0; o->keyword != NULL; o++)
		if (o->val != NULL && strcmp(o->keyword, "host") != 0 &&
		    strcmp(o->keyword, "hostaddr") != 0 &&
		    strcmp(o->keyword, "port") != 0) {
			kw[k] = o->keyword;
			val[k++] = o->val;
		}
	kw[k] = "host";
	val[k++] = hosts;
	kw[k] = "hostaddr";
	val[k++] = addrs;
	if (port != NULL) {
		kw[k] = "port";
		val[k++] = ports;
	}
	*c = PQconnectStartParams(kw, val, 0);
out:
	free(kw);
	free(val);
	free(hosts);
	free(addrs);
	free(ports);
	PQconninfoFree(opts);
	return rc;
}

/* A new connection within the deadline (every host of a multi-host URL
 * is libpq's to try, in order). */
static int
connect_new(struct pgc *p)
{
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int rc;

	memset(&p->kept, 0, sizeof(p->kept));
	p->kept.born = p->login;
	if ((rc = connect_start(p, &p->c)) != 0)
		return rc;
	if (p->c == NULL) {
		set_why(p, "connect", "out of memory");
		return OTP_ENOMEM;
	}
	if (PQstatus(p->c) == CONNECTION_BAD) {
		set_why(p, "connect", PQerrorMessage(p->c));
		drop(p);
		return OTP_EDB;
	}
	while (st != PGRES_POLLING_OK) {
		if (st == PGRES_POLLING_FAILED) {
			set_why(p, "connect", PQerrorMessage(p->c));
			drop(p);
			return OTP_EDB;
		}
		if ((rc = wait_sock(p, st == PGRES_POLLING_WRITING)) != 0) {
			if (rc == OTP_EDEADLINE)
				set_why(p, "connect", "deadline passed");
			drop(p);
			return rc;
		}
		st = PQconnectPoll(p->c);
	}
	/* The server's notices (a table that exists already) are not
	 * ours to print: a PAM host's stderr is nobody's. */
	(void)PQsetNoticeProcessor(p->c, quiet, NULL);
	if (PQsetnonblocking(p->c, 1) != 0) {
		set_why(p, "connect", PQerrorMessage(p->c));
		drop(p);
		return OTP_EDB;
	}
	return 0;
}

/* An idle connection whose server has closed it (a restart, a crash, a
 * failover) has something to read: the end of the stream, or a message
 * that it is going away.  Idle and whole, it has nothing. */
static int
idle_alive(PGconn *c)
{
	struct pollfd fd;

	if (PQstatus(c) != CONNECTION_OK ||
	    PQtransactionStatus(c) != PQTRANS_IDLE)
		return 0;
	fd.fd = PQsocket(c);
	fd.events = POLLIN;
	if (fd.fd < 0 || poll(&fd, 1, 0) < 0)
		return 0;
	return fd.revents == 0;
}

/* Take an idle connection to p->conninfo of this process from the pool,
 * or NULL; *kept gets what it keeps. */
static PGconn *
pool_take(const struct pgc *p, struct pgc_kept *kept)
{
	pid_t me = getpid();
	PGconn *c = NULL;
	size_t i;

	(void)pthread_mutex_lock(&pool_mu);
	for (i = 0; i < POOL_MAX && c == NULL; i++) {
		if (pool[i].c == NULL || pool[i].pid != me ||
		    strcmp(pool[i].conninfo, p->conninfo) != 0)
			continue;
		c = pool[i].c;
		*kept = pool[i].kept;
		free(pool[i].conninfo);
		pool[i].c = NULL;
		pool[i].conninfo = NULL;
	}
	(void)pthread_mutex_unlock(&pool_mu);
	return c;
}

int
pgc_get(struct pgc *p)
{
	struct pgc_kept kept;

	(void)pthread_once(&fork_once, fork_register);
	p->c = NULL;
	p->pooled = p->broken = 0;
	p->why[0] = '\0';
	/* Idle connections the server closed since are dropped here; one
	 * that dies in between fails its first query, and the store then
	 * tries a new one (pgc_renew). */
	while ((p->c = pool_take(p, &kept)) != NULL) {
		if (idle_alive(p->c)) {
			p->pooled = 1;
			p->kept = kept;
			return 0;
		}
		drop(p);
	}
	return connect_new(p);
}

int
pgc_renew(struct pgc *p)
{
	struct pgc_kept kept;
	PGconn *c;

	p->broken = 1;
	drop(p);
	/* The others to the same server went with this one. */
	while ((c = pool_take(p, &kept)) != NULL)
		PQfinish(c);
	p->pooled = p->broken = 0;
	p->why[0] = '\0';
	return connect_new(p);
}

void
pgc_put(struct pgc *p)
{
	char *ci = NULL;
	size_t i;

	if (p->c == NULL)
		return;
	if (p->broken || PQstatus(p->c) != CONNECTION_OK ||
	    PQtransactionStatus(p->c) != PQTRANS_IDLE ||
	    (ci = strdup(p->conninfo)) == NULL) {
		drop(p);
		return;
	}
	(void)pthread_mutex_lock(&pool_mu);
	for (i = 0; i < POOL_MAX; i++)
		if (pool[i].c == NULL) {
			pool[i].c = p->c;
			pool[i].conninfo = ci;
			pool[i].pid = getpid();
			pool[i].kept = p->kept;
			p->c = NULL;
			break;
		}
	(void)pthread_mutex_unlock(&pool_mu);
	if (p->c != NULL) {	/* the pool is full */
		free(ci);
		drop(p);
	}
}

/* A cancel request on its way.  libpq 15's PQcancel blocks until the
 * server closes the cancel connection, without a bound (a frozen server,
 * a partition): it runs in a thread of its own, which the login waits
 * for at most CANCEL_WAIT_MS past its deadline.  The last of the two to
 * let go frees the request. */
#define CANCEL_WAIT_MS	500

struct cancel_job {
	PGcancel	*cn;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 done;
	int		 refs;
};

static void
job_release(struct cancel_job *j)
{
	int last;

	(void)pthread_mutex_lock(&j->mu);
	last = --j->refs == 0;
	(void)pthread_mutex_unlock(&j->mu);
	if (last) {
		PQfreeCancel(j->cn);
		(void)pthread_mutex_destroy(&j->mu);
		(void)pthread_cond_destroy(&j->cv);
		free(j);
	}
}

static void *
cancel_run(void *arg)
{
	struct cancel_job *j = arg;
	char buf[256];

	(void)PQcancel(j->cn, buf, sizeof(buf));
	(void)pthread_mutex_lock(&j->mu);
	j->done = 1;
	(void)pthread_cond_signal(&j->cv);
	(void)pthread_mutex_unlock(&j->mu);
	job_release(j);
	return NULL;
}

/* The deadline passed with a query running: ask the server to stop it
 * (a COMMIT waiting for a synchronous standby ends only so), then drop
 * the connection, whose state is unknown. */
static void
cancel(struct pgc *p)
{
	struct cancel_job *j;
	struct timespec until;
	pthread_attr_t attr;
	pthread_t t;
	int started = 0;

	if ((j = calloc(1, sizeof(*j))) != NULL &&
	    (j->cn = PQgetCancel(p->c)) != NULL) {
		(void)pthread_mutex_init(&j->mu, NULL);
		(void)pthread_cond_init(&j->cv, NULL);
		j->refs = 2;
		if (pthread_attr_init(&attr) == 0) {
			(void)pthread_attr_setdetachstate(&attr,
			    PTHREAD_CREATE_DETACHED);
			started = pthread_create(&t, &attr, cancel_run, j) == 0;
			(void)pthread_attr_destroy(&attr);
		}
		if (!started)
			j->refs = 1;
		else {
			(void)clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += CANCEL_WAIT_MS * 1000000L;
			until.tv_sec += until.tv_nsec / 1000000000L;
			until.tv_nsec %= 1000000000L;
			(void)pthread_mutex_lock(&j->mu);
			while (!j->done && pthread_cond_timedwait(&j->cv,
			    &j->mu, &until) == 0)
				;
			(void)pthread_mutex_unlock(&j->mu);
		}
		job_release(j);
	} else
		free(j);
	p->broken = 1;
	drop(p);
}

/* What send_wait sends: sql itself, or the statement of that name. */
enum how { UNNAMED, PREPARE, BY_NAME };

/* Send sql (or, by how, name's statement) and wait until its results
 * can be read without blocking. */
static int
send_wait(struct pgc *p, enum how how, const char *name, const char *sql,
    int n, const char *const *vals, const int *lens, const int *fmts)
{
	int f, rc, sent;

	switch (how) {
	case PREPARE:
		sent = PQsendPrepare(p->c, name, sql, n, NULL);
		break;
	case BY_NAME:
		sent = PQsendQueryPrepared(p->c, name, n, vals, lens, fmts,
		    0);
		break;
	default:
		/* n < 0: a script of several statements, no parameters. */
		sent = n < 0 ? PQsendQuery(p->c, sql) :
		    PQsendQueryParams(p->c, sql, n, NULL, vals, lens, fmts,
		    0);
		break;
	}
	if (!sent) {
		set_why(p, "query", PQerrorMessage(p->c));
		p->broken = 1;
		return OTP_EDB;
	}
	while ((f = PQflush(p->c)) == 1)
		if ((rc = wait_sock(p, 1)) != 0)
			goto fail;
	if (f < 0) {
		set_why(p, "query", PQerrorMessage(p->c));
		p->broken = 1;
		return OTP_EDB;
	}
	return 0;
fail:
	if (rc == OTP_EDEADLINE) {
		set_why(p, "query", "deadline passed; cancelled");
		cancel(p);
	}
	return rc;
}

/* The next result within the deadline; NULL at the end of them. */
static int
next_result(struct pgc *p, PGresult **r)
{
	int rc;

	*r = NULL;
	while (PQisBusy(p->c)) {
		if ((rc = wait_sock(p, 0)) != 0) {
			if (rc == OTP_EDEADLINE) {
				set_why(p, "query", "deadline passed; "
				    "cancelled");
				cancel(p);
			}
			return rc;
		}
		if (!PQconsumeInput(p->c)) {
			set_why(p, "query", PQerrorMessage(p->c));
			p->broken = 1;
			return OTP_EDB;
		}
	}
	*r = PQgetResult(p->c);
	return 0;
}

static int
result_ok(struct pgc *p, PGresult *r, char *sqlstate)
{
	const char *code;
	ExecStatusType st = PQresultStatus(r);

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ||
	    st == PGRES_SINGLE_TUPLE)
		return 0;
	code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	if (sqlstate != NULL)
		(void)snprintf(sqlstate, 6, "%s", code != NULL ? code : "");
	set_why(p, code != NULL ? code : "query",
	    PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
	if (PQstatus(p->c) != CONNECTION_OK)
		p->broken = 1;
	return OTP_EDB;
}

/* Send, then wait for the last result: pgc_exec's contract. */
static int
exec_how(struct pgc *p, enum how how, const char *name, const char *sql,
    int n, const char *const *vals, const int *lens, const int *fmts,
    PGresult **res, char *sqlstate)
{
	PGresult *r, *last = NULL;
	int rc;

	*res = NULL;
	if (sqlstate != NULL)
		sqlstate[0] = '\0';
	if ((rc = send_wait(p, how, name, sql, n, vals, lens, fmts)) != 0)
		return rc;
	for (;;) {
		if ((rc = next_result(p, &r)) != 0) {
			PQclear(last);
			return rc;
		}
		if (r == NULL)
			break;
		PQclear(last);
		last = r;
	}
	if (last == NULL) {
		set_why(p, "query", PQerrorMessage(p->c));
		p->broken = 1;
		return OTP_EDB;
	}
	if ((rc = result_ok(p, last, sqlstate)) != 0) {
		PQclear(last);
		return rc;
	}
	*res = last;
	return 0;
}

int
pgc_exec(struct pgc *p, const char *sql, int n, const char *const *vals,
    const int *lens, const int *fmts, PGresult **res, char *sqlstate)
{
	return exec_how(p, UNNAMED, NULL, sql, n, vals, lens, fmts, res,
	    sqlstate);
}

/* Whether c can run another statement now: the last one failed as a
 * statement, not as a connection. */
static int
still_usable(const struct pgc *p)
{
	return p->c != NULL && !p->broken &&
	    PQstatus(p->c) == CONNECTION_OK &&
	    PQtransactionStatus(p->c) == PQTRANS_IDLE;
}

/* The statement's name: its text's 64-bit FNV-1a hash, so that a name
 * met on a server session (through a pooler, say) is always this text. */
static void
stmt_name(const char *sql, char name[24])
{
	(void)snprintf(name, 24, "otp_%016llx",
	    (unsigned long long)fnv1a64(FNV64_BASIS, sql));
}

int
pgc_run(struct pgc *p, const struct pgc_stmt *st, const char *const *vals,
    const int *lens, const int *fmts, PGresult **res, char *sqlstate)
{
	struct pgc_kept *k = &p->kept;
	char code[6], name[24];
	int rc;

	stmt_name(st->sql, name);

	/* A connection made for this login may serve it alone (a process
	 * a login): preparing would cost it a round trip for nothing. */
	if (p->login != 0 && k->born != p->login && !k->noprep &&
	    !(k->prepared & st->bit)) {
		rc = exec_how(p, PREPARE, name, st->sql, st->nparams,
		    NULL, NULL, NULL, res, NULL);
		PQclear(*res);
		*res = NULL;
		if (rc == 0)
			k->prepared |= st->bit;
		else if (still_usable(p)) {
			k->noprep = 1;	/* the name taken, say: unnamed */
			p->why[0] = '\0';
		} else
			return rc;
	}
	if (!k->noprep && (k->prepared & st->bit)) {
		rc = exec_how(p, BY_NAME, name, NULL, st->nparams, vals,
		    lens, fmts, res, code);
		if (sqlstate != NULL)
			memcpy(sqlstate, code, sizeof(code));
		if (rc != OTP_EDB || !still_usable(p))
			return rc;
		/* Nothing ran on either error: 26000, the statement is not
		 * on this server session (a pooler in transaction mode),
		 * unnamed from now on; 0A000, its plan is stale (the table
		 * altered), this connection never pooled again. */
		if (strcmp(code, "26000") == 0)
			k->noprep = 1;
		else if (strcmp(code, "0A000") == 0)
			p->broken = 1;
		else
			return rc;
		k->prepared = 0;
		p->why[0] = '\0';
	}
	return exec_how(p, UNNAMED, NULL, st->sql, st->nparams, vals, lens,
	    fmts, res, sqlstate);
}

int
pgc_each(struct pgc *p, const char *sql, int n, const char *const *vals,
    const int *lens, const int *fmts,
    int (*fn)(void *arg, const PGresult *row), void *arg)
{
	PGresult *r;
	int rc, stop = 0, bad = 0;

	if ((rc = send_wait(p, UNNAMED, NULL, sql, n, vals, lens, fmts)) != 0)
		return rc;
	if (!PQsetSingleRowMode(p->c))
		p->broken = 1;
	for (;;) {
		if ((rc = next_result(p, &r)) != 0)
			return rc;
		if (r == NULL)
			break;
		if (!bad && result_ok(p, r, NULL) != 0)
			bad = OTP_EDB;
		else if (!bad && !stop &&
		    PQresultStatus(r) == PGRES_SINGLE_TUPLE)
			stop = fn(arg, r);
		PQclear(r);
	}
	return bad != 0 ? bad : stop;
}

const char *
pgc_text(const PGresult *r, int row, int col, size_t max, size_t *len)
{
	int n;

	if (len != NULL)
		*len = 0;
	if (r == NULL || row < 0 || col < 0 || row >= PQntuples(r) ||
	    col >= PQnfields(r) || PQgetisnull(r, row, col) ||
	    (n = PQgetlength(r, row, col)) < 0 || (size_t)n > max)
		return NULL;
	if (len != NULL)
		*len = (size_t)n;
	return PQgetvalue(r, row, col);
}

int
pgc_null(const PGresult *r, int row, int col)
{
	return r != NULL && row >= 0 && col >= 0 && row < PQntuples(r) &&
	    col < PQnfields(r) && PQgetisnull(r, row, col);
}
