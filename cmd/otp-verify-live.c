/*
 * otp-verify-live.c - otp-verify --interactive: the clock debugger.
 *
 * At a terminal, a view redrawn every second (the clocks, whether the
 * server's is synchronised, the codes of the steps around now with a
 * countdown) and a prompt in it: each code typed is placed in steps and
 * seconds, checked against what the verifier admits, diagnosed when no
 * step gives it, and two or more give a drift estimate and a verdict.
 * ANSI escapes and termios only; the terminal is restored on every way
 * out (q, Ctrl-D, SIGINT, SIGTERM, SIGHUP, an error) and while the job
 * is stopped (Ctrl-Z, SIGTSTP), and the view comes back on SIGCONT.  Elsewhere, one
 * answer line per line of standard input, no escape at all.  The store
 * was read before we start; nothing here writes it.  The analysis is
 * lib/drift.c's.
 */
#include <sys/ioctl.h>
#include <sys/timex.h>

#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "otp_drift.h"
#include "otp-verify-live.h"

#define HIST_MAX	200		/* lines of answers kept for the view */
#define LINE_W		512
#define DIAG_SHOWN	3		/* diagnoses shown per code */
#define FRAME_MAX	(1 << 17)
#define HOTP_REACH	10000		/* counters looked at either side of
					 * the next one (as otp-store resync) */

/* One code's answer. */
struct reply {
	int64_t		when;
	int		matched;
	int64_t		offset;
	uint64_t	counter;
	int		admitted;
	char		place[160];
	char		hint[LINE_W];	/* what to do about it, or "" */
	size_t		ndiag;
	char		diag[DIAG_SHOWN][320];
};

static struct otp_hmac hm;		/* the token's key schedule */
static struct timespec mono0;		/* --now: when our clock started */
static struct otp_drift_obs obs[OTP_DRIFT_MAX];
static size_t nobs, ncodes;

/* ---- the clock and its sync state ----------------------------------- */

/* Our time: the real clock, or --now moving on with the monotonic one. */
static int64_t
clock_now(const struct live *l, long *ms)
{
	struct timespec ts;

	if (l->fake) {
		(void)clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec -= mono0.tv_sec;
		ts.tv_nsec -= mono0.tv_nsec;
		if (ts.tv_nsec < 0) {
			ts.tv_sec--;
			ts.tv_nsec += 1000000000L;
		}
		if (ms != NULL)
			*ms = ts.tv_nsec / 1000000L;
		return l->now + (int64_t)ts.tv_sec;
	}
	(void)clock_gettime(CLOCK_REALTIME, &ts);
	if (ms != NULL)
		*ms = ts.tv_nsec / 1000000L;
	return (int64_t)ts.tv_sec;
}

/* The kernel's word on the system clock (adjtimex(2), read only): never
 * a command that could hang. */
static enum otp_sync
clock_sync(const struct live *l, char *text, size_t size)
{
	struct timex tx;
	int state;

	if (l->fake) {
		snprintf(text, size, "unknown (--now: a clock of our own)");
		return OTP_SYNC_UNKNOWN;
	}
	memset(&tx, 0, sizeof(tx));
	if ((state = ntp_adjtime(&tx)) == -1) {
		snprintf(text, size, "unknown (adjtimex: %s)", strerror(errno));
		return OTP_SYNC_UNKNOWN;
	}
	if (state == TIME_ERROR || (tx.status & STA_UNSYNC)) {
		snprintf(text, size, "NOT synchronised (the kernel says "
		    "STA_UNSYNC: no NTP keeps it)");
		return OTP_SYNC_NO;
	}
	snprintf(text, size, "synchronised, estimated error %ld ms, "
	    "at most %ld ms", tx.esterror / 1000, tx.maxerror / 1000);
	return OTP_SYNC_YES;
}

static void
stamp_utc(int64_t t, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, size, "@%" PRId64, t);
}

/* Local time: the date, time and zone, or (full 0) the time alone. */
static void
stamp_local(int64_t t, int full, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (localtime_r(&tt, &tm) == NULL || (full ?
	    strftime(out, size, "%Y-%m-%d %H:%M:%S %Z", &tm) :
	    strftime(out, size, "%H:%M:%S", &tm)) == 0)
		snprintf(out, size, "@%" PRId64, t);
}

/* "±" where the terminal speaks UTF-8 (the locale says so), else "+-". */
static const char *
plus_minus(void)
{
	const char *v = getenv("LC_ALL");

	if (v == NULL || *v == '\0')
		v = getenv("LC_CTYPE");
	if (v == NULL || *v == '\0')
		v = getenv("LANG");
	if (v != NULL && (strcasestr(v, "UTF-8") != NULL ||
	    strcasestr(v, "utf8") != NULL))
		return "\xc2\xb1";
	return "+-";
}

/* ---- one code --------------------------------------------------------- */

