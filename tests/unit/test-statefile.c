/*
 * test-statefile.c - the state-file layer (lib/statefile.c) in a temporary
 * directory: modes, owners, symlinks, FIFOs, directories, a read-only
 * directory, a file changed underneath, creation.  Run with a directory
 * argument (as `make check-unit` does) it runs those tests.
 *
 * It doubles as a small driver for the bats suites until otp-verify
 * --state exists, and for the differential tests:
 *
 *	test-statefile check FILE CODE NOW [FLAGS]	file layer
 *	test-statefile engine FILE CODE NOW [FLAGS]	engine only, new image
 *							on stdout
 *	test-statefile parse FILE			engine parse
 *
 * FLAGS: -s no skew adjust, -i no HOTP increment, -o no strict owner,
 * -r allow read-only, -p MODE allowed perm (octal), -g SECONDS RHOST.
 * Exit 0 accepted, 1 refused, 2 error (message on stderr).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "otp.h"
#include "otp_state.h"
#include "store_int.h"
#include "sys.h"
#include "unit.h"

/* SECRET 2SH3V3GDW7ZNMGYE at Unix time 300000 (step 10000) gives 050548. */
static const char totp_file[] =
    "2SH3V3GDW7ZNMGYE\n\" DISALLOW_REUSE\n\" TOTP_AUTH\n12345678\n";
#define T0	300000
#define CODE0	"050548"

static char dir[] = "/tmp/test-statefile.XXXXXX";

static void
put_file(const char *path, const char *text, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		perror(path);
	if (fd >= 0) {
		fchmod(fd, mode);
		close(fd);
	}
}

static size_t
slurp(const char *path, char *buf, size_t sz)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

/* A whole login with one code on the file at path (otp-verify --state). */
static int
file_check(const char *path, const char *code, int64_t now,
    const struct otp_state_opts *o, struct otp_state_result *r)
{
	struct sys_ga *l = sys_ga_new(path, o, now);
	struct otp_answer a;
	int ret;

	if (l == NULL)
		return OTP_ENOMEM;
	a.text = code;
	a.kind = OTP_ANSWER_CODE;
	ret = sys_ga_check(l, &a, 1, r);
	errno = sys_ga_errno(l);
	sys_ga_free(l);
	return ret;
}

/* No path~XXXXXX left in dir. */
static int
no_temp_left(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ls -a %s | grep -q '~'", dir);
	return system(cmd) != 0;
}

static void
test_check(void)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	struct stat st;
	char path[256], buf[512];
	int ret;

	otp_state_opts_init(&o);
	snprintf(path, sizeof(path), "%s/ga", dir);
	put_file(path, totp_file, 0400);

	ret = file_check(path, CODE0, T0, &o, &r);
	CHECK(ret == 0 && r.accepted && r.recorded, "accept and record: %d",
	    ret);
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "2SH3V3GDW7ZNMGYE\n\" DISALLOW_REUSE 10000\n"
	    "\" TOTP_AUTH\n12345678\n", "reuse recorded");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0400,
	    "mode 0400 after update");
	ret = file_check(path, CODE0, T0, &o, &r);
	CHECK(ret == 0 && !r.accepted && r.why == OTP_STATE_WHY_REUSED,
	    "second use refused");
	ret = file_check(path, "12345678", T0, &o, &r);
	CHECK(ret == 0 && r.accepted && r.how == OTP_STATE_BYSCRATCH,
	    "scratch code");
	ret = file_check(path, "12345678", T0, &o, &r);
	CHECK(ret == 0 && !r.accepted, "scratch code once only");
	CHECK(no_temp_left(), "no temporary file left");

	/* Modes. */
	put_file(path, totp_file, 0640);
	CHECK(file_check(path, CODE0, T0, &o, &r) == OTP_ESTATEMODE,
	    "mode 0640 refused");
	o.allowed_perm = 0640;
	CHECK(file_check(path, CODE0, T0, &o, &r) == 0 && r.accepted,
	    "allowed_perm 0640");
	o.allowed_perm = 0600;
	put_file(path, totp_file, 0600 | S_ISGID);
	CHECK(file_check(path, CODE0, T0, &o, &r) == OTP_ESTATEMODE,
	    "setgid bit refused");

	/* Owner. */
	put_file(path, totp_file, 0400);
	if (chown(path, 65534, 65534) == 0 && geteuid() != 65534) {
		CHECK(file_check(path, CODE0, T0, &o, &r) ==
		    OTP_ESTATEOWNER, "other owner refused");
		o.flags |= OTP_STATE_NOSTRICTOWNER;
		if (geteuid() == 0)
			CHECK(file_check(path, CODE0, T0, &o, &r) ==
			    0 && r.accepted, "no_strict_owner");
		o.flags &= ~(unsigned)OTP_STATE_NOSTRICTOWNER;
	}
	o.uid = 4242;
	put_file(path, totp_file, 0400);
	CHECK(file_check(path, CODE0, T0, &o, &r) == OTP_ESTATEOWNER,
	    "expected uid honoured");
	otp_state_opts_init(&o);

	/* Symlink, FIFO, directory, missing, empty, too big. */
	snprintf(buf, sizeof(buf), "%s/link", dir);
	symlink(path, buf);
	CHECK(file_check(buf, CODE0, T0, &o, &r) == OTP_ESTATETYPE,
	    "symlink refused");
	snprintf(buf, sizeof(buf), "%s/fifo", dir);
	mkfifo(buf, 0600);
	CHECK(file_check(buf, CODE0, T0, &o, &r) == OTP_ESTATETYPE,
	    "FIFO refused without blocking");
	snprintf(buf, sizeof(buf), "%s/sub", dir);
	mkdir(buf, 0700);
	CHECK(file_check(buf, CODE0, T0, &o, &r) == OTP_ESTATETYPE,
	    "directory refused");
	snprintf(buf, sizeof(buf), "%s/missing", dir);
	errno = 0;
	CHECK(file_check(buf, CODE0, T0, &o, &r) == OTP_EIO &&
	    errno == ENOENT, "missing file: OTP_EIO, ENOENT");
	put_file(path, "", 0400);
	CHECK(file_check(path, CODE0, T0, &o, &r) == OTP_ESTATESIZE,
	    "empty file");
	{
		static char big[OTP_STATE_MAX + 2];

		memset(big, 'A', sizeof(big) - 1);
		put_file(path, big, 0400);
		CHECK(file_check(path, CODE0, T0, &o, &r) ==
		    OTP_ESTATESIZE, "over 64 KiB");
	}
	CHECK(no_temp_left(), "no temporary file left after refusals");
}

