/*
 * otputils.c - libotputils: the public API (<otputils.h>, otp_token(3),
 * otp_store(3)) as a thin layer over the core (lib/) and the system floor
 * (lib/sys/).  It allocates (a token, a store's settings), which the
 * core never does, so it lives here and not in lib/.  Nothing here keeps
 * state between calls: a token is read only once built, and each login
 * opens the store afresh, so handles may be shared between threads.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "otp.h"
#include "otp_uri.h"
#include "otp_state.h"
#include "otp_radius.h"
#include "store.h"
#include "sys.h"
#include "otputils.h"

#define EXPORT	__attribute__((visibility("default")))

#define PERIOD_MAX	86400	/* a day: the longest step a setter takes */
#define OPTIONS_MAX	64	/* options otp_store_open keeps */

struct otp_token {
	struct otp_uri	u;	/* key, parameters, issuer and account */
	struct otp_hmac	h;	/* u's key schedule: copied for each use */
};

struct otp_store {
	struct sys_store_cfg	 cfg;	/* its strings point into text */
	char			*url;
	char			*text;	/* the options, NUL-separated */
	size_t			 textlen;
	int			 per_user;	/* a file's path with ${USER} */
};

/* Text out as snprintf: s[0..n) into buf (cut to size - 1), the length. */
static int
put_text(const char *s, size_t n, char *buf, size_t size)
{
	size_t m;

	if (buf == NULL && size != 0)
		return OTP_EINVAL;
	if (n > INT_MAX)
		return OTP_ETOOLONG;
	if (size > 0) {
		m = n < size ? n : size - 1;
		memcpy(buf, s, m);
		buf[m] = '\0';
	}
	return (int)n;
}

EXPORT const char *
otp_version(void)
{
	return OTP_VERSION;
}

/* otp_strerror is the core's (lib/error.c), exported as it is. */

/* ---- tokens -------------------------------------------------------- */

static int
rekey(struct otp_token *t)
{
	return otp_hmac_init(&t->h, t->u.alg, t->u.key.buf, t->u.key.len);
}

EXPORT void
otp_token_free(struct otp_token *t)
{
	if (t == NULL)
		return;
	otp_hmac_wipe(&t->h);
	otp_wipe(t, sizeof(*t));
	free(t);
}

static int
token_alloc(struct otp_token **tp)
{
	if (tp == NULL)
		return OTP_EINVAL;
	*tp = NULL;
	if ((*tp = calloc(1, sizeof(**tp))) == NULL)
		return OTP_ENOMEM;
	return 0;
}

EXPORT int
otp_token_parse(struct otp_token **tp, const char *uri, size_t *erroff)
{
	struct otp_token *t;
	int rc;

	if (uri == NULL)
		return OTP_EINVAL;
	if ((rc = token_alloc(tp)) != 0)
		return rc;
	t = *tp;
	otp_uri_init(&t->u);
	if ((rc = otp_uri_parse(uri, &t->u, erroff)) == 0)
		rc = rekey(t);
	if (rc != 0) {
		otp_token_free(t);
		*tp = NULL;
	}
	return rc;
}

EXPORT int
otp_token_new(struct otp_token **tp, const char *type, const void *key,
    size_t keylen)
{
	struct otp_token *t;
	int rc;

	if (type == NULL || (key == NULL && keylen > 0))
		return OTP_EINVAL;
	if (keylen == 0)
		return OTP_EKEYEMPTY;
	if (keylen > OTP_KEY_MAX)
		return OTP_EKEYLONG;
	if (strcmp(type, "totp") != 0 && strcmp(type, "hotp") != 0 &&
	    strcmp(type, "steam") != 0)
		return OTP_EURITYPE;
	if ((rc = token_alloc(tp)) != 0)
		return rc;
	t = *tp;
	otp_uri_init(&t->u);
	t->u.type = type[0] == 'h' ? OTP_TYPE_HOTP : OTP_TYPE_TOTP;
	t->u.steam = type[0] == 's';
	if (t->u.steam)
		t->u.digits = 5;
	memcpy(t->u.key.buf, key, keylen);
	t->u.key.len = keylen;
	if ((rc = rekey(t)) != 0) {
		otp_token_free(t);
		*tp = NULL;
	}
	return rc;
}

