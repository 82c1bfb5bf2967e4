"""otp_radius - FreeRADIUS's rlm_python3 checks one-time passwords with
otputils (python3-otputils), in the server's own threads, without a PAM
stack: mods-enabled/otp_python runs it.

authorize() gives every request that carries a User-Password to
otp_python (Auth-Type); authenticate() runs the login of pam_otp.so on
the store: User-Name and User-Password (a code, an emergency scratch code,
or a PIN followed by a code where digits= says so).  The answer is the
RLM code (ok: Access-Accept; reject; fail when the store cannot answer,
which FreeRADIUS rejects too), and a Reply-Message that tells the client
no more than a PAM prompt would.  Why a login was refused goes to the
server's log with the user's name, never the code.

The module's config section names the store and its options, as
pam_otp.so's line does:

	config {
		store = "postgresql://..."
		options = "store_key=/etc/otp-utils/store.key store_timeout=3000"
	}

The store is opened once in each process and serves every thread, and a
PostgreSQL store keeps its connections across requests (a process forked
from this one makes its own).  A login runs without the GIL; but
FreeRADIUS 3.2.1 declares rlm_python3 thread-unsafe and calls the module
from one thread at a time, so a login that waits for the database holds
up the requests behind it until store_timeout: keep that short.  A store URL with ${USER} (a state
file per user: ga:/var/lib/otp-radius/${USER}) is opened for each
request, for a plain login name only.
"""

import os
import re
import threading

import radiusd

# The user's name comes from the network: in a path only when it is a
# plain login name (no "/", no leading "." or "-"), as pam_otp.so's.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,255}\Z")

_lock = threading.Lock()
_store = None           # this process's otputils.Store (None: per user)
_store_pid = None       # the process that opened it
_url = None
_options = None


def _log(level, msg):
    radiusd.radlog(level, "otp_python: " + msg)


def _settings():
    """The store's URL and options from the module's config section."""
    conf = getattr(radiusd, "config", None) or {}
    url = conf.get("store", "")
    if not url:
        raise ValueError("no store in the module's config section")
    options = {}
    for word in conf.get("options", "").split():
        name, eq, value = word.partition("=")
        options[name] = value if eq else True
    return url, options


def _open(user):
    """The store for user: this process's, opened on first use (and
    again in a process forked after it), or the user's own when the URL
    names one per user."""
    global _store, _store_pid, _url, _options
    import otputils

    with _lock:
        if _store_pid != os.getpid():
            _url, _options = _settings()
            _store = None
            if "${USER}" not in _url:
                _store = otputils.Store(_url, **_options)
            _store_pid = os.getpid()
        store = _store
    if store is not None or user is None:
        return store
    if not _PLAIN_NAME.match(user):
        return None
    return otputils.Store(_url.replace("${USER}", user), **_options)


def instantiate(p):
    # A wrong URL or option stops the server here.  Without the otputils
    # module (python3-otputils) the server starts and refuses every
    # login, saying why each time.
    try:
        _open(None)
    except ImportError as e:
        _log(radiusd.L_ERR, "otputils cannot be imported: %s" % e)
    except Exception as e:
        _log(radiusd.L_ERR, "store: %s" % e)
        return radiusd.RLM_MODULE_FAIL
    return radiusd.RLM_MODULE_OK


def _attr(p, name):
    for pair in p:
        if pair[0] == name:
            return pair[-1]
    return None


def authorize(p):
    if _attr(p, "User-Password") is None:
        return radiusd.RLM_MODULE_NOOP
    return (radiusd.RLM_MODULE_UPDATED, (),
            (("Auth-Type", ":=", "otp_python"),))


def _reply(rcode, text):
    return (rcode, (("Reply-Message", text),), ())


def authenticate(p):
    user = _attr(p, "User-Name")
    answer = _attr(p, "User-Password")
    if not user or answer is None:
        _log(radiusd.L_AUTH, "no User-Name or User-Password: refused")
        return _reply(radiusd.RLM_MODULE_INVALID, "OTP not accepted")
    # Only a plain name is shown as it is.
    shown = '"%s"' % user if _PLAIN_NAME.match(user) else \
        "a user named %r" % user[:64]
    try:
        store = _open(user)
        if store is None:
            _log(radiusd.L_AUTH, "login of %s refused: not a plain login "
                 "name" % shown)
            return _reply(radiusd.RLM_MODULE_REJECT, "OTP not accepted")
        ok = store.check(user, answer)
        reason = store.reason
    except Exception as e:
        # The store could not answer (a database down or slower than
        # store_timeout, a file unreadable, no otputils): refused, never
        # let in.  The message names no secret.
        _log(radiusd.L_ERR, "login of %s refused: %s" % (shown, e))
        return _reply(radiusd.RLM_MODULE_FAIL, "OTP check failed")
    if ok:
        _log(radiusd.L_AUTH, "accepted a code for %s" % shown)
        return _reply(radiusd.RLM_MODULE_OK, "OTP accepted")
    _log(radiusd.L_AUTH, "code not accepted for %s: %s" % (shown, reason))
    return _reply(radiusd.RLM_MODULE_REJECT, "OTP not accepted")
