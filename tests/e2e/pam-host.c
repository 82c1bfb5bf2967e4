/*
 * pam-host.c - a threaded PAM host for tests/e2e/threads.bats, as a
 * threaded server (FreeRADIUS's rlm_pam, a web server) runs PAM:
 *
 *	pam-host SERVICE USER CODE N DIR
 *
 * N threads wait on one barrier, then each runs pam_start(SERVICE) - the
 * real /etc/pam.d/SERVICE through libpam, no wrapper - and
 * pam_authenticate() for USER, answering every prompt with CODE.  Each
 * checks afterwards that its own file-system ids are the process's again.
 * Meanwhile a monitor thread creates files in DIR and checks that they
 * belong to the process's own uid and gid, that their mode follows the
 * umask the process started with, and that the umask has not changed: a
 * module that changes the ids or the umask of the process, and not of its
 * own thread, shows up there.  The host never calls umask() itself (a
 * shim may forbid it); run it with the umask to watch.
 *
 * Prints "accepted A refused R idleaks I fileleaks F umask kept|changed
 * checks C" (C: how many files the monitor made) and exits 0; 2 on a
 * usage or set-up error.
 */
#include <security/pam_appl.h>

#include <sys/fsuid.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS	256

static const char *service, *user, *code, *dir;
static pthread_barrier_t start;
static atomic_int accepted, refused, running, idleaks, fileleaks, checks;
static atomic_int umask_changed;
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

/* This thread's file-system ids are the process's effective ones. */
static int
own_ids(void)
{
	return (uid_t)setfsuid((uid_t)-1) == geteuid() &&
	    (gid_t)setfsgid((gid_t)-1) == getegid();
}

static void *
login(void *arg)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *h = NULL;
	int rc;

	(void)arg;
	pthread_barrier_wait(&start);
	rc = pam_start(service, user, &c, &h);
	if (rc == PAM_SUCCESS)
		rc = pam_authenticate(h, 0);
	if (rc == PAM_SUCCESS)
		atomic_fetch_add(&accepted, 1);
	else
		atomic_fetch_add(&refused, 1);
	if (h != NULL)
		pam_end(h, rc);
	if (!own_ids())
		atomic_fetch_add(&idleaks, 1);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* The process's umask, read without changing it; -1 when unknown. */
static int
umask_now(void)
{
	char line[128];
	unsigned m;
	int found = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Umask: %o", &m) == 1) {
			found = (int)m;
			break;
		}
	fclose(f);
	return found;
}

static void
check_once(int i)
{
	char path[4096];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/monitor.%d", dir, i % 8);
	(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 || fstat(fd, &st) != 0 ||
	    (st.st_mode & 0777) != (0666 & ~mask0) ||
	    st.st_uid != geteuid() || st.st_gid != getegid() || !own_ids())
		atomic_fetch_add(&fileleaks, 1);
	if (fd >= 0)
		close(fd);
	(void)unlink(path);
	if (umask_now() != (int)mask0)
		atomic_store(&umask_changed, 1);
	atomic_fetch_add(&checks, 1);
}

static void *
monitor(void *arg)
{
	int i = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	while (atomic_load(&running) > 0)
		check_once(i++);
	check_once(i);
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t t[MAX_THREADS], m;
	int n, i, mask;

	if (argc != 6 || (n = atoi(argv[4])) < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: pam-host SERVICE USER CODE N DIR\n");
		return 2;
	}
	service = argv[1];
	user = argv[2];
	code = argv[3];
	dir = argv[5];
	if ((mask = umask_now()) < 0) {
		fprintf(stderr, "pam-host: cannot read the umask\n");
		return 2;
	}
	mask0 = (mode_t)mask;
	atomic_store(&running, n);
	if (pthread_barrier_init(&start, NULL, (unsigned)n + 1) != 0 ||
	    pthread_create(&m, NULL, monitor, NULL) != 0) {
		fprintf(stderr, "pam-host: cannot start the monitor\n");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, login, NULL) != 0) {
			fprintf(stderr, "pam-host: cannot start thread %d\n", i);
			return 2;
		}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_join(m, NULL);
	printf("accepted %d refused %d idleaks %d fileleaks %d umask %s "
	    "checks %d\n", atomic_load(&accepted), atomic_load(&refused),
	    atomic_load(&idleaks), atomic_load(&fileleaks),
	    atomic_load(&umask_changed) ? "changed" : "kept",
	    atomic_load(&checks));
	return 0;
}