EXPORT int
otp_token_uri(const struct otp_token *t, char *buf, size_t size)
{
	char *out;
	int rc;

	if (t == NULL)
		return OTP_EINVAL;
	/* The URI holds the key: built in a buffer wiped after. */
	if ((out = malloc(OTP_URI_MAX)) == NULL)
		return OTP_ENOMEM;
	if ((rc = otp_uri_build(&t->u, out, OTP_URI_MAX)) >= 0)
		rc = put_text(out, strlen(out), buf, size);
	otp_wipe(out, OTP_URI_MAX);
	free(out);
	return rc;
}

/* The counter at stands for: the step of Unix time at, or at itself. */
static int
centre(const struct otp_token *t, int64_t at, uint64_t *c)
{
	if (t->u.type == OTP_TYPE_HOTP) {
		if (at < 0)
			return OTP_ECOUNTER;
		*c = (uint64_t)at;
		return 0;
	}
	return otp_totp_counter(at, 0, t->u.period, c);
}

EXPORT int
otp_token_code(const struct otp_token *t, int64_t at, char *code,
    size_t size)
{
	struct otp_hmac h;
	char text[OTP_CODE_MAX];
	uint64_t c;
	uint32_t v;
	int rc;

	if (t == NULL)
		return OTP_EINVAL;
	if ((rc = centre(t, at, &c)) != 0)
		return rc;
	h = t->h;
	v = otp_hotp_value(&h, c);
	otp_hmac_wipe(&h);
	if (t->u.steam)
		otp_code_steam(v, text);
	else
		rc = otp_code_decimal(v, t->u.digits, text, sizeof(text));
	if (rc == 0)
		rc = put_text(text, strlen(text), code, size);
	otp_wipe(&v, sizeof(v));
	otp_wipe(text, sizeof(text));
	return rc;
}

EXPORT int
otp_token_verify(const struct otp_token *t, const char *code, int64_t at,
    unsigned window, int64_t after, int64_t *matched)
{
	struct otp_hmac h;
	struct otp_match m;
	enum otp_window shape;
	uint64_t c, lo, hi, from, n;
	int rc;

	if (t == NULL || code == NULL || after < -1)
		return OTP_EINVAL;
	if (window > OTP_WINDOW_MAX)
		return OTP_EWINDOW;
	if ((rc = centre(t, at, &c)) != 0)
		return rc;
	/* The candidates: HOTP c..c+window, TOTP c-window..c+window, none
	 * past 2^63-1 (matched is an int64_t), none at or below after. */
	lo = t->u.type == OTP_TYPE_HOTP ? c : c >= window ? c - window : 0;
	hi = c > (uint64_t)INT64_MAX - window ? (uint64_t)INT64_MAX :
	    c + window;
	/* Nearest the centre wins unless the floor cuts the window; then
	 * the lowest above it. */
	shape = t->u.type == OTP_TYPE_HOTP ? OTP_WINDOW_AHEAD :
	    OTP_WINDOW_AROUND;
	from = c;
	n = window;
	if (after >= 0 && (uint64_t)after >= lo) {
		lo = (uint64_t)after + 1;
		shape = OTP_WINDOW_AHEAD;
		from = lo;
		n = lo <= hi ? hi - lo : 0;
	} else if (hi < c + window) {
		shape = OTP_WINDOW_AHEAD;
		from = lo;
		n = hi - lo;
	}
	h = t->h;
	if (t->u.steam)
		rc = otp_verify_steam(&h, code, from, n, shape, &m);
	else
		rc = otp_verify(&h, code, t->u.digits, from, n, shape, &m);
	otp_hmac_wipe(&h);
	/* Past the floor: the code's shape was checked, nothing matches. */
	if (rc == 1 && lo > hi)
		rc = 0;
	if (rc == 1 && matched != NULL)
		*matched = (int64_t)m.counter;
	otp_wipe(&m, sizeof(m));
	return rc;
}

