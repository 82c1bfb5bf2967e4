/*
 * test-key.c - sys_key_read from operands, streams, files, FIFOs and
 * pipes, and otp_key_parse of hex, Base32 and otpauth:// key text, against
 * tests/vectors/key-read.txt and tests/vectors/key-parse.txt.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "otp.h"
#include "otp_uri.h"
#include "sys.h"
#include "unit.h"

/* Undo the C escapes of the vector file; returns the byte count. */
static size_t
unescape(const char *in, char *out, size_t outsz)
{
	size_t n = 0;
	unsigned v;

	while (*in != '\0' && n + 1 < outsz) {
		if (*in != '\\') {
			out[n++] = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n':
			out[n++] = '\n';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case '0':
			out[n++] = '\0';
			break;
		case 'x':
			if (sscanf(in + 1, "%2x", &v) == 1) {
				out[n++] = (char)v;
				in += 2;
			}
			break;
		default:
			out[n++] = *in;
			break;
		}
		if (*in != '\0')
			in++;
	}
	out[n] = '\0';
	return n;
}

static int
all_zero(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* Check one result of sys_key_read against a vector's expectation. */
static void
check_read(const struct unit_line *l, const char *how, int rc,
    const char *out, size_t outsz, int code, const char *want)
{
	if (code != 1) {
		unit_check(rc == code, l->file, (int)l->lineno,
		    "%s: got %d, want %s", how, rc, l->field[2]);
		unit_check(all_zero(out, outsz), l->file, (int)l->lineno,
		    "%s: output not wiped on error", how);
		return;
	}
	unit_check(rc == 0 && strcmp(out, want) == 0, l->file,
	    (int)l->lineno, "%s: got %d '%s', want '%s'", how, rc,
	    rc == 0 ? out : "", want);
}

static char tmpdir[] = "/tmp/otp-test-key-XXXXXX";

static void
write_file(const char *path, const char *data, size_t n)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_EXCL, 0600);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n || close(fd) != 0) {
		perror(path);
		exit(1);
	}
}

static void
read_case(const struct unit_line *l, void *arg)
{
	char data[256], want[256], path[512], arg1[520], *out;
	uint64_t outsz;
	size_t n, line;
	FILE *fp;
	pid_t pid;
	int rc, code, status;

	(void)arg;
	if (l->nfields != 3 ||
	    otp_parse_u64(l->field[1], 1, 4096, &outsz) != 0) {
		unit_check(0, l->file, (int)l->lineno, "bad vector");
		return;
	}
	n = unescape(l->field[0], data, sizeof(data));
	unescape(l->field[2], want, sizeof(want));
	code = unit_errcode(l->field[2]);
	/* Exactly outsz bytes, so that ASan sees any write past them. */
	if ((out = malloc((size_t)outsz)) == NULL)
		exit(1);

	/* A stream: "-", and NULL, as cli_key_load passes stdin. */
	if ((fp = tmpfile()) == NULL || fwrite(data, 1, n, fp) != n)
		exit(1);
	rewind(fp);
	memset(out, 'x', (size_t)outsz);
	rc = sys_key_read(l->lineno % 2 ? "-" : NULL, fileno(fp), out,
	    (size_t)outsz);
	check_read(l, "stream", rc, out, (size_t)outsz, code, want);
	if (rc == 0) {
		/* One line consumed, no more. */
		const char *nl = memchr(data, '\n', n);

		line = nl != NULL ? (size_t)(nl - data) + 1 : n;
		off_t at = lseek(fileno(fp), 0, SEEK_CUR);

		unit_check(at == (off_t)line, l->file, (int)l->lineno,
		    "stream: consumed %ld bytes, want %zu", (long)at, line);
	}
	fclose(fp);

	/* A regular file. */
	snprintf(path, sizeof(path), "%s/file%u", tmpdir, l->lineno);
	write_file(path, data, n);
	snprintf(arg1, sizeof(arg1), "@%s", path);
	memset(out, 'x', (size_t)outsz);
	rc = sys_key_read(arg1, -1, out, (size_t)outsz);
	check_read(l, "@file", rc, out, (size_t)outsz, code, want);
	unlink(path);

	/* A FIFO, read a byte at a time. */
	snprintf(path, sizeof(path), "%s/fifo%u", tmpdir, l->lineno);
	if (mkfifo(path, 0600) != 0)
		exit(1);
	if ((pid = fork()) == 0) {
		int fd;

		/* Under valgrind the child's exit runs __libc_freeres, whose
		 * stdio cleanup seeks the vector file's shared descriptor
		 * back, so the parent read its lines again forever: the
		 * child keeps none of the parent's files. */
		closefrom(3);
		fd = open(path, O_WRONLY);

		if (fd < 0 || write(fd, data, n) != (ssize_t)n)
			_exit(1);
		_exit(0);
	}
	snprintf(arg1, sizeof(arg1), "@%s", path);
	memset(out, 'x', (size_t)outsz);
	rc = sys_key_read(arg1, -1, out, (size_t)outsz);
	check_read(l, "@fifo", rc, out, (size_t)outsz, code, want);
	waitpid(pid, &status, 0);
	unlink(path);
	free(out);
}

