/*
 * _otputils.c - the C half of the Python module otputils: libotputils
 * (<otputils.h>) for python/otputils/__init__.py, on Python's limited API
 * (one _otputils.abi3.so for every interpreter from 3.11 on).
 *
 * Token: a struct otp_token; Store: a struct otp_store, its logins run
 * with the GIL released.  A malformed argument raises ValueError with
 * the library's message; a store that cannot answer raises Error.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <otputils.h>

/* A window this wide runs without the GIL: other threads go on. */
#define WINDOW_NOGIL	64
#define KEY_MAX		256

static PyObject *otp_error_type;	/* otputils.Error */

typedef struct {
	PyObject_HEAD
	struct otp_token	*t;
} TokenObject;

typedef struct {
	PyObject_HEAD
	struct otp_store	*s;
} StoreObject;

/* ValueError with the library's text for err (and what it was about). */
static PyObject *
value_error(int err, const char *what)
{
	if (err == OTP_ENOMEM)
		return PyErr_NoMemory();
	if (what != NULL)
		PyErr_Format(PyExc_ValueError, "%s: %s", what,
		    otp_strerror(err));
	else
		PyErr_SetString(PyExc_ValueError, otp_strerror(err));
	return NULL;
}

/* Text that a sized function writes, as a str. */
static PyObject *
text_of(const struct otp_token *t,
    int (*fn)(const struct otp_token *, char *, size_t))
{
	PyObject *r;
	char *buf;
	int n;

	if ((n = fn(t, NULL, 0)) < 0)
		return value_error(n, NULL);
	if ((buf = PyMem_Malloc((size_t)n + 1)) == NULL)
		return PyErr_NoMemory();
	(void)fn(t, buf, (size_t)n + 1);
	r = PyUnicode_FromStringAndSize(buf, n);
	memset(buf, 0, (size_t)n + 1);
	PyMem_Free(buf);
	return r;
}

/* ---- Token --------------------------------------------------------- */

static void
token_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	otp_token_free(((TokenObject *)self)->t);
	tp_free(self);
	Py_DECREF(tp);
}

/* Token(type, key, digits=6, algorithm="SHA1", period=30, counter=0,
 * issuer=None, account=None) */
static int
token_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "type", "key", "digits", "algorithm",
	    "period", "counter", "issuer", "account", NULL };
	TokenObject *o = (TokenObject *)self;
	const char *type, *alg = "SHA1", *issuer = NULL, *account = NULL;
	Py_buffer key;
	unsigned digits = 6, period = 30;
	long long counter = 0;
	struct otp_token *t = NULL;
	int rc;

	/* Token(): an empty one, for Token.parse to fill. */
	if (PyTuple_Size(args) == 0 && (kw == NULL || PyDict_Size(kw) == 0))
		return 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "sy*|IsILzz", kwlist,
	    &type, &key, &digits, &alg, &period, &counter, &issuer,
	    &account))
		return -1;
	rc = otp_token_new(&t, type, key.buf, (size_t)key.len);
	PyBuffer_Release(&key);
	if (rc == 0 && strcmp(type, "steam") != 0)
		rc = otp_token_set_digits(t, digits);
	if (rc == 0)
		rc = otp_token_set_algorithm(t, alg);
	if (rc == 0)
		rc = otp_token_set_period(t, period);
	if (rc == 0)
		rc = otp_token_set_counter(t, counter);
	if (rc == 0)
		rc = otp_token_set_issuer(t, issuer);
	if (rc == 0)
		rc = otp_token_set_account(t, account);
	if (rc != 0) {
		otp_token_free(t);
		value_error(rc, NULL);
		return -1;
	}
	otp_token_free(o->t);
	o->t = t;
	return 0;
}

static TokenObject *
token_check(PyObject *self)
{
	TokenObject *o = (TokenObject *)self;

	if (o->t == NULL) {
		PyErr_SetString(PyExc_ValueError, "token not initialised");
		return NULL;
	}
	return o;
}

/* Token.parse(uri) -> Token */
static PyObject *
token_parse(PyObject *cls, PyObject *arg)
{
	struct otp_token *t = NULL;
	PyObject *o;
	const char *uri;
	size_t off = 0;
	int rc;

	if ((uri = PyUnicode_AsUTF8AndSize(arg, NULL)) == NULL)
		return NULL;
	if ((rc = otp_token_parse(&t, uri, &off)) != 0) {
		if (rc == OTP_ENOMEM)
			return PyErr_NoMemory();
		PyErr_Format(PyExc_ValueError, "%s (at offset %zu)",
		    otp_strerror(rc), off);
		return NULL;
	}
	if ((o = PyObject_CallNoArgs(cls)) == NULL) {
		otp_token_free(t);
		return NULL;
	}
	otp_token_free(((TokenObject *)o)->t);
	((TokenObject *)o)->t = t;
	return o;
}

