/*
 * pam-threads.c - a threaded PAM host for the concurrency tests:
 *
 *	pam-threads CONFDIR SERVICE USER CODE N [RHOST]
 *
 * starts N threads that wait on one barrier, then each runs
 * pam_authenticate() for USER with the service file CONFDIR/SERVICE
 * (pam_start_confdir), PAM_RHOST set to RHOST if given, answering every
 * prompt with CODE.  Meanwhile a
 * monitor thread creates files in CONFDIR and checks that their mode
 * follows the umask the process started with and that they belong to the
 * process's own uid and gid: a module that changes the umask or the
 * file-system ids of the process, not of its thread, shows up there.
 * Prints "accepted A refused R leaks L umask U" and exits 0.
 */
#include <security/pam_appl.h>

#include <sys/stat.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS	256

static const char *confdir, *service, *user, *code, *rhost;
static pthread_barrier_t start;
static atomic_int accepted, refused, running;
static mode_t mask0;

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
		    msg[i]->msg_style == PAM_PROMPT_ECHO_ON)
			r[i].resp = strdup(code);
	*resp = r;
	return PAM_SUCCESS;
}

static void *
login(void *arg)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *h = NULL;
	int rc;

	(void)arg;
	pthread_barrier_wait(&start);
	rc = pam_start_confdir(service, user, &c, confdir, &h);
	if (rc == PAM_SUCCESS && rhost != NULL)
		rc = pam_set_item(h, PAM_RHOST, rhost);
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(h, 0);
	if (rc == PAM_SUCCESS)
		atomic_fetch_add(&accepted, 1);
	else
		atomic_fetch_add(&refused, 1);
	if (h != NULL)
		pam_end(h, rc);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* The process's umask, read without changing it. */
static mode_t
umask_now(void)
{
	char line[128];
	unsigned m = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return mask0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Umask: %o", &m) == 1)
			break;
	fclose(f);
	return (mode_t)m;
}

static void *
monitor(void *arg)
{
	char path[4096];
	struct stat st;
	int *leaks = arg, fd, i = 0;

	pthread_barrier_wait(&start);
	while (atomic_load(&running) > 0) {
		snprintf(path, sizeof(path), "%s/monitor.%d", confdir, i++ % 8);
		(void)unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 || fstat(fd, &st) != 0 ||
		    (st.st_mode & 0777) != (0666 & ~mask0) ||
		    st.st_uid != geteuid() || st.st_gid != getegid())
			(*leaks)++;
		if (fd >= 0)
			close(fd);
		(void)unlink(path);
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t t[MAX_THREADS], m;
	int n, i, leaks = 0;

	if ((argc != 6 && argc != 7) || (n = atoi(argv[5])) < 1 ||
	    n > MAX_THREADS) {
		fprintf(stderr, "usage: pam-threads CONFDIR SERVICE USER CODE "
		    "N [RHOST]\n");
		return 2;
	}
	rhost = argc == 7 ? argv[6] : NULL;
	confdir = argv[1];
	service = argv[2];
	user = argv[3];
	code = argv[4];
	mask0 = umask_now();
	atomic_store(&running, n);
	pthread_barrier_init(&start, NULL, (unsigned)n + 1);
	pthread_create(&m, NULL, monitor, &leaks);
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, login, NULL);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_join(m, NULL);
	printf("accepted %d refused %d leaks %d umask %s\n",
	    atomic_load(&accepted), atomic_load(&refused), leaks,
	    umask_now() == mask0 ? "kept" : "changed");
	return 0;
}