/* Run as the file's owner in a directory it cannot write: root ignores
 * directory modes, so as root a child becomes nobody first. */
static int
readonly_case(const char *path)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	int ret;

	otp_state_opts_init(&o);
	ret = file_check(path, CODE0, T0, &o, &r);
	if (ret != OTP_EREADONLY)
		return 1;
	o.flags |= OTP_STATE_ALLOWRO;
	ret = file_check(path, CODE0, T0, &o, &r);
	return ret == 0 && r.accepted && !r.recorded ? 0 : 2;
}

static void
test_readonly(void)
{
	char sub[256], path[300], buf[512];
	int status = 0;
	pid_t pid;

	snprintf(sub, sizeof(sub), "%s/ro", dir);
	mkdir(sub, 0700);
	snprintf(path, sizeof(path), "%s/ga", sub);
	put_file(path, totp_file, 0400);
	if (geteuid() == 0) {
		chmod(dir, 0755);
		if (chown(sub, 65534, 65534) < 0 ||
		    chown(path, 65534, 65534) < 0)
			perror("chown");
		chmod(sub, 0500);
		if ((pid = fork()) == 0) {
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(3);
			_exit(readonly_case(path));
		}
		waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "read-only directory as nobody: status %d", status);
	} else {
		chmod(sub, 0500);
		status = readonly_case(path);
		CHECK(status == 0, "read-only directory: %d", status);
	}
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, totp_file, "read-only: file unchanged");
	chmod(sub, 0700);
}

static void
test_create_load(void)
{
	struct otp_state_opts o;
	struct otp_state st;
	struct stat sb;
	char path[256], buf[512];

	otp_state_opts_init(&o);
	snprintf(path, sizeof(path), "%s/new", dir);
	unlink(path);
	CHECK(sys_statefile_create(path, totp_file, strlen(totp_file), 0) ==
	    0, "create");
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0400,
	    "created 0400");
	CHECK(sys_statefile_create(path, "X\n", 2, 0) == OTP_ESTATEEXIST,
	    "no clobber");
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, totp_file, "kept");
	CHECK(sys_statefile_create(path, "AAAA\n", 5, 1) == 0, "force");
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "AAAA\n", "replaced");
	CHECK(sys_statefile_create(path, totp_file, strlen(totp_file), 1) ==
	    0, "force again");
	CHECK(sys_statefile_load(path, &o, &st) == 0 && st.nscratch == 1 &&
	    st.scratch[0] == 12345678 && st.mode == OTP_STATE_TOTP &&
	    st.disallow_reuse, "load");
	chmod(path, 0644);
	CHECK(sys_statefile_load(path, &o, &st) == OTP_ESTATEMODE,
	    "load refuses 0644");
	snprintf(buf, sizeof(buf), "%s/nodir/x", dir);
	CHECK(sys_statefile_create(buf, "AAAA\n", 5, 0) == OTP_EIO,
	    "missing directory");
	CHECK(no_temp_left(), "no temporary file left");
}