/* What sys_key_read leaves in a pipe it read through /dev/fd/N. */
static void
pipe_consumption(void)
{
	char out[16], arg[64], rest[256];
	char big[100];
	int p[2], rc;
	ssize_t n;

	if (pipe(p) != 0)
		exit(1);
	if (write(p[1], "abc\ndef\n", 8) != 8)
		exit(1);
	snprintf(arg, sizeof(arg), "@/dev/fd/%d", p[0]);
	/* (CHECK_EQ_INT evaluates its arguments twice: call first.) */
	rc = sys_key_read(arg, -1, out, sizeof(out));
	CHECK_EQ_INT(rc, 0, "pipe");
	CHECK_EQ_STR(out, "abc", "pipe line");
	close(p[1]);
	n = read(p[0], rest, sizeof(rest));
	CHECK(n == 4 && memcmp(rest, "def\n", 4) == 0,
	    "pipe: only the first line is consumed (%zd left)", n);
	close(p[0]);

	/* A line without end: no more than outsz+1 bytes are taken. */
	if (pipe(p) != 0)
		exit(1);
	memset(big, 'A', sizeof(big));
	if (write(p[1], big, sizeof(big)) != (ssize_t)sizeof(big))
		exit(1);
	close(p[1]);
	snprintf(arg, sizeof(arg), "@/dev/fd/%d", p[0]);
	rc = sys_key_read(arg, -1, out, 8);
	CHECK_EQ_INT(rc, OTP_ETOOLONG, "pipe too long");
	n = read(p[0], rest, sizeof(rest));
	CHECK(n >= (ssize_t)sizeof(big) - 9, "pipe: read %zd bytes of a "
	    "long line with outsz 8", (ssize_t)sizeof(big) - n);
	close(p[0]);
}