static void
range_text(const struct live *l, char *out, size_t size)
{
	if (l->lo == l->hi)
		snprintf(out, size, "%s%" PRId64, l->lo > 0 ? "+" : "", l->lo);
	else
		snprintf(out, size, "%s%" PRId64 "..%s%" PRId64,
		    l->lo > 0 ? "+" : "", l->lo, l->hi > 0 ? "+" : "", l->hi);
}

static void diagnose(const struct live *l, const char *code, int64_t now,
    struct reply *r);

/* An HOTP code: its counter against the next one, within HOTP_REACH;
 * past the window, how the server catches up with the token. */
static void
analyse_hotp(const struct live *l, const char *code, int64_t now,
    struct reply *r)
{
	struct otp_match m = { 0, 0 };
	uint64_t a;

	if (otp_verify(&hm, code, l->digits, l->u->counter, HOTP_REACH,
	    OTP_WINDOW_AROUND, &m) != 1) {
		snprintf(r->place, sizeof(r->place), "no counter within %d of "
		    "the next one gives it", HOTP_REACH);
		diagnose(l, code, now, r);
		return;
	}
	r->matched = 1;
	r->offset = m.offset;
	r->counter = m.counter;
	r->admitted = m.offset >= l->lo && m.offset <= l->hi;
	a = (uint64_t)(m.offset < 0 ? -m.offset : m.offset);
	if (m.offset == 0)
		snprintf(r->place, sizeof(r->place), "the next code (counter %"
		    PRIu64 ")", m.counter);
	else
		snprintf(r->place, sizeof(r->place), "%" PRIu64 " counter%s "
		    "%s (counter %" PRIu64 ")", a, a == 1 ? "" : "s",
		    m.offset < 0 ? "behind" : "ahead", m.counter);
	if (m.offset < 0)
		snprintf(r->hint, sizeof(r->hint), "; used already, or a "
		    "code the token showed before");
	else if (m.offset > l->hi && l->url != NULL)
		snprintf(r->hint, sizeof(r->hint), "; the token is ahead: "
		    "the server catches up with two codes in a row: otp-store "
		    "resync %s %s CODE1 CODE2", l->url, l->user != NULL &&
		    *l->user != '\0' ? l->user : "USER");
	else if (m.offset > l->hi)
		snprintf(r->hint, sizeof(r->hint), "; the token is ahead: "
		    "-c %" PRIu64 " checks the code after it", m.counter + 1);
}

/* Place code read at now: where it matches within a day, whether the
 * verifier admits it, and the diagnosis when nothing matches. */
static void
analyse(const struct live *l, const char *code, int64_t now,
    const char *pm, struct reply *r)
{
	struct otp_match m = { 0, 0 };
	uint64_t centre, day, secs;
	int rc, i;

	memset(r, 0, sizeof(*r));
	r->when = now;
	if (l->u->type == OTP_TYPE_HOTP) {
		analyse_hotp(l, code, now, r);
		return;
	}
	if (otp_totp_counter(now, l->start, l->u->period, &centre) != 0) {
		snprintf(r->place, sizeof(r->place), "the time is before the "
		    "start time");
		return;
	}
	day = 86400 / l->u->period > 0 ? 86400 / l->u->period : 1;
	rc = otp_verify(&hm, code, l->digits, centre, day, OTP_WINDOW_AROUND,
	    &m);
	if (rc == 1) {
		r->matched = 1;
		r->offset = m.offset;
		r->counter = m.counter;
		r->admitted = m.offset >= l->lo && m.offset <= l->hi;
		(void)otp_drift_place_text(m.offset, l->u->period, pm,
		    r->place, sizeof(r->place));
		/* Whole half-hours off: a phone set to the wrong zone (or a
		 * server's clock kept in local time). */
		secs = (uint64_t)(m.offset < 0 ? -m.offset : m.offset) *
		    l->u->period;
		if (secs >= 1800 && (secs % 1800 <= l->u->period ||
		    1800 - secs % 1800 <= l->u->period)) {
			i = (int)strlen(r->place);
			secs = (secs + 900) / 1800;	/* half-hours */
			snprintf(r->place + i, sizeof(r->place) - (size_t)i,
			    " (about %" PRIu64 " h%s: a time-zone error?)",
			    secs / 2, secs % 2 ? " 30 min" : "");
		}
		return;
	}
	snprintf(r->place, sizeof(r->place), "no step within a day of now "
	    "gives it");
	diagnose(l, code, now, r);
}

/* Which parameter mistake explains a code no step or counter near gives
 * (up to DIAG_SHOWN of them). */
static void
diagnose(const struct live *l, const char *code, int64_t now,
    struct reply *r)
{
	struct otp_finding f[OTP_DIAG_MAX];
	struct otp_diag_params p;
	int n, i;

