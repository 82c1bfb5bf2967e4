/*
 * pam-drive.c - a minimal PAM application for the concurrency tests:
 *
 *	pam-drive CONFDIR SERVICE USER [RHOST]
 *
 * runs pam_authenticate() for USER with the service file CONFDIR/SERVICE
 * (Linux-PAM's pam_start_confdir, so no root and no pam_wrapper), answers
 * each prompt with one line of stdin (showing the prompt on stderr as
 * "[echo on] TEXT" or "[echo off] TEXT"), and exits 0 on PAM_SUCCESS, 1 on
 * any other result (printed to stderr as "pam-drive: N: text").
 *
 * pam_wrapper names its per-process configuration directory /tmp/pam.X
 * with a single character X and cleans "stale" ones, which races when
 * dozens of processes start at once; this driver has no such limit.
 *
 * With PAM_DRIVE_ANSWER set, each prompt is answered instead by the first
 * line that the shell command in it prints, run with the prompt as $1 (an
 * OTPW challenge names the passwords to give); a command that exits 3
 * fails the conversation, as a client that hung up.  With PAM_DRIVE_SESSION=1
 * a successful login also opens and closes a session, whose messages go
 * to stderr as the prompts do.
 */
#include <security/pam_appl.h>

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line the command prints for the prompt, into line. */
static int
answer(const char *cmd, const char *prompt, char *line, size_t size)
{
	FILE *f;
	pid_t pid;
	int fd[2], st;

	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		(void)dup2(fd[1], STDOUT_FILENO);
		(void)close(fd[0]);
		(void)close(fd[1]);
		execl("/bin/sh", "sh", "-c", cmd, "sh", prompt, (char *)NULL);
		_exit(127);
	}
	(void)close(fd[1]);
	line[0] = '\0';
	if ((f = fdopen(fd[0], "r")) != NULL) {
		if (fgets(line, (int)size, f) == NULL)
			line[0] = '\0';
		while (fgetc(f) != EOF)
			;
		(void)fclose(f);
	}
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 3)
		return -1;
	return 0;
}

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *data)
{
	struct pam_response *r;
	char line[1024];
	int i;

	(void)data;
	if (n <= 0 || (r = calloc((size_t)n, sizeof(*r))) == NULL)
		return PAM_CONV_ERR;
	for (i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			/* The style is what echo_verification_code sets. */
			fprintf(stderr, "[echo %s] %s\n",
			    msg[i]->msg_style == PAM_PROMPT_ECHO_ON ? "on" :
			    "off", msg[i]->msg);
			if (getenv("PAM_DRIVE_ANSWER") != NULL) {
				if (answer(getenv("PAM_DRIVE_ANSWER"),
				    msg[i]->msg, line, sizeof(line)) != 0)
					goto fail;
			} else if (fgets(line, sizeof(line), stdin) == NULL)
				line[0] = '\0';
			line[strcspn(line, "\r\n")] = '\0';
			if ((r[i].resp = strdup(line)) == NULL)
				goto fail;
			break;
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			fprintf(stderr, "%s\n", msg[i]->msg);
			break;
		default:
			goto fail;
		}
	}
	*resp = r;
	return PAM_SUCCESS;
fail:
	for (i = 0; i < n; i++)
		free(r[i].resp);
	free(r);
	return PAM_CONV_ERR;
}

int
main(int argc, char *argv[])
{
	struct pam_conv c = { conv, NULL };
	pam_handle_t *pamh = NULL;
	int rc;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: pam-drive CONFDIR SERVICE USER "
		    "[RHOST]\n");
		return 2;
	}
	rc = pam_start_confdir(argv[2], argv[3], &c, argv[1], &pamh);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam-drive: pam_start_confdir: %d\n", rc);
		return 2;
	}
	if (argc == 5)
		(void)pam_set_item(pamh, PAM_RHOST, argv[4]);
	rc = pam_authenticate(pamh, 0);
	if (rc == PAM_SUCCESS && getenv("PAM_DRIVE_SESSION") != NULL &&
	    strcmp(getenv("PAM_DRIVE_SESSION"), "1") == 0) {
		rc = pam_open_session(pamh, 0);
		if (rc == PAM_SUCCESS)
			rc = pam_close_session(pamh, 0);
	}
	if (rc != PAM_SUCCESS)
		fprintf(stderr, "pam-drive: %d: %s\n", rc,
		    pam_strerror(pamh, rc));
	(void)pam_end(pamh, rc);
	return rc == PAM_SUCCESS ? 0 : 1;
}