static void
read_edges(void)
{
	char out[16], arg[600], path[512];
	struct sockaddr_un sun;
	FILE *fp;
	int s;

	/* Operands are copied, one trailing newline dropped. */
	CHECK_EQ_INT(sys_key_read("KEY", -1, out, sizeof(out)), 0, "arg");
	CHECK_EQ_STR(out, "KEY", "arg");
	CHECK_EQ_INT(sys_key_read("KEY\n", -1, out, sizeof(out)), 0, "arg");
	CHECK_EQ_STR(out, "KEY", "arg newline");
	CHECK_EQ_INT(sys_key_read("KEY\r\n", -1, out, sizeof(out)), 0,
	    "arg");
	CHECK_EQ_STR(out, "KEY", "arg CRLF");
	CHECK_EQ_INT(sys_key_read("KEY\n\n", -1, out, sizeof(out)), 0,
	    "arg");
	CHECK_EQ_STR(out, "KEY\n", "arg: only one newline goes");
	CHECK_EQ_INT(sys_key_read("", -1, out, sizeof(out)), 0, "arg");
	CHECK_EQ_STR(out, "", "empty arg");
	CHECK_EQ_INT(sys_key_read("123456789012345", -1, out, 16), 0,
	    "arg fits");
	CHECK_EQ_INT(sys_key_read("1234567890123456", -1, out, 16),
	    OTP_ETOOLONG, "arg too long");
	CHECK(all_zero(out, sizeof(out)), "arg wiped");
	CHECK_EQ_INT(sys_key_read("KEY", -1, out, 0), OTP_EINVAL, "outsz 0");
	CHECK_EQ_INT(sys_key_read("KEY", -1, NULL, 5), OTP_EINVAL, "NULL");
	CHECK_EQ_INT(sys_key_read("-", -1, out, sizeof(out)), OTP_EINVAL,
	    "no stream");

	/* Files that are not key files. */
	errno = 0;
	CHECK_EQ_INT(sys_key_read("@/nonexistent/key", -1, out, sizeof(out)),
	    OTP_EIO, "missing");
	CHECK_EQ_INT(errno, ENOENT, "missing errno");
	errno = 0;
	snprintf(arg, sizeof(arg), "@%s", tmpdir);
	CHECK_EQ_INT(sys_key_read(arg, -1, out, sizeof(out)), OTP_EIO,
	    "directory");
	CHECK_EQ_INT(errno, EISDIR, "directory errno");
	CHECK_EQ_INT(sys_key_read("@", -1, out, sizeof(out)), OTP_EIO,
	    "empty name");
	CHECK_EQ_INT(sys_key_read("@/dev/null", -1, out, sizeof(out)),
	    OTP_EEMPTY, "character device");
	snprintf(path, sizeof(path), "%s/sock", tmpdir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);	/* 30 bytes */
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0 &&
	    bind(s, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
		snprintf(arg, sizeof(arg), "@%s", path);
		CHECK_EQ_INT(sys_key_read(arg, -1, out, sizeof(out)),
		    OTP_EIO, "socket");
		close(s);
		unlink(path);
	}
	/* A symbolic link to a key file is followed. */
	snprintf(path, sizeof(path), "%s/target", tmpdir);
	write_file(path, "ABCD\n", 5);
	snprintf(arg, sizeof(arg), "%s/link", tmpdir);
	if (symlink(path, arg) == 0) {
		char a2[620];

		snprintf(a2, sizeof(a2), "@%s", arg);
		CHECK_EQ_INT(sys_key_read(a2, -1, out, sizeof(out)), 0,
		    "symlink");
		CHECK_EQ_STR(out, "ABCD", "symlink");
		unlink(arg);
	}
	unlink(path);

	/* A stream that fails. */
	if ((fp = fopen("/dev/null", "w")) != NULL) {
		memset(out, 'x', sizeof(out));
		CHECK_EQ_INT(sys_key_read("-", fileno(fp), out, sizeof(out)),
		    OTP_EIO,
		    "stream error");
		CHECK(all_zero(out, sizeof(out)), "stream error wiped");
		fclose(fp);
	}
	/* Several lines of one stream, one call each. */
	if ((fp = tmpfile()) != NULL) {
		fputs("one\r\ntwo\n\nthree", fp);
		rewind(fp);
		CHECK(sys_key_read("-", fileno(fp), out, sizeof(out)) == 0 &&
		    strcmp(out, "one") == 0, "line 1");
		CHECK(sys_key_read("-", fileno(fp), out, sizeof(out)) == 0 &&
		    strcmp(out, "two") == 0, "line 2");
		CHECK(sys_key_read("-", fileno(fp), out, sizeof(out)) == 0 &&
		    strcmp(out, "") == 0, "line 3");
		CHECK(sys_key_read("-", fileno(fp), out, sizeof(out)) == 0 &&
		    strcmp(out, "three") == 0, "line 4");
		CHECK(sys_key_read("-", fileno(fp), out, sizeof(out)) ==
		    OTP_EEMPTY,
		    "end");
		fclose(fp);
	}
	pipe_consumption();
}

static void
parse_case(const struct unit_line *l, void *arg)
{
	struct otp_uri u;
	enum otp_keyenc enc;
	uint8_t want[OTP_KEY_MAX + 1];
	size_t off = 12345;
	uint64_t woff;
	long n;
	int rc, code;

	(void)arg;
	if (l->nfields != 4) {
		unit_check(0, l->file, (int)l->lineno, "want 4 fields");
		return;
	}
	enc = strcmp(l->field[0], "base32") == 0 ? OTP_KEYENC_BASE32 :
	    OTP_KEYENC_HEX;
	memset(&u, 0xa5, sizeof(u));
	rc = otp_key_parse(l->field[1], enc, &u, &off);
	code = unit_errcode(l->field[2]);
	if (code != 1) {
		unit_check(rc == code, l->file, (int)l->lineno,
		    "'%s': got %d, want %s", l->field[1], rc, l->field[2]);
		unit_check(all_zero((const char *)u.key.buf,
		    sizeof(u.key.buf)) && u.key.len == 0, l->file,
		    (int)l->lineno, "key not wiped on error");
		if (strcmp(l->field[3], "-") != 0) {
			if (otp_parse_u64(l->field[3], 0, 100000, &woff) != 0)
				unit_check(0, l->file, (int)l->lineno,
				    "bad offset field");
			else
				unit_check(off == woff, l->file,
				    (int)l->lineno, "'%s': offset %zu, want "
				    "%llu", l->field[1], off,
				    (unsigned long long)woff);
		}
		return;
	}
	n = unit_unhex(l->field[2], want, sizeof(want));
	unit_check(rc == 0 && n >= 0 && u.key.len == (size_t)n &&
	    memcmp(u.key.buf, want, (size_t)n) == 0, l->file, (int)l->lineno,
	    "'%s': got %d, %zu bytes", l->field[1], rc, u.key.len);
	unit_check(u.is_uri == (strcmp(l->field[3], "uri") == 0), l->file,
	    (int)l->lineno, "is_uri %d", u.is_uri);
	if (!u.is_uri)
		/* A bare key gets the defaults, not stale memory. */
		unit_check(u.type == OTP_TYPE_HOTP && u.alg == OTP_ALG_SHA1 &&
		    u.digits == 6 && u.counter == 0 && u.period == 30 &&
		    u.have == 0 && u.warn == 0 && u.issuer[0] == '\0' &&
		    u.account[0] == '\0', l->file, (int)l->lineno,
		    "defaults");
}