	memset(&p, 0, sizeof(p));
	p.key = l->keytext;
	p.enc = l->enc;
	p.type = l->u->type;
	p.alg = l->u->alg;
	p.digits = l->digits;
	p.counter = l->u->counter;
	p.step = l->u->period;
	p.start = l->start;
	p.now = now;
	p.window = l->window;
	n = otp_diagnose(&p, code, f, OTP_DIAG_MAX);
	for (i = 0; i < n && (size_t)i < DIAG_SHOWN; i++)
		(void)otp_diag_text(&p, &f[i], strlen(code), r->diag[i],
		    sizeof(r->diag[i]));
	r->ndiag = n > 0 ? (size_t)(n < DIAG_SHOWN ? n : DIAG_SHOWN) : 0;
}

static void
admit_text(const struct live *l, const struct reply *r, char *out,
    size_t size)
{
	char range[48];

	range_text(l, range, sizeof(range));
	snprintf(out, size, "%s (window %s: %s)", r->admitted ? "admitted" :
	    "refused", range, l->rule);
}

/* The server-side fix, when the phone's clock is off by more than the
 * verifier admits and cannot be set (a hardware token): the store
 * learns the skew from codes in a row.  "" for a bare key. */
static void
resync_hint(const struct live *l, const struct reply *r, char *out,
    size_t size)
{
	out[0] = '\0';
	if (l->url == NULL || !r->matched || r->admitted)
		return;
	snprintf(out, size, "; if the phone's clock cannot be set, the "
	    "server learns it: otp-store resync %s %s CODE1 CODE2", l->url,
	    l->user != NULL && *l->user != '\0' ? l->user : "USER");
}

/* Record r for the estimate; the verdict in words into out, or "". */
static enum otp_verdict
drift_update(const struct live *l, const struct reply *r, enum otp_sync sync,
    const char *pm, struct otp_drift *d, char *out, size_t size)
{
	char where[64], phone[64], hint[LINE_W];
	int64_t a;

	if (nobs == OTP_DRIFT_MAX) {
		memmove(obs, obs + 1, sizeof(obs) - sizeof(obs[0]));
		nobs--;
	}
	obs[nobs].now = r->when;
	obs[nobs].matched = r->matched;
	obs[nobs].offset = r->offset;
	obs[nobs].counter = r->counter;
	nobs++;
	ncodes++;
	out[0] = '\0';
	if (otp_drift_estimate(obs, nobs, l->u->period, l->start, sync, d) != 0)
		return OTP_VERDICT_NONE;
	a = d->estimate < 0 ? -d->estimate : d->estimate;
	snprintf(where, sizeof(where), "the phone's clock is %" PRId64 " s %s%"
	    PRId64 " %s", a, pm, d->error, d->estimate < 0 ? "behind" :
	    "ahead of");
	snprintf(phone, sizeof(phone), "the phone is %" PRId64 " s %s%" PRId64
	    " %s", a, pm, d->error, d->estimate < 0 ? "slow" : "fast");
	resync_hint(l, r, hint, sizeof(hint));
	switch (d->verdict) {
	case OTP_VERDICT_AGREE:
		snprintf(out, size, "the clocks agree (%+" PRId64 " s %s%"
		    PRId64 "): nothing to fix", d->estimate, pm, d->error);
		break;
	case OTP_VERDICT_SERVER:
		/* Which clock is wrong cannot be told: name both, the
		 * server's first, as the one that may mislead the rest. */
		snprintf(out, size, "%s; the server's clock is not "
		    "synchronised either: check it first (NTP), then the "
		    "phone's%s", phone, hint);
		break;
	case OTP_VERDICT_PHONE:
		snprintf(out, size, "%s the server's, which is synchronised: "
		    "fix the phone's clock (automatic date and time)%s", where,
		    hint);
		break;
	case OTP_VERDICT_CLOCK:
		snprintf(out, size, "%s the server's; whether the server's "
		    "is synchronised is unknown: check it, else fix the "
		    "phone's%s", where, hint);
		break;
	case OTP_VERDICT_PARAMS:
		snprintf(out, size, "no step near now gives these codes: fix "
		    "the parameters (see the diagnosis)");
		break;
	case OTP_VERDICT_SPREAD:
		snprintf(out, size, "the codes disagree (%+" PRId64 " to %+"
		    PRId64 " s): codes typed late, a clock that jumps, or "
		    "another account's codes", d->span.lo, d->span.hi);
		break;
	case OTP_VERDICT_NONE:
	default:
		break;
	}
	return d->verdict;
}

static const char *
verdict_word(enum otp_verdict v)
{
	switch (v) {
	case OTP_VERDICT_AGREE:
		return "agree";
	case OTP_VERDICT_SERVER:
		return "server";
	case OTP_VERDICT_PHONE:
		return "phone";
	case OTP_VERDICT_CLOCK:
		return "clock";
	case OTP_VERDICT_PARAMS:
		return "parameters";
	case OTP_VERDICT_SPREAD:
		return "spread";
	case OTP_VERDICT_NONE:
	default:
		return "none";
	}
}

/* ---- not at a terminal: one line per code ---------------------------- */

