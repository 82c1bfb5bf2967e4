/*
 * pg-loop.c - many logins in one long-lived process, for
 * tests/bench/bench-pg.sh and tests/pg-pam.bats:
 *
 *	pg-loop [-l] CONFDIR < LOGINS
 *
 * reads lines "SERVICE USER CODE" and runs each as one login: pam_start
 * with the service file CONFDIR/SERVICE (pam_start_confdir),
 * pam_authenticate answering every prompt with CODE, pam_end, as a host
 * such as FreeRADIUS's rlm_pam does for each request.  libpam drops the
 * modules at pam_end, but pam_otp.so stays mapped (it is linked
 * -z nodelete), and so does the PostgreSQL store's object (RTLD_NODELETE)
 * and with it its pool of open connections.  Lines of several services
 * may alternate, so that load that comes and goes on the machine falls
 * on all of them alike.
 *
 * Prints, for each service in the order first seen,
 *
 *	SERVICE logins N first_us F median_us M
 *
 * F the first login's wall time (a new connection for a database) and M
 * the median of the others.  Exits 0 when every login was accepted, 1
 * otherwise (saying which, with PAM's reason, on stderr), 2 on bad use.
 *
 * With -l, a line for each login instead, flushed as soon as it is done:
 * "accepted", or "refused N TEXT" with PAM's result and its text, so
 * that a test can feed the host one login at a time and change the store
 * in between; refusals are no failure then (exit 0 at the end of input).
 * Links nothing but libpam.
 */
#include <security/pam_appl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SERVICES	16
#define MAX_LOGINS	100000

struct service {
	char	 name[256];
	long	*us;		/* each login's wall time, microseconds */
	size_t	 n;
};

static const char *answer;

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *data)
{
	struct pam_response *r;
	int i;

	(void)data;
	if (n <= 0 || (r = calloc((size_t)n, sizeof(*r))) == NULL)
		return PAM_CONV_ERR;
	for (i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
		    msg[i]->msg_style == PAM_PROMPT_ECHO_ON) {
			if ((r[i].resp = strdup(answer)) == NULL) {
				while (i-- > 0)
					free(r[i].resp);
				free(r);
				return PAM_CONV_ERR;
			}
		}
	*resp = r;
	return PAM_SUCCESS;
}

static long
now_us(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char *argv[])
{
	static struct service sv[MAX_SERVICES];
	struct pam_conv c = { conv, NULL };
	char line[1024], svc[256], user[256], code[64];
	size_t nsv = 0, i, lineno = 0;
	long t0, t1;
	const char *confdir;
	pam_handle_t *h;
	int rc, failed = 0, each;

	each = argc == 3 && strcmp(argv[1], "-l") == 0;
	if (argc != 2 + each) {
		fprintf(stderr, "usage: pg-loop [-l] CONFDIR < LOGINS\n");
		return 2;
	}
	confdir = argv[1 + each];
	while (fgets(line, sizeof(line), stdin) != NULL) {
		lineno++;
		if (sscanf(line, "%255s %255s %63s", svc, user, code) != 3) {
			fprintf(stderr, "pg-loop: line %zu: not SERVICE USER "
			    "CODE\n", lineno);
			return 2;
		}
		for (i = 0; i < nsv && strcmp(sv[i].name, svc) != 0; i++)
			;
		if (i == nsv) {
			if (nsv == MAX_SERVICES) {
				fprintf(stderr, "pg-loop: too many services\n");
				return 2;
			}
			(void)snprintf(sv[i].name, sizeof(sv[i].name), "%s",
			    svc);
			if ((sv[i].us = calloc(MAX_LOGINS, sizeof(long))) ==
			    NULL) {
				perror("pg-loop");
				return 2;
			}
			nsv++;
		}
		if (sv[i].n == MAX_LOGINS) {
			fprintf(stderr, "pg-loop: too many logins\n");
			return 2;
		}
		answer = code;
		h = NULL;
		t0 = now_us();
		rc = pam_start_confdir(svc, user, &c, confdir, &h);
		if (rc == PAM_SUCCESS)
			rc = pam_authenticate(h, 0);
		if (each) {
			if (rc == PAM_SUCCESS)
				printf("accepted\n");
			else
				printf("refused %d %s\n", rc, h != NULL ?
				    pam_strerror(h, rc) : "pam_start failed");
			(void)fflush(stdout);
		} else if (rc != PAM_SUCCESS && !failed++)
			fprintf(stderr, "pg-loop: line %zu: %s %s %s: %s\n",
			    lineno, svc, user, code, h != NULL ?
			    pam_strerror(h, rc) : "pam_start failed");
		if (h != NULL)
			(void)pam_end(h, rc);
		t1 = now_us();
		sv[i].us[sv[i].n++] = t1 - t0;
	}
	for (i = 0; i < nsv && !each; i++) {
		long first = sv[i].us[0], med = first;

		if (sv[i].n > 1) {
			qsort(sv[i].us + 1, sv[i].n - 1, sizeof(long),
			    cmp_long);
			med = sv[i].us[1 + (sv[i].n - 2) / 2];
		}
		printf("%s logins %zu first_us %ld median_us %ld\n",
		    sv[i].name, sv[i].n, first, med);
	}
	if (failed) {
		fprintf(stderr, "pg-loop: %d of %zu logins refused\n", failed,
		    lineno);
		return 1;
	}
	return 0;
}