/* The original module between its check and its rename: its FILE~XXXXXX
 * is in the directory.  A child plays it: the file appears while our
 * temporary file is synced, and 200 ms later the module renames its
 * version over the state file.  We must wait for it and start over on
 * its version, never rename ours over it. */
static const char *inflight_path;

static void
play_module(const char *path)
{
	static const char text[] = "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n"
	    "22222222\n44444444\n";
	char tmp[300];
	int tfd;

	snprintf(tmp, sizeof(tmp), "%s~Ab12Cd", path);
	tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0400);
	if (tfd < 0 || write(tfd, text, sizeof(text) - 1) < 0)
		perror(tmp);
	close(tfd);
	if (fork() == 0) {
		usleep(200000);
		if (rename(tmp, path) < 0)
			perror(path);
		_exit(0);
	}
}

/* Changed underneath: the module takes no lock, so it may replace the
 * file between our read and our rename.  This program's own fsync()
 * (which the library's call resolves to) plays the module once: it
 * renames a new version, with one more scratch code, over the file while
 * our temporary file is being synced.  The check must notice, start over
 * from the new version, and keep the module's change. */
static const char *meddle_path;

int
fsync(int fd)
{
	char tmp[300];
	int tfd;

	if (inflight_path != NULL) {
		const char *p = inflight_path;

		inflight_path = NULL;
		play_module(p);
	}
	if (meddle_path != NULL) {
		const char *p = meddle_path;
		static const char text[] = "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n"
		    "22222222\n44444444\n";

		meddle_path = NULL;
		snprintf(tmp, sizeof(tmp), "%s.module", p);
		tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0400);
		if (tfd >= 0) {
			if (write(tfd, text, sizeof(text) - 1) < 0)
				perror(tmp);
			close(tfd);
			if (rename(tmp, p) < 0)
				perror(p);
		}
	}
	return fdatasync(fd);
}

static void
test_changed(void)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	char path[256], buf[512];
	int ret;

	otp_state_opts_init(&o);
	snprintf(path, sizeof(path), "%s/chg", dir);
	put_file(path, "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n22222222\n", 0400);
	meddle_path = path;
	ret = file_check(path, "22222222", T0, &o, &r);
	CHECK(meddle_path == NULL, "the module's write happened");
	CHECK(ret == 0 && r.accepted && r.recorded, "accepted: %d", ret);
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n44444444\n",
	    "redone on the module's version: its change kept");
	ret = file_check(path, "22222222", T0, &o, &r);
	CHECK(ret == 0 && !r.accepted, "scratch code used once");
	CHECK(no_temp_left(), "no temporary file left");
}

static void
test_inflight(void)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	struct timespec t0, t1;
	char path[256], old[300], ours[300], buf[512];
	int ret;
	long ms;

	otp_state_opts_init(&o);
	snprintf(path, sizeof(path), "%s/infl", dir);
	put_file(path, "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n22222222\n", 0400);
	inflight_path = path;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = file_check(path, "22222222", T0, &o, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	while (wait(NULL) > 0)
		;
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) /
	    1000000;
	CHECK(inflight_path == NULL, "the module's file appeared");
	CHECK(ret == 0 && r.accepted && r.recorded, "accepted: %d", ret);
	CHECK(ms >= 150, "waited for the module's rename (%ld ms)", ms);
	slurp(path, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n44444444\n",
	    "redone on the module's version");

	/* A stale file of the module's (an hour old) is neither waited for
	 * nor removed; a leftover of ours (no lock held) is removed. */
	snprintf(old, sizeof(old), "%s~Zz9Zz9", path);
	put_file(old, "x\n", 0400);
	snprintf(buf, sizeof(buf), "touch -d '1 hour ago' %s", old);
	CHECK(system(buf) == 0, "touch");
	snprintf(ours, sizeof(ours), "%s~otp-Qq1Qq1", path);
	put_file(ours, "2SH3V3GDW7ZNMGYE\n", 0400);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = file_check(path, "44444444", T0, &o, &r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) /
	    1000000;
	CHECK(ret == 0 && r.accepted, "accepted");
	CHECK(ms < 1000, "a stale file is not waited for (%ld ms)", ms);
	CHECK(access(old, F_OK) == 0, "the module's file is left alone");
	CHECK(access(ours, F_OK) != 0, "our leftover is removed");
	unlink(old);
}

/* Root updating a user's file (no_strict_owner) keeps its owner and
 * group: the user's next login must still find the file theirs. */
