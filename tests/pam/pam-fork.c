/*
 * pam-fork.c - a PAM host that forks, as sshd and inetd-style servers
 * do, for the PostgreSQL store's connection pool:
 *
 *	pam-fork CONFDIR SERVICE USER CODE1 CODE2 CODE3 SYNCDIR
 *
 * logs in with CODE1 (the pool keeps its connection), creates SYNCDIR/a
 * and waits for SYNCDIR/b; forks a child that logs in with CODE2,
 * creates SYNCDIR/c, waits for SYNCDIR/d and exits; then creates
 * SYNCDIR/e, waits for SYNCDIR/f and logs in with CODE3.  The test looks
 * at the server's connections at a, c and e: the child must have one of
 * its own, and the parent's must survive the child.
 * Prints "parent P child C parent P" (1 accepted, 0 not) and exits 0.
 */
#include <security/pam_appl.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *confdir, *service, *user, *syncdir;

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *data)
{
	struct pam_response *r;
	int i;

	if (n <= 0 || (r = calloc((size_t)n, sizeof(*r))) == NULL)
		return PAM_CONV_ERR;
	for (i = 0; i < n; i++)
		if (msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ||
		    msg[i]->msg_style == PAM_PROMPT_ECHO_ON)
			r[i].resp = strdup(data);
	*resp = r;
	return PAM_SUCCESS;
}

static int
login(const char *code)
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *h = NULL;
	int rc;

	c.appdata_ptr = (void *)code;
	if (pam_start_confdir(service, user, &c, confdir, &h) != PAM_SUCCESS)
		return 0;
	rc = pam_authenticate(h, 0);
	pam_end(h, rc);
	return rc == PAM_SUCCESS;
}

static void
mark(const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", syncdir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT, 0600)) >= 0)
		close(fd);
}

/* Wait at most 60 s for SYNCDIR/name. */
static void
await(const char *name)
{
	struct timespec ts = { 0, 50 * 1000000L };
	char path[4096];
	int i;

	snprintf(path, sizeof(path), "%s/%s", syncdir, name);
	for (i = 0; i < 1200 && access(path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

int
main(int argc, char *argv[])
{
	int a, b = 0, c, st;
	pid_t pid;

	if (argc != 8) {
		fprintf(stderr, "usage: pam-fork CONFDIR SERVICE USER CODE1 "
		    "CODE2 CODE3 SYNCDIR\n");
		return 2;
	}
	confdir = argv[1];
	service = argv[2];
	user = argv[3];
	syncdir = argv[7];
	a = login(argv[4]);
	mark("a");
	await("b");
	if ((pid = fork()) == 0) {
		/* The child keeps its pooled connection until told. */
		b = login(argv[5]);
		mark("c");
		await("d");
		_exit(b ? 0 : 1);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		b = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	mark("e");
	await("f");
	c = login(argv[6]);
	printf("parent %d child %d parent %d\n", a, b, c);
	return 0;
}
