-- otp-utils: the PostgreSQL token store, schema version 2.
--
-- otp-store init runs these statements in one transaction; a DBA may run
-- them by hand (psql -1 -f schema.sql) and then `otp-store init` records
-- the store key's check value and seals any version-1 row anew.  Every
-- statement can run again, and each brings a version-1 store up to
-- version 2 in place.
--
-- A token is one row.  The user name is bytea: a login name of any
-- bytes is stored as it is.  state is the token's state file image
-- (otp-state(5)) without its scratch codes, sealed with
-- ChaCha20-Poly1305 under the store key; the user, kind, gen, disabled,
-- failures and locked_until are bound to the seal as associated data,
-- so a row changed without the key does not open.  gen grows at every
-- write: a host refuses a row older than one it has seen (a row written
-- back).  failures counts wrong answers since the last accept, on every
-- server alike; locked_until (seconds since the epoch, 0: not locked)
-- ends a lock-out.  scratch is the unused scratch codes' keyed hashes,
-- 32 bytes each.  otp_log is the audit trail: one row a decision,
-- written in the login's own transaction; never a code.  Nothing in a
-- dump of these tables is a secret.
--
-- The servers' role needs SELECT, INSERT, UPDATE and DELETE on the
-- tables, and nothing else.

CREATE TABLE IF NOT EXISTS otp_schema (
	version		integer NOT NULL CHECK (version > 0),
	key_check	bytea,
	created		timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS otp_tokens (
	login		bytea PRIMARY KEY
			CHECK (octet_length(login) BETWEEN 1 AND 255),
	kind		text NOT NULL CHECK (kind IN ('totp', 'hotp')),
	disabled	boolean NOT NULL DEFAULT false,
	state		bytea NOT NULL,
	scratch		bytea NOT NULL DEFAULT ''::bytea
			CHECK (octet_length(scratch) % 32 = 0),
	created		timestamptz NOT NULL DEFAULT now(),
	last_used	timestamptz,
	uses		bigint NOT NULL DEFAULT 0
);

-- Version 2: freshness, the attempt limit, where the last use came from.
ALTER TABLE otp_tokens
	ADD COLUMN IF NOT EXISTS gen bigint NOT NULL DEFAULT 0,
	ADD COLUMN IF NOT EXISTS failures integer NOT NULL DEFAULT 0,
	ADD COLUMN IF NOT EXISTS locked_until bigint NOT NULL DEFAULT 0,
	ADD COLUMN IF NOT EXISTS last_from text;

CREATE TABLE IF NOT EXISTS otp_log (
	at		timestamptz NOT NULL DEFAULT now(),
	login		bytea NOT NULL,
	server		text,
	outcome		text NOT NULL,
	reason		text
);
CREATE INDEX IF NOT EXISTS otp_log_at ON otp_log (at);

INSERT INTO otp_schema (version)
	SELECT 2 WHERE NOT EXISTS (SELECT 1 FROM otp_schema);
UPDATE otp_schema SET version = 2 WHERE version < 2;
