"""otputils: one-time passwords from libotputils (otp-utils).

pyotp's common API, with its names and defaults (TOTP, HOTP, .at, .now,
.verify, .provisioning_uri, parse_uri, random_base32), computed by the C
library of otp-utils; beyond it, verify_step(after=) for replay
protection and Store(url, **options).check(user, answer), the login of
pam_otp.so against the same stores, exactly once with every other
verifier.  Bad input raises ValueError with the library's message; a
store that cannot answer raises otputils.Error.
"""

import calendar
import datetime
import threading
import time

from ._otputils import Error, Store as _Store, Token as _Token
from ._otputils import b32decode as _b32decode, b32encode as _b32encode
from ._otputils import random_bytes as _random_bytes, version as _version

__all__ = ["TOTP", "HOTP", "Store", "Error", "parse_uri", "random_base32",
           "random_hex"]
__version__ = _version()

_DIGESTS = {"sha1": "SHA1", "sha256": "SHA256", "sha512": "SHA512"}


def _algorithm(digest):
    """The library's name of a digest: None, a name or hashlib's."""
    if digest is None:
        return "SHA1"
    name = digest if isinstance(digest, str) else getattr(digest(), "name",
                                                          "")
    alg = _DIGESTS.get(name.lower().replace("-", ""))
    if alg is None:
        raise ValueError("unknown algorithm: %r" % (name,))
    return alg


def _hashlib(alg):
    import hashlib
    return getattr(hashlib, alg.lower())


def _unix(for_time):
    """Unix time of an int, a float or a datetime (naive: local), as
    pyotp reads it."""
    if isinstance(for_time, datetime.datetime):
        if for_time.tzinfo is not None:
            return calendar.timegm(for_time.utctimetuple())
        return int(time.mktime(for_time.timetuple()))
    return int(for_time)


class OTP(object):
    """What TOTP and HOTP share: the secret and the token built from it."""

    def __init__(self, s, digits=6, digest=None, name=None, issuer=None):
        self.secret = s
        self.digits = digits
        self.digest = digest
        self.name = name or "Secret"
        self.issuer = issuer
        self._alg = _algorithm(digest)
        if self.digest is None:
            self.digest = _hashlib(self._alg)

    def _uri(self, name, issuer_name):
        self._t.labels(issuer_name if issuer_name is not None
                       else self.issuer,
                       name if name is not None else self.name)
        return self._t.uri()


class TOTP(OTP):
    """A time-based token (RFC 6238)."""

    def __init__(self, s, digits=6, digest=None, name=None, issuer=None,
                 interval=30):
        OTP.__init__(self, s, digits, digest, name, issuer)
        self.interval = interval
        self._t = _Token("totp", _b32decode(s), digits, self._alg,
                         interval)

    def at(self, for_time, counter_offset=0):
        return self._t.code(_unix(for_time) +
                            counter_offset * self.interval)

    def now(self):
        return self._t.code(int(time.time()))

    def timecode(self, for_time):
        return _unix(for_time) // self.interval

    def verify(self, otp, for_time=None, valid_window=0):
        return self.verify_step(otp, for_time, valid_window) is not None

    def verify_step(self, otp, for_time=None, valid_window=0, after=None):
        """The step otp matches within valid_window steps of for_time
        (now) and above after (a step: the last one accepted), or None."""
        at = int(time.time()) if for_time is None else _unix(for_time)
        return self._t.verify(str(otp), at, valid_window,
                              -1 if after is None else after)

    def provisioning_uri(self, name=None, issuer_name=None, image=None):
        if image is not None:
            raise ValueError("image= is not supported")
        return self._uri(name, issuer_name)


class HOTP(OTP):
    """A counter-based token (RFC 4226)."""

    def __init__(self, s, digits=6, digest=None, name=None, issuer=None,
                 initial_count=0):
        OTP.__init__(self, s, digits, digest, name, issuer)
        self.initial_count = initial_count
        self._t = _Token("hotp", _b32decode(s), digits, self._alg, 30,
                         initial_count)

    def at(self, count):
        return self._t.code(self.initial_count + count)

    def verify(self, otp, counter):
        return self._t.verify(str(otp), self.initial_count + counter) \
            is not None

    def verify_step(self, otp, counter, valid_window=0, after=None):
        """The counter otp matches from counter to counter +
        valid_window, above after, or None."""
        return self._t.verify(str(otp), self.initial_count + counter,
                              valid_window, -1 if after is None else after)

    def provisioning_uri(self, name=None, initial_count=None,
                         issuer_name=None, image=None):
        if image is not None:
            raise ValueError("image= is not supported")
        self._t.set_counter(self.initial_count if initial_count is None
                            else initial_count)
        return self._uri(name, issuer_name)


def parse_uri(uri):
    """A TOTP or HOTP from an otpauth:// URI (a Steam URI gives a TOTP
    with Steam's 5-character codes)."""
    t = _Token.parse(uri)
    kind, digits, alg, period, counter, issuer, account, secret = t.info()
    if kind == "hotp":
        otp = HOTP(secret, digits, _hashlib(alg), account or None,
                   issuer or None, counter)
    else:
        otp = TOTP(secret, max(digits, 6), _hashlib(alg), account or None,
                   issuer or None, period)
        otp.digits = digits
    otp._t = t
    return otp


def random_base32(length=32, chars=None):
    """A new secret of length Base32 characters (at least 32: 160
    bits), from the kernel's generator."""
    if length < 32:
        raise ValueError("Secrets should be at least 160 bits")
    if chars is not None:
        raise ValueError("chars= is not supported")
    return _b32encode(_random_bytes((length * 5 + 7) // 8))[:length]


def random_hex(length=40):
    """A new secret of length hex digits (at least 32)."""
    if length < 32:
        raise ValueError("Secrets should be at least 128 bits")
    return _random_bytes((length + 1) // 2).hex()[:length]


class Store(object):
    """A store as pam_otp.so names it (ga:PATH, oath:PATH, otpw:PATH,
    postgresql://...), its rules as pam_otp.so's options: Store(url,
    window=3, store_key="/etc/otp-utils/store.key", nolock=True).
    check(user, answer) runs one login (the GIL released): True when
    accepted, False when refused, the reason in .reason (the calling
    thread's last login's: one Store serves many threads); a store that
    cannot answer raises Error.  linger= raises ValueError: it needs a
    host's client address, which a program here does not give."""

    def __init__(self, url, **options):
        opts = []
        for k, v in options.items():
            if v is True:
                opts.append(k)
            elif v is not False and v is not None:
                opts.append("%s=%s" % (k, v))
        self.url = url
        self._last = threading.local()
        self._s = _Store(url, opts)

    @property
    def reason(self):
        return getattr(self._last, "reason", "")

    def check(self, user, answer):
        ok, self._last.reason = self._s.check(user, str(answer))
        return ok