static PyObject *
token_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);

	(void)args;
	(void)kw;
	return alloc(tp, 0);
}

/* code(at) -> str */
static PyObject *
token_code(PyObject *self, PyObject *arg)
{
	TokenObject *o = token_check(self);
	char code[16];
	long long at;
	int rc;

	if (o == NULL)
		return NULL;
	at = PyLong_AsLongLong(arg);
	if (at == -1 && PyErr_Occurred())
		return NULL;
	if ((rc = otp_token_code(o->t, at, code, sizeof(code))) < 0)
		return value_error(rc, NULL);
	return PyUnicode_FromStringAndSize(code, rc);
}

/* verify(code, at, window=0, after=-1) -> matched step or None; a code
 * that cannot be one is not accepted (None), as pyotp. */
static PyObject *
token_verify(PyObject *self, PyObject *args)
{
	TokenObject *o = token_check(self);
	const char *code;
	long long at, after = -1;
	unsigned window = 0;
	int64_t matched = -1;
	int rc;

	if (o == NULL || !PyArg_ParseTuple(args, "sL|IL", &code, &at, &window,
	    &after))
		return NULL;
	if (window >= WINDOW_NOGIL) {
		Py_BEGIN_ALLOW_THREADS
		rc = otp_token_verify(o->t, code, at, window, after, &matched);
		Py_END_ALLOW_THREADS
	} else
		rc = otp_token_verify(o->t, code, at, window, after, &matched);
	if (rc == 1)
		return PyLong_FromLongLong(matched);
	if (rc == 0 || rc == OTP_ECODE)
		Py_RETURN_NONE;
	return value_error(rc, NULL);
}

static PyObject *
token_uri(PyObject *self, PyObject *unused)
{
	TokenObject *o = token_check(self);

	(void)unused;
	return o == NULL ? NULL : text_of(o->t, otp_token_uri);
}

/* labels(issuer, account): set both (None: none). */
static PyObject *
token_labels(PyObject *self, PyObject *args)
{
	TokenObject *o = token_check(self);
	const char *issuer, *account;
	int rc;

	if (o == NULL || !PyArg_ParseTuple(args, "zz", &issuer, &account))
		return NULL;
	if ((rc = otp_token_set_issuer(o->t, issuer)) != 0 ||
	    (rc = otp_token_set_account(o->t, account)) != 0)
		return value_error(rc, NULL);
	Py_RETURN_NONE;
}

/* counter(n): set the counter a HOTP URI carries. */
static PyObject *
token_set_counter(PyObject *self, PyObject *arg)
{
	TokenObject *o = token_check(self);
	long long n;
	int rc;

	if (o == NULL)
		return NULL;
	n = PyLong_AsLongLong(arg);
	if (n == -1 && PyErr_Occurred())
		return NULL;
	if ((rc = otp_token_set_counter(o->t, n)) != 0)
		return value_error(rc, NULL);
	Py_RETURN_NONE;
}

/* info() -> (type, digits, algorithm, period, counter, issuer, account,
 * secret) */
static PyObject *
token_info(PyObject *self, PyObject *unused)
{
	TokenObject *o = token_check(self);
	PyObject *issuer, *account, *secret, *r = NULL;

	(void)unused;
	if (o == NULL)
		return NULL;
	issuer = text_of(o->t, otp_token_issuer);
	account = text_of(o->t, otp_token_account);
	secret = text_of(o->t, otp_token_secret);
	if (issuer != NULL && account != NULL && secret != NULL)
		r = Py_BuildValue("sisiLOOO", otp_token_type(o->t),
		    otp_token_digits(o->t), otp_token_algorithm(o->t),
		    otp_token_period(o->t), (long long)otp_token_counter(o->t),
		    issuer, account, secret);
	Py_XDECREF(issuer);
	Py_XDECREF(account);
	Py_XDECREF(secret);
	return r;
}

