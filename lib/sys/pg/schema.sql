-- otp-utils: the PostgreSQL token store, schema version 1.
--
-- otp-store init runs these statements in one transaction; a DBA may run
-- them by hand (psql -1 -f schema.sql) and then `otp-store init` only
-- records the store key's check value.  Every statement can run again.
--
-- A token is one row.  The user name is bytea: a login name of any
-- bytes is stored as it is.  state is the token's state file image
-- (otp-state(5)) without its scratch codes, sealed with
-- ChaCha20-Poly1305 under the store key, the user and kind bound as
-- associated data; scratch is the unused scratch codes' keyed hashes,
-- 32 bytes each.  Nothing in a dump of these tables is a secret.

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

INSERT INTO otp_schema (version)
	SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM otp_schema);