EXPORT const char *
otp_token_type(const struct otp_token *t)
{
	if (t == NULL)
		return NULL;
	return t->u.steam ? "steam" : t->u.type == OTP_TYPE_HOTP ? "hotp" :
	    "totp";
}

EXPORT int
otp_token_set_digits(struct otp_token *t, unsigned digits)
{
	if (t == NULL)
		return OTP_EINVAL;
	if (t->u.steam)
		return digits == 5 ? 0 : OTP_EURISTEAM;
	if (digits < OTP_DIGITS_MIN || digits > OTP_DIGITS_MAX)
		return OTP_EDIGITS;
	t->u.digits = digits;
	t->u.have |= OTP_HAVE_DIGITS;
	return 0;
}

EXPORT int
otp_token_digits(const struct otp_token *t)
{
	return t == NULL ? OTP_EINVAL : (int)t->u.digits;
}

EXPORT int
otp_token_set_algorithm(struct otp_token *t, const char *name)
{
	enum otp_alg alg, old;
	int rc;

	if (t == NULL || name == NULL)
		return OTP_EINVAL;
	if ((rc = otp_alg_parse(name, &alg)) != 0)
		return rc;
	if (t->u.steam && alg != OTP_ALG_SHA1)
		return OTP_EURISTEAM;
	old = t->u.alg;
	t->u.alg = alg;
	if ((rc = rekey(t)) != 0) {
		t->u.alg = old;
		(void)rekey(t);
		return rc;
	}
	t->u.have |= OTP_HAVE_ALG;
	return 0;
}

EXPORT const char *
otp_token_algorithm(const struct otp_token *t)
{
	return t == NULL ? NULL : otp_alg_name(t->u.alg);
}

EXPORT int
otp_token_set_period(struct otp_token *t, unsigned seconds)
{
	if (t == NULL)
		return OTP_EINVAL;
	if (seconds < 1 || seconds > PERIOD_MAX)
		return OTP_ESTEP;
	t->u.period = seconds;
	t->u.have |= OTP_HAVE_PERIOD;
	return 0;
}

EXPORT int
otp_token_period(const struct otp_token *t)
{
	return t == NULL ? OTP_EINVAL : (int)t->u.period;
}

EXPORT int
otp_token_set_counter(struct otp_token *t, int64_t counter)
{
	if (t == NULL)
		return OTP_EINVAL;
	if (counter < 0)
		return OTP_ECOUNTER;
	t->u.counter = (uint64_t)counter;
	t->u.have |= OTP_HAVE_COUNTER;
	return 0;
}

EXPORT int64_t
otp_token_counter(const struct otp_token *t)
{
	if (t == NULL)
		return OTP_EINVAL;
	return t->u.counter > (uint64_t)INT64_MAX ? OTP_ERANGE :
	    (int64_t)t->u.counter;
}

/* Set a label field: UTF-8 without control characters, or none. */
static int
set_label(char *field, const char *s)
{
	size_t n = s == NULL ? 0 : strlen(s), bad;
	int rc;

	if (n >= OTP_LABEL_MAX)
		return OTP_ETOOLONG;
	if (n > 0 && (rc = otp_text_check(s, n, &bad)) != 0)
		return rc;
	memcpy(field, s != NULL ? s : "", n);
	field[n] = '\0';
	return 0;
}

EXPORT int
otp_token_set_issuer(struct otp_token *t, const char *issuer)
{
	int rc;

	if (t == NULL)
		return OTP_EINVAL;
	if ((rc = set_label(t->u.issuer, issuer)) != 0)
		return rc;
	t->u.have &= ~(unsigned)(OTP_HAVE_ISSUER | OTP_HAVE_LABELISSUER);
	if (t->u.issuer[0] != '\0')
		t->u.have |= OTP_HAVE_ISSUER | OTP_HAVE_LABELISSUER;
	return 0;
}

