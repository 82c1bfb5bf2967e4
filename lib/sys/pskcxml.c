/*
 * pskcxml.c - the XML of PSKC (RFC 6030) key containers, with libxml2:
 * reading a container's element texts for the core (lib/pskc.c), which
 * decides what they mean, and writing a container with xmlTextWriter.
 *
 * The reader never fetches, never expands an entity and never reads a
 * DTD: a file with a DOCTYPE is refused before libxml2 sees it, the
 * network is off, the encoding is UTF-8 whatever the file declares (so
 * no other encoding can spell a DOCTYPE), and the size is bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlwriter.h>

#include "otp.h"
#include "otp_pskc.h"
#include "otp_uri.h"
#include "sys.h"

#define NS_DS		"http://www.w3.org/2000/09/xmldsig#"
#define NS_XENC		"http://www.w3.org/2001/04/xmlenc#"
#define NS_XENC11	"http://www.w3.org/2009/xmlenc11#"
#define NS_PKCS5	"http://www.rsasecurity.com/rsalabs/pkcs/schemas/" \
			"pkcs-5v2-0#"

/* ---- reading ---------------------------------------------------------- */

int
sys_pskc_read(const char *path, char *buf, size_t bufsz, size_t *len)
{
	size_t n = 0;
	ssize_t r;
	int fd = STDIN_FILENO, rc = 0, saved;

	if (path != NULL && strcmp(path, "-") != 0 &&
	    (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return OTP_EIO;
	/* One byte more than the bound tells a file that is too large. */
	while (n < bufsz) {
		r = read(fd, buf + n, bufsz - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = OTP_EIO;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	saved = errno;
	if (fd != STDIN_FILENO)
		close(fd);
	errno = saved;
	if (rc == 0 && (n > OTP_PSKC_MAX || n == bufsz))
		rc = OTP_EPSKCSIZE;
	if (rc != 0)
		otp_wipe(buf, n);
	else
		*len = n;
	return rc;
}

static int
is_pskc_ns(const xmlNode *n)
{
	const char *h;

	if (n->ns == NULL || n->ns->href == NULL)
		return 0;
	h = (const char *)n->ns->href;
	/* The RFC's namespace, and that of the drafts vendors still use. */
	return strcmp(h, OTP_PSKC_NS) == 0 ||
	    strncmp(h, "urn:ietf:params:xml:ns:keyprov:pskc:", 36) == 0 ||
	    strncmp(h, "http://www.ietf.org/keyprov/pskc", 32) == 0;
}

/* ns: "pskc" for PSKC's namespace, another URI, or NULL for any. */
static int
is_elem(const xmlNode *n, const char *ns, const char *name)
{
	if (n->type != XML_ELEMENT_NODE ||
	    strcmp((const char *)n->name, name) != 0)
		return 0;
	if (ns == NULL)
		return 1;
	if (strcmp(ns, "pskc") == 0)
		return is_pskc_ns(n);
	return n->ns != NULL && n->ns->href != NULL &&
	    strcmp((const char *)n->ns->href, ns) == 0;
}

static xmlNode *
child(const xmlNode *n, const char *ns, const char *name)
{
	xmlNode *c;

	if (n == NULL)
		return NULL;
	for (c = n->children; c != NULL; c = c->next)
		if (is_elem(c, ns, name))
			return c;
	return NULL;
}

/* The strings handed to the core, freed (and wiped) after each key. */
#define TEXTS_MAX	64

struct texts {
	char	*s[TEXTS_MAX];
	size_t	 n;
	int	 full;
};

static const char *
keep(struct texts *t, xmlChar *s)
{
	if (s == NULL)
		return NULL;
	if (t->n == TEXTS_MAX) {
		t->full = 1;
		otp_wipe(s, strlen((char *)s));
		xmlFree(s);
		return NULL;
	}
	t->s[t->n++] = (char *)s;
	return (const char *)s;
}

static void
texts_free(struct texts *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		otp_wipe(t->s[i], strlen(t->s[i]));
		xmlFree(t->s[i]);
	}
	t->n = 0;
}

static const char *
text_of(struct texts *t, const xmlNode *n)
{
	return n == NULL ? NULL : keep(t, xmlNodeGetContent(n));
}

static const char *
attr_of(struct texts *t, const xmlNode *n, const char *name)
{
	return n == NULL ? NULL : keep(t, xmlGetProp(n, BAD_CAST name));
}

/* An element holding PlainValue or EncryptedValue, and ValueMAC. */
static void
value_of(struct texts *t, const xmlNode *n, struct otp_pskc_value *v)
{
	const xmlNode *e;

	memset(v, 0, sizeof(*v));
	if (n == NULL)
		return;
	v->plain = text_of(t, child(n, "pskc", "PlainValue"));
	if ((e = child(n, "pskc", "EncryptedValue")) != NULL) {
		v->method = attr_of(t, child(e, NS_XENC, "EncryptionMethod"),
		    "Algorithm");
		v->cipher = text_of(t, child(child(e, NS_XENC, "CipherData"),
		    NS_XENC, "CipherValue"));
		/* An EncryptedValue without its parts is still one. */
		if (v->method == NULL)
			v->method = "";
		if (v->cipher == NULL)
			v->cipher = "";
	}
	v->mac = text_of(t, child(n, "pskc", "ValueMAC"));
}

/* The protection of the container (children of KeyContainer). */
static void
doc_of(struct texts *t, const xmlNode *root, struct otp_pskc_doc *d)
{
	const xmlNode *ek, *dk, *kdm, *p, *mm, *mk;

	memset(d, 0, sizeof(*d));
	if ((ek = child(root, "pskc", "EncryptionKey")) != NULL) {
		d->encrypted = 1;
		d->keyname = text_of(t, child(ek, NS_DS, "KeyName"));
		dk = child(ek, NS_XENC11, "DerivedKey");
		kdm = child(dk, NS_XENC11, "KeyDerivationMethod");
		if (kdm != NULL) {
			d->kdf = attr_of(t, kdm, "Algorithm");
			if (d->kdf == NULL)
				d->kdf = "";
		}
		/* The parameters appear as pkcs5: (the RFC) and xenc11:
		 * (python-pskc) and their children unqualified or not:
		 * matched by local name. */
		p = child(kdm, NULL, "PBKDF2-params");
		d->salt = text_of(t, child(child(p, NULL, "Salt"), NULL,
		    "Specified"));
		d->iterations = text_of(t, child(p, NULL, "IterationCount"));
		d->keylength = text_of(t, child(p, NULL, "KeyLength"));
		d->prf = attr_of(t, child(p, NULL, "PRF"), "Algorithm");
	}
	if ((mm = child(root, "pskc", "MACMethod")) != NULL) {
		d->macmethod = attr_of(t, mm, "Algorithm");
		if (d->macmethod == NULL)
			d->macmethod = "";
		if ((mk = child(mm, "pskc", "MACKey")) != NULL) {
			d->mackey.method = attr_of(t, child(mk, NS_XENC,
			    "EncryptionMethod"), "Algorithm");
			d->mackey.cipher = text_of(t, child(child(mk, NS_XENC,
			    "CipherData"), NS_XENC, "CipherValue"));
		}
	}
}

static void
key_of(struct texts *t, const xmlNode *pkg, const xmlNode *key,
    struct otp_pskc_keytext *k)
{
	const xmlNode *dev = child(pkg, "pskc", "DeviceInfo");
	const xmlNode *ap = child(key, "pskc", "AlgorithmParameters");
	const xmlNode *rf = child(ap, "pskc", "ResponseFormat");
	const xmlNode *data = child(key, "pskc", "Data");

	memset(k, 0, sizeof(*k));
	k->id = attr_of(t, key, "Id");
	if (k->id == NULL)
		k->id = attr_of(t, key, "KeyId");	/* the drafts' */
	k->algorithm = attr_of(t, key, "Algorithm");
	k->suite = text_of(t, child(ap, "pskc", "Suite"));
	k->challenge = child(ap, "pskc", "ChallengeFormat") != NULL;
	k->length = attr_of(t, rf, "Length");
	k->encoding = attr_of(t, rf, "Encoding");
	k->issuer = text_of(t, child(key, "pskc", "Issuer"));
	k->userid = text_of(t, child(key, "pskc", "UserId"));
	k->friendly = text_of(t, child(key, "pskc", "FriendlyName"));
	k->serial = text_of(t, child(dev, "pskc", "SerialNo"));
	k->devuserid = text_of(t, child(dev, "pskc", "UserId"));
	value_of(t, child(data, "pskc", "Secret"), &k->secret);
	value_of(t, child(data, "pskc", "Counter"), &k->counter);
	value_of(t, child(data, "pskc", "Time"), &k->time);
	value_of(t, child(data, "pskc", "TimeInterval"), &k->interval);
	value_of(t, child(data, "pskc", "TimeDrift"), &k->drift);
}

/* Zero the text of the tree: a plain container's values are secrets. */
static void
wipe_tree(xmlNode *n)
{
	for (; n != NULL; n = n->next) {
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
		    && n->content != NULL)
			otp_wipe(n->content, strlen((char *)n->content));
		if (n->type == XML_ELEMENT_NODE)
			wipe_tree(n->children);
	}
}

int
sys_pskc_parse(const char *buf, size_t len, sys_pskc_fn *fn, void *arg,
    size_t *line)
{
	static const char doctype[] = "<!DOCTYPE";
	struct otp_pskc_doc d;
	struct otp_pskc_keytext k;
	struct texts t = { .n = 0 };
	xmlParserCtxtPtr ctx;
	xmlDocPtr doc;
	const xmlNode *root, *pkg, *key;
	const xmlError *e;
	size_t i;
	int rc = 0;

	*line = 0;
	if (len > OTP_PSKC_MAX)
		return OTP_EPSKCSIZE;
	if (memchr(buf, '\0', len) != NULL)
		return OTP_ENUL;
	if (memmem(buf, len, doctype, sizeof(doctype) - 1) != NULL)
		return OTP_EPSKCDTD;
	if ((ctx = xmlNewParserCtxt()) == NULL)
		return OTP_ENOMEM;
	doc = xmlCtxtReadMemory(ctx, buf, (int)len, NULL, "UTF-8",
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
	    XML_PARSE_IGNORE_ENC | XML_PARSE_NOCDATA);
	if (doc == NULL) {
		if ((e = xmlCtxtGetLastError(ctx)) != NULL && e->line > 0)
			*line = (size_t)e->line;
		xmlFreeParserCtxt(ctx);
		return OTP_EPSKC;
	}
	xmlFreeParserCtxt(ctx);
	root = xmlDocGetRootElement(doc);
	if (doc->intSubset != NULL || doc->extSubset != NULL) {
		rc = OTP_EPSKCDTD;
		goto out;
	}
	if (root == NULL || !is_elem(root, "pskc", "KeyContainer")) {
		rc = OTP_EPSKC;
		goto out;
	}
	doc_of(&t, root, &d);
	i = t.n;
	for (pkg = root->children; rc == 0 && pkg != NULL; pkg = pkg->next) {
		if (!is_elem(pkg, "pskc", "KeyPackage"))
			continue;
		for (key = pkg->children; rc == 0 && key != NULL;
		    key = key->next) {
			if (!is_elem(key, "pskc", "Key"))
				continue;
			key_of(&t, pkg, key, &k);
			*line = (size_t)xmlGetLineNo(key);
			rc = t.full ? OTP_EPSKC : fn(arg, &d, &k);
			/* The key's own texts; the container's stay. */
			while (t.n > i) {
				t.n--;
				otp_wipe(t.s[t.n], strlen(t.s[t.n]));
				xmlFree(t.s[t.n]);
			}
			t.full = 0;
		}
	}
out:
	texts_free(&t);
	wipe_tree(xmlDocGetRootElement(doc));
	xmlFreeDoc(doc);
	return rc;
}

/* ---- writing ---------------------------------------------------------- */

struct writer {
	xmlTextWriterPtr		 w;
	const struct otp_pskc_crypt	*c;	/* NULL: plain values */
	int				 bad;
};

static void
start(struct writer *wr, const char *name)
{
	if (xmlTextWriterStartElement(wr->w, BAD_CAST name) < 0)
		wr->bad = 1;
}

static void
end(struct writer *wr)
{
	if (xmlTextWriterEndElement(wr->w) < 0)
		wr->bad = 1;
}

static void
attr(struct writer *wr, const char *name, const char *value)
{
	if (xmlTextWriterWriteAttribute(wr->w, BAD_CAST name,
	    BAD_CAST value) < 0)
		wr->bad = 1;
}

static void
elem(struct writer *wr, const char *name, const char *text)
{
	if (xmlTextWriterWriteElement(wr->w, BAD_CAST name,
	    BAD_CAST text) < 0)
		wr->bad = 1;
}

/* An EncryptedValue's parts (xenc:EncryptionMethod, xenc:CipherData) of
 * n bytes at in, under a fresh random IV. */
static int
encrypted(struct writer *wr, const uint8_t *in, size_t n, char *mac,
    size_t macsz)
{
	char cipher[OTP_PSKC_TEXT_MAX];
	uint8_t iv[16];
	int rc;

	if ((rc = sys_random_bytes(iv, sizeof(iv))) != 0)
		return rc;
	rc = otp_pskc_seal(wr->c, iv, in, n, cipher, sizeof(cipher), mac,
	    macsz);
	if (rc == 0) {
		start(wr, "xenc:EncryptionMethod");
		attr(wr, "Algorithm", otp_pskc_aes_method(wr->c->keylen));
		end(wr);
		start(wr, "xenc:CipherData");
		elem(wr, "xenc:CipherValue", cipher);
		end(wr);
	}
	otp_wipe(cipher, sizeof(cipher));
	return rc;
}

/* One data element: the secret encrypted when the container is, the
 * numbers always plain (LinOTP reads them only so). */
static int
value(struct writer *wr, const char *name, const uint8_t *bytes, size_t n,
    const char *number)
{
	char text[OTP_PSKC_TEXT_MAX], mac[128];
	int rc = 0;

	start(wr, name);
	if (number != NULL)
		elem(wr, "pskc:PlainValue", number);
	else if (wr->c == NULL) {
		if ((rc = otp_b64_encode(bytes, n, text, sizeof(text))) >= 0)
			elem(wr, "pskc:PlainValue", text);
		rc = rc < 0 ? rc : 0;
	} else {
		start(wr, "pskc:EncryptedValue");
		rc = encrypted(wr, bytes, n, mac, sizeof(mac));
		end(wr);
		if (rc == 0)
			elem(wr, "pskc:ValueMAC", mac);
	}
	end(wr);
	otp_wipe(text, sizeof(text));
	return rc;
}

static int
write_key(struct writer *wr, const struct otp_uri *u)
{
	char serial[OTP_PSKC_SERIAL_LEN + 1], num[32];
	uint8_t rnd[4];
	int rc;

	if ((rc = sys_random_bytes(rnd, sizeof(rnd))) != 0)
		return rc;
	otp_pskc_serial(u, rnd, serial);
	start(wr, "pskc:KeyPackage");
	start(wr, "pskc:DeviceInfo");
	elem(wr, "pskc:SerialNo", serial);
	end(wr);
	start(wr, "pskc:Key");
	attr(wr, "Id", serial);
	attr(wr, "Algorithm", u->type == OTP_TYPE_TOTP ? OTP_PSKC_TOTP :
	    OTP_PSKC_HOTP);
	if (u->issuer[0] != '\0')
		elem(wr, "pskc:Issuer", u->issuer);
	start(wr, "pskc:AlgorithmParameters");
	snprintf(num, sizeof(num), "HMAC-%s", otp_alg_name(u->alg));
	elem(wr, "pskc:Suite", num);
	start(wr, "pskc:ResponseFormat");
	snprintf(num, sizeof(num), "%u", u->digits);
	attr(wr, "Length", num);
	attr(wr, "Encoding", "DECIMAL");
	end(wr);
	end(wr);
	start(wr, "pskc:Data");
	if ((rc = value(wr, "pskc:Secret", u->key.buf, u->key.len, NULL)) != 0)
		return rc;
	if (u->type == OTP_TYPE_HOTP) {
		snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)u->counter);
		value(wr, "pskc:Counter", NULL, 0, num);
	} else {
		value(wr, "pskc:Time", NULL, 0, "0");
		snprintf(num, sizeof(num), "%llu",
		    (unsigned long long)u->period);
		value(wr, "pskc:TimeInterval", NULL, 0, num);
	}
	end(wr);
	if (u->account[0] != '\0')
		elem(wr, "pskc:UserId", u->account);
	end(wr);
	end(wr);
	return 0;
}

