/*
 * pam-serve.c - a long-lived PAM host for the tests, as FreeRADIUS's
 * rlm_pam is one:
 *
 *	pam-serve CONFDIR SERVICE
 *
 * reads lines "USER CODE" from stdin and runs each as one login in this
 * one process: pam_start with the service file CONFDIR/SERVICE
 * (pam_start_confdir), pam_authenticate answering every prompt with
 * CODE, pam_end.  After each it prints one line and flushes it:
 * "accepted", or "refused N TEXT" with PAM's result and its text, so
 * that a test can change the store between two logins of one host.
 * Exits 0 at the end of its input, 2 on bad use.
 */
#include <security/pam_appl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int
main(int argc, char **argv)
{
	char line[1024], user[512], code[512];
	struct pam_conv c = { conv, code };
	pam_handle_t *h;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: pam-serve CONFDIR SERVICE\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "%511s %511s", user, code) != 2) {
			fprintf(stderr, "pam-serve: not USER CODE: %s", line);
			return 2;
		}
		rc = pam_start_confdir(argv[2], user, &c, argv[1], &h);
		if (rc == PAM_SUCCESS) {
			rc = pam_authenticate(h, 0);
			if (rc == PAM_SUCCESS)
				printf("accepted\n");
			else
				printf("refused %d %s\n", rc,
				    pam_strerror(h, rc));
			(void)pam_end(h, rc);
		} else
			printf("refused %d pam_start\n", rc);
		fflush(stdout);
	}
	return 0;
}