static void
test_owner(void)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	struct stat sb;
	char path[256];
	int ret;

	if (geteuid() != 0) {
		printf("# skip: owner kept (needs root)\n");
		return;
	}
	otp_state_opts_init(&o);
	o.flags |= OTP_STATE_NOSTRICTOWNER;
	snprintf(path, sizeof(path), "%s/own", dir);
	put_file(path, "2SH3V3GDW7ZNMGYE\n\" TOTP_AUTH\n22222222\n", 0400);
	CHECK(chown(path, 65534, 65534) == 0, "chown");
	ret = file_check(path, "22222222", T0, &o, &r);
	CHECK(ret == 0 && r.accepted && r.recorded, "accepted: %d", ret);
	CHECK(stat(path, &sb) == 0 && sb.st_uid == 65534 &&
	    sb.st_gid == 65534 && (sb.st_mode & 07777) == 0400,
	    "owner, group and mode kept");
}

static int
usage(void)
{
	fprintf(stderr, "usage: test-statefile check|engine FILE CODE NOW "
	    "[-s] [-i] [-o] [-r] [-p MODE] [-g SECONDS RHOST]\n"
	    "       test-statefile parse FILE\n"
	    "       test-statefile VECTORDIR\n");
	return 2;
}

static const char *
how_text(enum otp_state_how how)
{
	switch (how) {
	case OTP_STATE_BYCODE:
		return "code";
	case OTP_STATE_BYSCRATCH:
		return "scratch";
	case OTP_STATE_BYGRACE:
		return "grace";
	default:
		return "refused";
	}
}

static int
driver(int argc, char **argv)
{
	struct otp_state_opts o;
	struct otp_state_result r;
	static struct otp_state st;
	static char in[OTP_STATE_MAX + 2], out[OTP_STATE_OUTMAX];
	size_t n, outlen;
	uint64_t now;
	int i, ret;

	otp_state_opts_init(&o);
	if (strcmp(argv[1], "parse") == 0 && argc == 3) {
		n = slurp(argv[2], in, sizeof(in));
		ret = otp_state_parse(in, n, &st);
		if (ret < 0) {
			fprintf(stderr, "test-statefile: %s: %s\n", argv[2],
			    otp_strerror(ret));
			return 2;
		}
		printf("mode %d window %u step %u rate %u/%u reuse %d "
		    "counter %llu skew %lld scratch %zu\n", (int)st.mode,
		    st.window, st.step, st.rate_n, st.rate_secs,
		    st.disallow_reuse, (unsigned long long)st.hotp_counter,
		    (long long)st.skew, st.nscratch);
		return 0;
	}
	if (argc < 5)
		return usage();
	if (otp_parse_u64(argv[4], 0, INT64_MAX, &now) < 0)
		return usage();
	for (i = 5; i < argc; i++) {
		if (strcmp(argv[i], "-s") == 0)
			o.flags |= OTP_STATE_NOSKEWADJ;
		else if (strcmp(argv[i], "-i") == 0)
			o.flags |= OTP_STATE_NOINCRHOTP;
		else if (strcmp(argv[i], "-o") == 0)
			o.flags |= OTP_STATE_NOSTRICTOWNER;
		else if (strcmp(argv[i], "-r") == 0)
			o.flags |= OTP_STATE_ALLOWRO;
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			o.allowed_perm = (unsigned)strtoul(argv[++i], NULL, 8);
		else if (strcmp(argv[i], "-g") == 0 && i + 2 < argc) {
			o.grace_period = strtoull(argv[++i], NULL, 10);
			o.rhost = argv[++i];
		} else
			return usage();
	}
	if (strcmp(argv[1], "check") == 0)
		ret = file_check(argv[2], argv[3], (int64_t)now, &o,
		    &r);
	else if (strcmp(argv[1], "engine") == 0) {
		n = slurp(argv[2], in, sizeof(in));
		ret = otp_state_check(in, n, argv[3], (int64_t)now, &o, &r,
		    out, sizeof(out), &outlen);
		if (ret == 0)
			fwrite(out, 1, outlen, stdout);
	} else
		return usage();
	if (ret < 0) {
		fprintf(stderr, "test-statefile: %s: %s\n", argv[2],
		    otp_strerror(ret));
		return 2;
	}
	fprintf(stderr, "%s %s offset %lld\n", r.accepted ? "accepted" :
	    "refused", r.accepted ? how_text(r.how) :
	    otp_state_why_text(r.why), (long long)r.offset);
	return r.accepted ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct stat sb;
	char cmd[128];

	if (argc >= 3)
		return driver(argc, argv);
	if (argc != 2 || stat(argv[1], &sb) < 0 || !S_ISDIR(sb.st_mode))
		return usage();
	umask(022);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_check();
	test_readonly();
	test_create_load();
	test_changed();
	test_inflight();
	test_owner();
	snprintf(cmd, sizeof(cmd), "chmod -R u+w %s; rm -rf %s", dir, dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
	return unit_done();
}