static void
parse_edges(void)
{
	struct otp_uri u;
	size_t off;

	CHECK_EQ_INT(otp_key_parse("00", OTP_KEYENC_HEX, NULL, &off),
	    OTP_EINVAL, "NULL u");
	CHECK_EQ_INT(otp_key_parse(NULL, OTP_KEYENC_HEX, &u, &off),
	    OTP_EINVAL, "NULL text");
	CHECK_EQ_INT(otp_key_parse("3132", OTP_KEYENC_HEX, &u, NULL), 0,
	    "NULL erroff");
	CHECK_EQ_INT(otp_key_parse("31x2", OTP_KEYENC_HEX, &u, NULL),
	    OTP_EHEX, "NULL erroff on error");
	CHECK_EQ_INT(otp_key_parse("00", (enum otp_keyenc)7, &u, &off),
	    OTP_EINVAL, "bad encoding");
	/* A URI's parameters come through. */
	CHECK_EQ_INT(otp_key_parse("otpauth://totp/ACME:bob?secret="
	    "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA256&digits=8"
	    "&period=60", OTP_KEYENC_HEX, &u, &off), 0, "URI");
	CHECK(u.is_uri && u.type == OTP_TYPE_TOTP &&
	    u.alg == OTP_ALG_SHA256 && u.digits == 8 && u.period == 60 &&
	    strcmp(u.issuer, "ACME") == 0 && strcmp(u.account, "bob") == 0,
	    "URI parameters");
	/* A failed URI after a good one leaves no key behind. */
	CHECK_EQ_INT(otp_key_parse("otpauth://totp/x?secret=A1",
	    OTP_KEYENC_HEX, &u, &off), OTP_EBASE32, "bad URI secret");
	CHECK(all_zero((const char *)u.key.buf, sizeof(u.key.buf)) &&
	    u.key.len == 0, "URI key wiped");
	/* 256 bytes as Base32 (410 characters) fit; 257 do not. */
	{
		char b32[420];
		uint8_t key[OTP_KEY_MAX + 1];

		memset(key, 0xff, sizeof(key));
		otp_b32_encode(key, OTP_KEY_MAX, b32, sizeof(b32),
		    OTP_B32_NOPAD);
		CHECK_EQ_INT(otp_key_parse(b32, OTP_KEYENC_BASE32, &u, &off),
		    0, "256-byte Base32 key");
		CHECK_EQ_INT(u.key.len, OTP_KEY_MAX, "256 bytes");
		otp_b32_encode(key, OTP_KEY_MAX + 1, b32, sizeof(b32),
		    OTP_B32_NOPAD);
		CHECK_EQ_INT(otp_key_parse(b32, OTP_KEYENC_BASE32, &u, &off),
		    OTP_EKEYLONG, "257-byte Base32 key");
	}
}

int
main(int argc, char *argv[])
{
	const char *dir = argc > 1 ? argv[1] : "tests/vectors";

	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	unit_vectors(dir, "key-read.txt", read_case, NULL);
	unit_vectors(dir, "key-parse.txt", parse_case, NULL);
	read_edges();
	parse_edges();
	if (rmdir(tmpdir) != 0)
		unit_check(0, __FILE__, __LINE__, "temporary files left in %s",
		    tmpdir);
	return unit_done();
}