static int
pipe_loop(const struct live *l)
{
	char line[OTP_LINE_MAX] = "", code[OTP_CODE_MAX] = "", stamp[40];
	char adm[256];
	char verdict[LINE_W * 2], sync_text[128];
	struct otp_drift d;
	struct reply r;
	enum otp_sync sync;
	enum otp_verdict v;
	size_t lineno = 0, off, i;
	int64_t now;
	int rc, bad = 0;

	cli_lock(line, sizeof(line));
	cli_lock(code, sizeof(code));
	for (;;) {
		rc = cli_stdin_line(line, sizeof(line));
		if (rc == OTP_EEMPTY)
			break;
		if (rc == OTP_EIO)
			err(CLI_EXIT_ERR, "standard input");
		lineno++;
		now = clock_now(l, NULL);
		stamp_utc(now, stamp, sizeof(stamp));
		if (rc != 0) {
			printf("%s error %zu %s\n", stamp, lineno,
			    otp_strerror(rc));
			bad = 1;
			(void)fflush(stdout);
			continue;
		}
		rc = otp_drift_code_line(line, strlen(line), code,
		    sizeof(code), &off);
		i = strlen(line);
		otp_wipe(line, sizeof(line));
		if (rc == OTP_EEMPTY)
			continue;
		if (rc != 0) {
			if (off >= i)
				printf("%s error %zu not a code: want 6 to 10 "
				    "digits\n", stamp, lineno);
			else
				printf("%s error %zu not a code: character %zu "
				    "is not a digit\n", stamp, lineno, off + 1);
			bad = 1;
			(void)fflush(stdout);
			continue;
		}
		sync = clock_sync(l, sync_text, sizeof(sync_text));
		analyse(l, code, now, "+-", &r);
		otp_wipe(code, sizeof(code));
		if (r.matched) {
			admit_text(l, &r, adm, sizeof(adm));
			printf("%s code %zu %s%" PRId64 " %s %s; %s%s\n",
			    stamp, lineno, r.offset > 0 ? "+" : "", r.offset,
			    r.admitted ? "yes" : "no", r.place, adm, r.hint);
		} else {
			printf("%s code %zu none no %s", stamp, lineno,
			    r.place);
			for (i = 0; i < r.ndiag; i++)
				printf("%s%s", i == 0 ? "; diagnosis: " :
				    "; or: ", r.diag[i]);
			if (r.ndiag == 0)
				printf("; no common mistake explains it");
			printf("\n");
		}
		/* HOTP: no clock to estimate. */
		if (l->u->type == OTP_TYPE_HOTP) {
			ncodes++;
			v = OTP_VERDICT_NONE;
		} else
			v = drift_update(l, &r, sync, "+-", &d, verdict,
			    sizeof(verdict));
		if (v == OTP_VERDICT_PARAMS)
			printf("%s drift %zu - - %s %s\n", stamp, lineno,
			    verdict_word(v), verdict);
		else if (v != OTP_VERDICT_NONE)
			printf("%s drift %zu %+" PRId64 " %" PRId64 " %s %s\n",
			    stamp, lineno, d.estimate, d.error,
			    verdict_word(v), verdict);
		if (fflush(stdout) != 0)
			break;
	}
	otp_wipe(line, sizeof(line));
	otp_wipe(code, sizeof(code));
	return bad ? CLI_EXIT_ERR : 0;
}

/* ---- at a terminal: the live view ------------------------------------ */

static struct termios saved, raw_modes;
static volatile sig_atomic_t raw_on, got_sig, got_winch, got_stop,
    got_cont;

/* Signals whose default action ends the program, but for the faults
 * below: taken only while ppoll() waits, so the view is never torn
 * mid-frame and the restore runs outside a handler.  The real-time
 * signals too (their default ends it as well). */
static const int ending[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};
/* Faults, which cannot wait: the terminal is restored in the handler
 * (write(2) and tcsetattr(3) are async-signal-safe), then the default
 * action runs. */
static const int faults[] = {
	SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGSYS, SIGTRAP,
};

/* The view's state. */
static char hist[HIST_MAX][LINE_W];	/* answers, oldest first */
static size_t nhist;
static char status_line[LINE_W];
static char verdict_line[LINE_W * 2];
static char typed[OTP_DIGITS_MAX + 1];
static size_t ntyped;
static unsigned rows = 24, cols = 80;
static char frame[FRAME_MAX];
static size_t flen;

static void
on_signal(int sig)
{
	got_sig = sig;
}

static void
on_winch(int sig)
{
	(void)sig;
	got_winch = 1;
}

static void
on_stop(int sig)
{
	(void)sig;
	got_stop = 1;
}

static void
on_cont(int sig)
{
	(void)sig;
	got_cont = 1;
}

static void term_restore(void);

static void
on_fault(int sig)
{
	term_restore();
	(void)raise(sig);	/* SA_RESETHAND: the default action now */
}