/* EncryptionKey and MACMethod: the key (given or derived from the
 * password under a fresh salt) and a fresh MAC key wrapped in it. */
static int
write_protection(struct writer *wr, const struct sys_pskc_out *o,
    struct otp_pskc_crypt *c)
{
	char salt64[64], num[32];
	uint8_t salt[OTP_PSKC_SALT_LEN], mackey[20];
	int rc;

	start(wr, "pskc:EncryptionKey");
	if (o->password != NULL) {
		if ((rc = sys_random_bytes(salt, sizeof(salt))) != 0)
			return rc;
		c->keylen = 16;
		if ((rc = otp_pskc_pbkdf2(o->password, o->passwordlen, salt,
		    sizeof(salt), o->iterations, c->key, c->keylen)) != 0)
			return rc;
		otp_b64_encode(salt, sizeof(salt), salt64, sizeof(salt64));
		start(wr, "xenc11:DerivedKey");
		start(wr, "xenc11:KeyDerivationMethod");
		attr(wr, "Algorithm", OTP_PSKC_PBKDF2);
		start(wr, "pkcs5:PBKDF2-params");
		start(wr, "Salt");
		elem(wr, "Specified", salt64);
		end(wr);
		snprintf(num, sizeof(num), "%lu", o->iterations);
		elem(wr, "IterationCount", num);
		snprintf(num, sizeof(num), "%zu", c->keylen);
		elem(wr, "KeyLength", num);
		end(wr);
		end(wr);
		end(wr);
	} else {
		if (otp_pskc_aes_method(o->keylen) == NULL)
			return OTP_EPSKCKEYLEN;
		memcpy(c->key, o->key, o->keylen);
		c->keylen = o->keylen;
		elem(wr, "ds:KeyName", o->keyname != NULL ? o->keyname :
		    "Pre-shared-key");
	}
	end(wr);
	if ((rc = sys_random_bytes(mackey, sizeof(mackey))) != 0)
		return rc;
	start(wr, "pskc:MACMethod");
	attr(wr, "Algorithm", OTP_PSKC_HMACSHA1);
	start(wr, "pskc:MACKey");
	wr->c = c;
	rc = encrypted(wr, mackey, sizeof(mackey), NULL, 0);
	end(wr);
	end(wr);
	memcpy(c->mackey, mackey, sizeof(mackey));
	c->mackeylen = sizeof(mackey);
	c->macalg = OTP_ALG_SHA1;
	otp_wipe(mackey, sizeof(mackey));
	return rc;
}