EXPORT int
otp_token_issuer(const struct otp_token *t, char *buf, size_t size)
{
	if (t == NULL)
		return OTP_EINVAL;
	return put_text(t->u.issuer, strlen(t->u.issuer), buf, size);
}

EXPORT int
otp_token_set_account(struct otp_token *t, const char *account)
{
	if (t == NULL)
		return OTP_EINVAL;
	return set_label(t->u.account, account);
}

EXPORT int
otp_token_account(const struct otp_token *t, char *buf, size_t size)
{
	if (t == NULL)
		return OTP_EINVAL;
	return put_text(t->u.account, strlen(t->u.account), buf, size);
}

EXPORT int
otp_token_secret(const struct otp_token *t, char *buf, size_t size)
{
	if (t == NULL)
		return OTP_EINVAL;
	return otp_base32_encode(t->u.key.buf, t->u.key.len, buf, size);
}

/* ---- Base32 and randomness ---------------------------------------- */

EXPORT int
otp_base32_encode(const void *data, size_t n, char *buf, size_t size)
{
	size_t len;
	char *out;
	int rc;

	if (data == NULL && n > 0)
		return OTP_EINVAL;
	len = otp_b32_encoded_len(n, OTP_B32_NOPAD);
	if (len > INT_MAX)
		return OTP_ETOOLONG;
	if ((out = malloc(len + 1)) == NULL)
		return OTP_ENOMEM;
	if ((rc = otp_b32_encode(data, n, out, len + 1, OTP_B32_NOPAD)) >= 0)
		rc = put_text(out, (size_t)rc, buf, size);
	otp_wipe(out, len + 1);
	free(out);
	return rc;
}

EXPORT int
otp_base32_decode(const char *text, void *out, size_t size, size_t *erroff)
{
	size_t n, len;
	uint8_t *tmp;
	int rc;

	if (text == NULL || (out == NULL && size != 0))
		return OTP_EINVAL;
	n = strlen(text);
	/* Room for the lenient decoder; any text fits in this. */
	if ((tmp = malloc(n / 8 * 5 + 5)) == NULL)
		return OTP_ENOMEM;
	rc = otp_b32_decode(text, n, tmp, n / 8 * 5 + 5, &len, 0, erroff);
	if (rc == 0 && len > INT_MAX)
		rc = OTP_ETOOLONG;
	if (rc == 0 && out != NULL && len > size)
		rc = OTP_ENOSPACE;
	if (rc == 0) {
		if (out != NULL)
			memcpy(out, tmp, len);
		rc = (int)len;
	}
	otp_wipe(tmp, n / 8 * 5 + 5);
	free(tmp);
	return rc;
}

EXPORT int
otp_random(void *buf, size_t n)
{
	if (buf == NULL && n > 0)
		return OTP_EINVAL;
	return sys_random_bytes(buf, n);
}

EXPORT int
otp_scratch_codes(uint32_t *codes, size_t n)
{
	if (codes == NULL || n < 1 || n > OTP_SCRATCH_SETMAX)
		return OTP_EINVAL;
	return sys_scratch_codes(codes, n);
}

/* ---- stores -------------------------------------------------------- */

EXPORT void
otp_store_close(struct otp_store *s)
{
	if (s == NULL)
		return;
	free(s->url);
	if (s->text != NULL) {
		/* store_key= names a file, not a secret; wiped all the
		 * same, as pam_otp.so's arguments are never logged. */
		otp_wipe(s->text, s->textlen);
		free(s->text);
	}
	free(s);
}