/* Whether sig was ignored when we started (nohup's SIGHUP, a shell's
 * SIGINT for a background job): it stays so. */
static int
ignored(int sig)
{
	struct sigaction cur;

	return sigaction(sig, NULL, &cur) == 0 && cur.sa_handler == SIG_IGN;
}

/* Into block: every ending signal but those ignored, SIGWINCH, SIGCONT,
 * and SIGTSTP unless ignored (a shell without job control). */
static void
signals_set(sigset_t *block)
{
	size_t j;
	int sig;

	sigemptyset(block);
	for (j = 0; j < sizeof(ending) / sizeof(ending[0]); j++)
		if (!ignored(ending[j]))
			sigaddset(block, ending[j]);
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (!ignored(sig))
			sigaddset(block, sig);
	sigaddset(block, SIGWINCH);
	sigaddset(block, SIGCONT);
	if (!ignored(SIGTSTP))
		sigaddset(block, SIGTSTP);
}

/* Take each signal of block (blocked already) with on_signal, SIGWINCH,
 * SIGTSTP and SIGCONT with their own, and restore the terminal on a
 * fault. */
static void
signals_take(const sigset_t *block)
{
	struct sigaction sa;
	size_t j;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	for (sig = 1; sig <= SIGRTMAX; sig++)
		if (sig != SIGWINCH && sig != SIGTSTP && sig != SIGCONT &&
		    sigismember(block, sig) == 1)
			(void)sigaction(sig, &sa, NULL);
	sa.sa_handler = on_winch;
	(void)sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_cont;
	(void)sigaction(SIGCONT, &sa, NULL);
	sa.sa_handler = on_stop;
	if (sigismember(block, SIGTSTP) == 1)
		(void)sigaction(SIGTSTP, &sa, NULL);
	sa.sa_handler = on_fault;
	sa.sa_flags = (int)SA_RESETHAND;
	for (j = 0; j < sizeof(faults) / sizeof(faults[0]); j++)
		if (!ignored(faults[j]))
			(void)sigaction(faults[j], &sa, NULL);
}