int
sys_pskc_write(const struct otp_uri *u, size_t n,
    const struct sys_pskc_out *o, sys_pskc_emit *emit, void *arg)
{
	struct otp_pskc_crypt c;
	struct writer wr = { NULL, NULL, 0 };
	xmlBufferPtr buf;
	size_t i;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	if ((buf = xmlBufferCreate()) == NULL)
		return OTP_ENOMEM;
	if ((wr.w = xmlNewTextWriterMemory(buf, 0)) == NULL) {
		xmlBufferFree(buf);
		return OTP_ENOMEM;
	}
	xmlTextWriterSetIndent(wr.w, 1);
	xmlTextWriterSetIndentString(wr.w, BAD_CAST "  ");
	if (xmlTextWriterStartDocument(wr.w, "1.0", "UTF-8", NULL) < 0)
		wr.bad = 1;
	start(&wr, "pskc:KeyContainer");
	attr(&wr, "xmlns:pskc", OTP_PSKC_NS);
	if (o->password != NULL || o->key != NULL) {
		attr(&wr, "xmlns:ds", NS_DS);
		attr(&wr, "xmlns:xenc", NS_XENC);
	}
	if (o->password != NULL) {
		attr(&wr, "xmlns:xenc11", NS_XENC11);
		attr(&wr, "xmlns:pkcs5", NS_PKCS5);
	}
	attr(&wr, "Version", "1.0");
	if (o->password != NULL || o->key != NULL)
		rc = write_protection(&wr, o, &c);
	for (i = 0; rc == 0 && i < n; i++)
		rc = write_key(&wr, &u[i]);
	end(&wr);
	if (rc == 0 && xmlTextWriterEndDocument(wr.w) < 0)
		wr.bad = 1;
	xmlFreeTextWriter(wr.w);
	if (rc == 0 && wr.bad)
		rc = OTP_ENOMEM;
	/* What we write, we read back: no file past the reader's bound. */
	if (rc == 0 && (size_t)xmlBufferLength(buf) > OTP_PSKC_MAX)
		rc = OTP_EPSKCSIZE;
	if (rc == 0)
		rc = emit(arg, (const char *)xmlBufferContent(buf),
		    (size_t)xmlBufferLength(buf));
	/* Plain values are the secrets themselves. */
	otp_wipe((void *)xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
	xmlBufferFree(buf);
	otp_wipe(&c, sizeof(c));
	return rc;
}