EXPORT int
otp_store_open(struct otp_store **sp, const char *url,
    const char *const *options)
{
	struct otp_store *s;
	struct sys_store *probe;
	const char *why;
	size_t i, n = 0, len = 0;
	char *p;
	int rc;

	if (sp == NULL)
		return OTP_EINVAL;
	*sp = NULL;
	if (url == NULL)
		return OTP_EINVAL;
	for (i = 0; options != NULL && options[i] != NULL; i++) {
		if (i >= OPTIONS_MAX)
			return OTP_ETOOLONG;
		len += strlen(options[i]) + 1;
	}
	n = i;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return OTP_ENOMEM;
	sys_store_cfg_init(&s->cfg);
	if ((s->url = strdup(url)) == NULL ||
	    (len > 0 && (s->text = malloc(len)) == NULL)) {
		otp_store_close(s);
		return OTP_ENOMEM;
	}
	s->textlen = len;
	/* The options' values point into the copy, which s keeps. */
	for (i = 0, p = s->text; i < n; i++) {
		size_t m = strlen(options[i]) + 1;

		memcpy(p, options[i], m);
		if ((rc = sys_store_option(&s->cfg, p, &why)) <= 0) {
			otp_store_close(s);
			return rc < 0 ? rc : OTP_EINVAL;
		}
		/* linger= takes an answer again from the same client: a
		 * program here names none (pam_otp.so's PAM_RHOST). */
		if (s->cfg.ga.linger != 0) {
			otp_store_close(s);
			return OTP_EINVAL;
		}
		p += m;
	}
	/* The URL names a store (its module loads): told now, not at the
	 * first login. */
	if ((rc = sys_store_open(s->url, &s->cfg, &probe)) != 0) {
		otp_store_close(s);
		return rc;
	}
	/* A file's path takes the user's name for ${USER}; ~ and ${HOME}
	 * are pam_otp.so's, which looks the account up: a program runs as
	 * itself and looks up no one, so they are refused, never taken as
	 * a path's letters. */
	if (!(sys_store_caps(probe) & SYS_STORE_SHARED)) {
		const char *path = strchr(s->url, ':') + 1;

		s->per_user = strstr(path, "${USER}") != NULL;
		if (path[0] == '~' || strstr(path, "/~") != NULL ||
		    strstr(path, "${HOME}") != NULL)
			rc = OTP_EINVAL;
	}
	sys_store_close(probe);
	if (rc != 0) {
		otp_store_close(s);
		return rc;
	}
	*sp = s;
	return 0;
}

EXPORT int
otp_store_check(struct otp_store *s, const char *user, const char *answer,
    char *reason, size_t size)
{
	struct sys_store *st = NULL;
	struct sys_login *l = NULL;
	struct sys_verdict v;
	struct otp_answer a;
	const char *why = "", *url;
	char path[PATH_MAX + 16];
	int rc;

	if (s == NULL || user == NULL || answer == NULL ||
	    (reason == NULL && size != 0))
		return OTP_EINVAL;
	if (reason != NULL && size > 0)
		reason[0] = '\0';
	memset(&v, 0, sizeof(v));
	a.text = answer;
	a.kind = OTP_ANSWER_BARE;
	/* A store of its own for each login: nothing shared between
	 * threads but the settings, read only.  ${USER} puts only a plain
	 * login name in a path, never a path (a name from a web form). */
	url = s->url;
	if (s->per_user) {
		/* A name no file can have: refused, as no token. */
		if (otp_user_check(user, NULL) != 0 ||
		    sys_store_url_user(s->url, user, path, sizeof(path)) != 0) {
			why = otp_strerror(OTP_EUSERNAME);
			rc = 0;
			goto out;
		}
		url = path;
	}
	if ((rc = sys_store_open(url, &s->cfg, &st)) != 0)
		goto out;
	if ((rc = sys_login_open(st, user, &l)) != 0) {
		why = sys_store_reason(st);
		goto out;
	}
	if ((rc = sys_login_check(l, &a, 1, &v)) != 0)
		why = sys_login_reason(l);
	else if (v.accepted)
		rc = 1;
	else
		why = v.unknown ? "no token for the user" : v.why != NULL ?
		    v.why : "code refused";
out:
	if (reason != NULL && size > 0)
		(void)put_text(why, strlen(why), reason, size);
	sys_login_free(l);
	sys_store_close(st);
	otp_wipe(&v, sizeof(v));
	return rc;
}