static void
put(const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(STDOUT_FILENO, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

/* Leave the view: the screen and the terminal's modes as they were. */
static void
term_restore(void)
{
	static const char leave[] = "\033[?25h\033[?1049l";

	if (!raw_on)
		return;
	raw_on = 0;
	put(leave, sizeof(leave) - 1);
	(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
}

/* Into the view, or back into it after a stop: raw modes, the
 * alternate screen, the size as it is now. */
static void
term_enter(void)
{
	static const char enter[] = "\033[?1049h\033[2J";

	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw_modes) != 0)
		return;
	raw_on = 1;
	put(enter, sizeof(enter) - 1);
}

/* Ctrl-Z or SIGTSTP: leave the view, stop as the default action would
 * (the signal was blocked: unblocking it delivers it), and come back
 * when continued.  A process group the shell has let go of is never
 * stopped: the view comes back at once. */
static void
term_suspend(void)
{
	struct sigaction sa, prev;
	sigset_t one;

	term_restore();
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = SIG_DFL;
	(void)sigaction(SIGTSTP, &sa, &prev);
	sigemptyset(&one);
	sigaddset(&one, SIGTSTP);
	(void)raise(SIGTSTP);
	(void)sigprocmask(SIG_UNBLOCK, &one, NULL);
	/* Stopped here until SIGCONT. */
	(void)sigprocmask(SIG_BLOCK, &one, NULL);
	(void)sigaction(SIGTSTP, &prev, NULL);
	got_stop = 0;
	got_cont = 1;
}

static void
term_size(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
}

static void frame_raw(const char *s);

/* Append one row to the frame: ind blanks, s[0..n), then clear the rest
 * of the row. */
static void
row_put(unsigned ind, const char *s, size_t n)
{
	while (ind-- > 0 && flen + 8 < sizeof(frame))
		frame[flen++] = ' ';
	while (n-- > 0 && flen + 8 < sizeof(frame))
		frame[flen++] = *s++;
	frame_raw("\033[K\r\n");
}

/* Lay text out at the terminal's width, broken at blanks only: a word
 * wider than a whole row is all that is ever cut.  Rows after the
 * first start under ind columns of blanks (none on a terminal too
 * narrow for that); a UTF-8 sequence takes one column.  With out, the
 * rows are appended to the frame.  Returns how many rows it takes. */
static unsigned
wrap(const char *text, unsigned ind, int out)
{
	unsigned n = 0, w, room, pad;
	size_t i = 0, j, brk;
	int have;

	if (cols <= 2 * ind)
		ind = 0;
	for (;;) {
		/* Under the indent; a word too wide for that, at the left
		 * edge. */
		for (pad = n > 0 ? ind : 0;; pad = 0) {
			room = cols - pad;
			have = 0;
			brk = i;
			for (j = i, w = 0; text[j] != '\0'; j++) {
				/* A blank after a word ends a piece that
				 * fits. */
				if (text[j] == ' ' && j > i &&
				    text[j - 1] != ' ') {
					brk = j;
					have = 1;
				}
				if (((unsigned char)text[j] & 0xc0) != 0x80 &&
				    ++w > room)
					break;
			}
			if (text[j] == '\0' || have || pad == 0)
				break;
		}
		if (text[j] == '\0' || !have)
			brk = j;	/* the rest fits, or one long word */
		if (out)
			row_put(pad, text + i, brk - i);
		n++;
		for (i = brk; text[i] == ' '; i++)
			;
		if (text[i] == '\0')
			return n;
	}
}

/* One line of the view, wrapped (continued under the 7 columns of a
 * label such as "Clock  "); the rows it took. */
static unsigned __attribute__((format(printf, 1, 2)))
vline(const char *fmt, ...)
{
	char buf[LINE_W * 2];
	va_list ap;

	unsigned n;

	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = wrap(buf, 7, 1);
	otp_wipe(buf, sizeof(buf));	/* a code row is a login */
	return n;
}

static void
frame_raw(const char *s)
{
	size_t n = strlen(s);

	/* With its NUL, which the next piece overwrites. */
	if (flen + n + 1 <= sizeof(frame)) {
		memcpy(frame + flen, s, n + 1);
		flen += n;
	}
}

static void __attribute__((format(printf, 1, 2)))
hist_add(const char *fmt, ...)
{
	va_list ap;

	if (nhist == HIST_MAX) {
		memmove(hist[0], hist[1], sizeof(hist) - sizeof(hist[0]));
		nhist--;
	}
	va_start(ap, fmt);
	(void)vsnprintf(hist[nhist], LINE_W, fmt, ap);
	va_end(ap);
	nhist++;
}

/* One TOTP step's row: its offset, local time and code, the seconds
 * left in the current one, whether it is admitted; the rows taken. */
static unsigned
step_row(const struct live *l, int64_t now, long ms, int64_t k, uint64_t c,
    const char *code)
{
	const char *adm = k >= l->lo && k <= l->hi ? "admitted" : "";
	uint64_t left;
	char t[16];

	stamp_local(l->start + (int64_t)(c * l->u->period), 0, t, sizeof(t));
	if (k != 0)
		return vline("    %+3" PRId64 "  %s  %s%s%s", k, t, code,
		    *adm != '\0' ? "             " : "", adm);
	left = l->u->period - (uint64_t)((now - l->start) %
	    (int64_t)l->u->period);
	if (ms > 0 && left > 0)
		left--;
	return vline("  * %+3" PRId64 "  %s  %s  %2" PRIu64 " s left%s%s", k,
	    t, code, left + (ms > 0), *adm != '\0' ? "  " : "", adm);
}

static void
draw(const struct live *l, const char *pm)
{
	char local[64], utc[40], sync_text[128], code[OTP_CODE_MAX];
	char range[48], key[OTP_KEY_MAX * 2];
	unsigned digits = l->digits != 0 ? l->digits : OTP_DEFAULT_DIGITS;
	unsigned around = l->around, top = 0, room, used, n;
	int hotp = l->u->type == OTP_TYPE_HOTP;
	char drift[LINE_W * 2 + 8];
	uint64_t centre = 0, c;
	int64_t now, k;
	size_t i;
	long ms;

	now = clock_now(l, &ms);
	flen = 0;
	frame_raw("\033[H");
	stamp_local(now, 1, local, sizeof(local));
	stamp_utc(now, utc, sizeof(utc));
	(void)clock_sync(l, sync_text, sizeof(sync_text));
	range_text(l, range, sizeof(range));
	top += vline("otp-verify --interactive: type the phone's code, then "
	    "Enter; q or Ctrl-D leaves");
	top += vline("Local  %s   UTC  %s", local, utc);
	top += vline("Clock  %s", sync_text);
	if (hotp) {
		top += vline("Token  %s: HOTP %s, %u digits, counter %" PRIu64
		    " next", l->source, otp_alg_name(l->u->alg), digits,
		    l->u->counter);
		top += vline("Admits counters %s (%s)", range, l->rule);
	} else {
		top += vline("Token  %s: TOTP %s, %u digits, %" PRIu64
		    " s steps", l->source, otp_alg_name(l->u->alg), digits,
		    l->u->period);
		top += vline("Admits steps %s (%s)", range, l->rule);
	}
	/* A screen others may see: the codes below are a login now. */
	top += vline("Note   the codes shown log %s in now: keep this screen "
	    "to yourself", l->user != NULL && *l->user != '\0' ? l->user :
	    "the user");
	if (l->show_key) {
		if (otp_b32_encode(l->u->key.buf, l->u->key.len, key,
		    sizeof(key), OTP_B32_NOPAD) < 0)
			key[0] = '\0';
		top += vline("Key    %s (Base32)", key);
		otp_wipe(key, sizeof(key));
	}
	top += vline("%s", "");
	/* Fewer steps on a short terminal: below them a blank row, two
	 * answers, the status row and the prompt need room. */
	while (around > 0 && top + 2 * around + 1 + 5 > rows)
		around--;
	if (hotp)
		centre = l->u->counter;
	if (!hotp && otp_totp_counter(now, l->start, l->u->period,
	    &centre) != 0) {
		top += vline("       (the time is before the start time)");
	} else {
		for (k = -(int64_t)around; k <= (int64_t)around; k++) {
			if ((k < 0 && centre < (uint64_t)-k) ||
			    (k > 0 && centre > UINT64_MAX - (uint64_t)k))
				continue;
			c = centre + (uint64_t)k;
			if (otp_code_decimal(otp_hotp_value(&hm, c), digits,
			    code, sizeof(code)) != 0)
				snprintf(code, sizeof(code), "?");
			if (hotp)
				top += vline("  %s %+3" PRId64 "  counter %"
				    PRIu64 "  %s%s%s", k == 0 ? "*" : " ", k,
				    c, code, k == 0 ? "  next" : "", k >= l->lo
				    && k <= l->hi ? "  admitted" : "");
			else
				top += step_row(l, now, ms, k, c, code);
			otp_wipe(code, sizeof(code));
		}
	}
	top += vline("%s", "");
	/* The newest answers that fit under the verdict, the status row
	 * and the prompt, each wrapped to the width. */
	room = rows > top + 1 ? rows - top - 1 : 0;
	if (status_line[0] != '\0') {
		n = wrap(status_line, 7, 0);
		room -= n < room ? n : room;
	}
	if (verdict_line[0] != '\0') {
		snprintf(drift, sizeof(drift), "Drift  %s", verdict_line);
		n = wrap(drift, 7, 0);
		room -= n < room ? n : room;
	}
	for (i = nhist, used = 0; i > 0 && used + wrap(hist[i - 1], 15, 0) <=
	    room; i--)
		used += wrap(hist[i - 1], 15, 0);
	for (; i < nhist; i++)
		(void)wrap(hist[i], 15, 1);
	if (verdict_line[0] != '\0')
		(void)wrap(drift, 7, 1);
	if (status_line[0] != '\0')
		(void)vline("%s", status_line);
	frame_raw("\033[J");
	snprintf(sync_text, sizeof(sync_text), "Code: %.*s", (int)ntyped,
	    typed);
	frame_raw(sync_text);
	otp_wipe(sync_text, sizeof(sync_text));
	put(frame, flen);
	otp_wipe(frame, sizeof(frame));
	(void)pm;
}

/* The code typed: answered into the history. */
static void
submit(const struct live *l, const char *pm)
{
	char code[OTP_CODE_MAX], adm[256], stamp[16], sync_text[128];
	struct otp_drift d;
	struct reply r;
	enum otp_sync sync;
	int64_t now;
	size_t i;

	status_line[0] = '\0';
	if (ntyped < OTP_DIGITS_MIN) {
		snprintf(status_line, sizeof(status_line), "A code has 6 to "
		    "10 digits.");
		return;
	}
	memcpy(code, typed, ntyped);
	code[ntyped] = '\0';
	otp_wipe(typed, sizeof(typed));
	ntyped = 0;
	now = clock_now(l, NULL);
	sync = clock_sync(l, sync_text, sizeof(sync_text));
	analyse(l, code, now, pm, &r);
	otp_wipe(code, sizeof(code));
	stamp_local(now, 0, stamp, sizeof(stamp));
	if (r.matched) {
		admit_text(l, &r, adm, sizeof(adm));
		hist_add("%3zu  %s  %s: %s%s", ncodes + 1, stamp, r.place, adm,
		    r.hint);
	} else {
		hist_add("%3zu  %s  %s", ncodes + 1, stamp, r.place);
		for (i = 0; i < r.ndiag; i++)
			hist_add("               %s %s", i == 0 ? "diagnosis:" :
			    "or:", r.diag[i]);
		if (r.ndiag == 0)
			hist_add("               no common mistake explains "
			    "it");
	}
	if (l->u->type == OTP_TYPE_HOTP)
		ncodes++;
	else
		(void)drift_update(l, &r, sync, pm, &d, verdict_line,
		    sizeof(verdict_line));
}

/* One byte typed; 1 when it asks to leave. */
static int
key(const struct live *l, const char *pm, unsigned char ch)
{
	static int esc;		/* inside an escape sequence: 1 ESC, 2 CSI */

	if (esc == 1) {
		esc = ch == '[' || ch == 'O' ? 2 : 0;
		return 0;
	}
	if (esc == 2) {
		if (ch >= 0x40 && ch <= 0x7e)
			esc = 0;
		return 0;
	}
	switch (ch) {
	case 'q':
	case 'Q':
	case 0x04:		/* Ctrl-D */
		return 1;
	case 0x1b:
		esc = 1;
		break;
	case '\r':
	case '\n':
		submit(l, pm);
		break;
	case 0x7f:
	case 0x08:
		if (ntyped > 0)
			typed[--ntyped] = '\0';
		status_line[0] = '\0';
		break;
	case 0x15:		/* Ctrl-U */
		otp_wipe(typed, sizeof(typed));
		ntyped = 0;
		break;
	case 0x0c:		/* Ctrl-L */
		put("\033[2J", 4);
		break;
	case ' ':
	case '-':
		break;
	default:
		if (ch >= '0' && ch <= '9' && ntyped < OTP_DIGITS_MAX) {
			typed[ntyped++] = (char)ch;
			status_line[0] = '\0';
		} else if (ch >= '0' && ch <= '9')
			snprintf(status_line, sizeof(status_line), "A code has "
			    "at most 10 digits.");
		else
			snprintf(status_line, sizeof(status_line), "Digits, "
			    "Backspace and Enter; q or Ctrl-D leaves.");
		break;
	}
	return 0;
}

static int
tty_loop(const struct live *l)
{
	const char *pm = plus_minus();
	struct pollfd pfd;
	struct timespec ts;
	sigset_t block, old;
	unsigned char buf[64];
	ssize_t n, i;
	long ms;
	int quit = 0, rc;
	size_t j;

	if (tcgetattr(STDIN_FILENO, &saved) != 0)
		err(CLI_EXIT_ERR, "standard input");
	cli_lock(typed, sizeof(typed));
	/* Blocked before the handlers are set: none runs until ppoll(). */
	signals_set(&block);
	if (sigprocmask(SIG_BLOCK, &block, &old) != 0)
		err(CLI_EXIT_ERR, "sigprocmask");
	signals_take(&block);
	raw_modes = saved;
	raw_modes.c_lflag &= ~(tcflag_t)(ICANON | ECHO | IEXTEN);
	raw_modes.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw_modes.c_cc[VMIN] = 1;
	raw_modes.c_cc[VTIME] = 0;
	/* Ctrl-Z stops us, the terminal restored first (term_suspend), as
	 * SIGTSTP does; where SIGTSTP is ignored it is no key here. */
	if (sigismember(&block, SIGTSTP) != 1)
		raw_modes.c_cc[VSUSP] = _POSIX_VDISABLE;
	(void)atexit(term_restore);
	term_enter();
	if (!raw_on)
		err(CLI_EXIT_ERR, "standard input");
	term_size();
	pfd.fd = STDIN_FILENO;
	pfd.events = POLLIN;
	while (!quit) {
		draw(l, pm);
		(void)clock_now(l, &ms);
		ts.tv_sec = 0;
		ts.tv_nsec = (1000L - ms) * 1000000L + 2000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec = 1;
			ts.tv_nsec -= 1000000000L;
		}
		rc = ppoll(&pfd, 1, &ts, &old);
		if (got_sig != 0)
			break;
		if (got_stop)
			term_suspend();
		if (got_cont) {
			/* Back from a stop (ours, or SIGSTOP's): the shell
			 * may have set its own modes meanwhile. */
			got_cont = 0;
			term_enter();
			got_winch = 1;
		}
		if (got_winch) {
			got_winch = 0;
			term_size();
			put("\033[2J", 4);
		}
		if (rc < 0 && errno != EINTR) {
			term_restore();
			err(CLI_EXIT_ERR, "poll");
		}
		if (rc <= 0)
			continue;
		if ((n = read(STDIN_FILENO, buf, sizeof(buf))) <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;	/* the terminal is gone */
		}
		for (i = 0; i < n && !quit; i++)
			quit = key(l, pm, buf[i]);
		otp_wipe(buf, sizeof(buf));
	}
	term_restore();
	otp_wipe(typed, sizeof(typed));
	if (got_sig != 0) {
		/* Die of the signal, as the shell expects, the terminal as
		 * it was. */
		otp_hmac_wipe(&hm);
		(void)signal(got_sig, SIG_DFL);
		(void)raise(got_sig);
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
		_exit(128 + got_sig);
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	/* What was found stays on the screen. */
	for (j = 0; j < nhist; j++)
		printf("%s\n", hist[j]);
	if (verdict_line[0] != '\0')
		printf("Drift  %s\n", verdict_line);
	return 0;
}

int
live_run(const struct live *l)
{
	int rc;

	if (l->u->period == 0 || l->u->key.len == 0)
		errx(CLI_EXIT_ERR, "--interactive: no TOTP token");
	(void)clock_gettime(CLOCK_MONOTONIC, &mono0);
	if ((rc = otp_hmac_init(&hm, l->u->alg, l->u->key.buf,
	    l->u->key.len)) != 0)
		errx(CLI_EXIT_ERR, "key: %s", otp_strerror(rc));
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		rc = tty_loop(l);
	else
		rc = pipe_loop(l);
	otp_hmac_wipe(&hm);
	return rc;
}