static PyMethodDef token_methods[] = {
	{ "parse", token_parse, METH_O | METH_CLASS,
	    "Token.parse(uri): a token from an otpauth:// URI." },
	{ "code", token_code, METH_O, "code(at): the code at a time or "
	    "counter." },
	{ "verify", token_verify, METH_VARARGS, "verify(code, at, window=0, "
	    "after=-1): the matched step or counter, or None." },
	{ "uri", token_uri, METH_NOARGS, "uri(): the otpauth:// URI." },
	{ "labels", token_labels, METH_VARARGS, "labels(issuer, account)." },
	{ "set_counter", token_set_counter, METH_O, "set_counter(n)." },
	{ "info", token_info, METH_NOARGS, "info(): (type, digits, "
	    "algorithm, period, counter, issuer, account, secret)." },
	{ NULL, NULL, 0, NULL }
};

static PyType_Slot token_slots[] = {
	{ Py_tp_doc, "A one-time password token (libotputils)." },
	{ Py_tp_new, token_new },
	{ Py_tp_init, token_init },
	{ Py_tp_dealloc, token_dealloc },
	{ Py_tp_methods, token_methods },
	{ 0, NULL }
};

static PyType_Spec token_spec = {
	"otputils._otputils.Token", sizeof(TokenObject), 0,
	Py_TPFLAGS_DEFAULT, token_slots
};

/* ---- Store --------------------------------------------------------- */

static void
store_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	otp_store_close(((StoreObject *)self)->s);
	tp_free(self);
	Py_DECREF(tp);
}

static PyObject *
store_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);

	(void)args;
	(void)kw;
	return alloc(tp, 0);
}

/* Store(url, options): options a sequence of "name=value" or "name". */
static int
store_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "url", "options", NULL };
	StoreObject *o = (StoreObject *)self;
	struct otp_store *s = NULL;
	PyObject *opts = NULL, *seq = NULL;
	const char **v = NULL;
	const char *url;
	Py_ssize_t i, n = 0;
	int rc = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|O", kwlist, &url,
	    &opts))
		return -1;
	if (opts != NULL && opts != Py_None) {
		if ((seq = PySequence_List(opts)) == NULL)
			return -1;
		n = PyList_Size(seq);
	}
	if ((v = PyMem_Calloc((size_t)n + 1, sizeof(*v))) == NULL) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++)
		if ((v[i] = PyUnicode_AsUTF8AndSize(PyList_GetItem(seq, i),
		    NULL)) == NULL)
			goto out;
	Py_BEGIN_ALLOW_THREADS
	rc = otp_store_open(&s, url, v);
	Py_END_ALLOW_THREADS
	for (i = 0; rc == OTP_EINVAL && i < n; i++)
		if (strncmp(v[i], "linger=", 7) == 0) {
			/* Refused by the library: say why. */
			PyErr_Format(PyExc_ValueError, "%s: linger= needs the "
			    "client address of a host (pam_otp.so's PAM_RHOST), "
			    "which a program here does not give", url);
			rc = -1;
			goto out;
		}
	if (rc != 0) {
		PyErr_Format(rc == OTP_EINVAL || rc == OTP_ESTORESCHEME ||
		    rc == OTP_ESTOREURL ? PyExc_ValueError : otp_error_type,
		    "%s: %s", url, otp_strerror(rc));
		rc = -1;
		goto out;
	}
	otp_store_close(o->s);
	o->s = s;
out:
	PyMem_Free(v);
	Py_XDECREF(seq);
	return rc;
}

/* check(user, answer) -> (accepted, reason) */
static PyObject *
store_check(PyObject *self, PyObject *args)
{
	StoreObject *o = (StoreObject *)self;
	const char *user, *answer;
	char reason[512];
	int rc;

	if (o->s == NULL) {
		PyErr_SetString(PyExc_ValueError, "store not opened");
		return NULL;
	}
	if (!PyArg_ParseTuple(args, "ss", &user, &answer))
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	rc = otp_store_check(o->s, user, answer, reason, sizeof(reason));
	Py_END_ALLOW_THREADS
	if (rc < 0) {
		if (rc == OTP_EINVAL)
			return value_error(rc, NULL);
		PyErr_Format(otp_error_type, "%s%s%s", otp_strerror(rc),
		    reason[0] != '\0' ? ": " : "", reason);
		return NULL;
	}
	return Py_BuildValue("(Ns)", PyBool_FromLong(rc), reason);
}

static PyMethodDef store_methods[] = {
	{ "check", store_check, METH_VARARGS, "check(user, answer) -> "
	    "(accepted, reason): one login, as pam_otp.so's." },
	{ NULL, NULL, 0, NULL }
};

static PyType_Slot store_slots[] = {
	{ Py_tp_doc, "A store that pam_otp.so logs in against." },
	{ Py_tp_new, store_new },
	{ Py_tp_init, store_init },
	{ Py_tp_dealloc, store_dealloc },
	{ Py_tp_methods, store_methods },
	{ 0, NULL }
};

static PyType_Spec store_spec = {
	"otputils._otputils.Store", sizeof(StoreObject), 0,
	Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, store_slots
};

/* ---- functions ----------------------------------------------------- */

static PyObject *
m_b32decode(PyObject *mod, PyObject *arg)
{
	const char *text;
	uint8_t key[KEY_MAX];
	size_t off = 0;
	PyObject *r;
	int n;

	(void)mod;
	if ((text = PyUnicode_AsUTF8AndSize(arg, NULL)) == NULL)
		return NULL;
	if ((n = otp_base32_decode(text, key, sizeof(key), &off)) < 0) {
		if (n == OTP_ENOSPACE)
			return value_error(OTP_EKEYLONG, NULL);
		if (n == OTP_ENOMEM)
			return PyErr_NoMemory();
		PyErr_Format(PyExc_ValueError, "%s (at offset %zu)",
		    otp_strerror(n), off);
		return NULL;
	}
	r = PyBytes_FromStringAndSize((const char *)key, n);
	memset(key, 0, sizeof(key));
	return r;
}

static PyObject *
m_b32encode(PyObject *mod, PyObject *arg)
{
	Py_buffer b;
	PyObject *r = NULL;
	char *buf;
	int n;

	(void)mod;
	if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) != 0)
		return NULL;
	if ((n = otp_base32_encode(b.buf, (size_t)b.len, NULL, 0)) < 0)
		value_error(n, NULL);
	else if ((buf = PyMem_Malloc((size_t)n + 1)) == NULL)
		PyErr_NoMemory();
	else {
		(void)otp_base32_encode(b.buf, (size_t)b.len, buf,
		    (size_t)n + 1);
		r = PyUnicode_FromStringAndSize(buf, n);
		memset(buf, 0, (size_t)n + 1);
		PyMem_Free(buf);
	}
	PyBuffer_Release(&b);
	return r;
}

static PyObject *
m_random(PyObject *mod, PyObject *arg)
{
	Py_ssize_t n = PyLong_AsSsize_t(arg);
	PyObject *r;
	int rc;

	(void)mod;
	if (n < 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "negative length");
		return NULL;
	}
	if ((r = PyBytes_FromStringAndSize(NULL, n)) == NULL)
		return NULL;
	if ((rc = otp_random(PyBytes_AsString(r), (size_t)n)) != 0) {
		Py_DECREF(r);
		PyErr_Format(otp_error_type, "%s", otp_strerror(rc));
		return NULL;
	}
	return r;
}

static PyObject *
m_version(PyObject *mod, PyObject *unused)
{
	(void)mod;
	(void)unused;
	return PyUnicode_FromString(otp_version());
}

static PyMethodDef module_methods[] = {
	{ "b32decode", m_b32decode, METH_O, "Base32 text (lenient) to "
	    "bytes." },
	{ "b32encode", m_b32encode, METH_O, "bytes to Base32, no padding." },
	{ "random_bytes", m_random, METH_O, "n bytes from the kernel." },
	{ "version", m_version, METH_NOARGS, "libotputils' version." },
	{ NULL, NULL, 0, NULL }
};

static int
module_exec(PyObject *m)
{
	PyObject *tok, *store;

	otp_error_type = PyErr_NewExceptionWithDoc("otputils.Error",
	    "A store could not answer (the login is refused).", NULL, NULL);
	if (otp_error_type == NULL ||
	    PyModule_AddObjectRef(m, "Error", otp_error_type) != 0)
		return -1;
	if ((tok = PyType_FromSpec(&token_spec)) == NULL)
		return -1;
	if (PyModule_AddObject(m, "Token", tok) != 0) {
		Py_DECREF(tok);
		return -1;
	}
	if ((store = PyType_FromSpec(&store_spec)) == NULL)
		return -1;
	if (PyModule_AddObject(m, "Store", store) != 0) {
		Py_DECREF(store);
		return -1;
	}
	return 0;
}

static PyModuleDef_Slot module_slots[] = {
	{ Py_mod_exec, module_exec },
	{ 0, NULL }
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "otputils._otputils",
	"libotputils for Python (see the otputils package).", 0,
	module_methods, module_slots, NULL, NULL, NULL
};

PyMODINIT_FUNC PyInit__otputils(void);

PyMODINIT_FUNC
PyInit__otputils(void)
{
	return PyModuleDef_Init(&module_def);
}
