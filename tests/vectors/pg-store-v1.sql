-- A store of schema version 1 as otp-utils 0.1.0 made it (otp-store init,
-- copy of a TOTP state file with one scratch code 12345678 to "old" and
-- "dis", "dis" disabled), under the store key in pg-store-v1.key: what
-- pg-store.bats upgrades with otp-store init.  Test data, no real secret.
CREATE TABLE otp_schema (
	version		integer NOT NULL CHECK (version > 0),
	key_check	bytea,
	created		timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE otp_tokens (
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
INSERT INTO otp_schema VALUES (1, '\x3c58dc69a1ae698348329f2adeb60a86b89c90d9477ba7c7312286f18f590074', '2026-12-06 22:56:23.757138+00');
INSERT INTO otp_tokens VALUES ('\x646973', 'totp', true, '\x012311c1f4c10f8057ea4e199bd8dcb2cbe6217f76794caff04f80e891f7a530c49b89108d8f3bf23ff86e4dc3b5d594310e453296dd7fbdc57d4fcdfd03168416aafb9c1c60b32632822f62a74dd65518fec7b993a693ebf6eac58e', '\x17346e930b182e35c9d21c17f47c0154185edae09141285abf3a2ea7d457d415', '2026-12-06 22:56:23.868547+00', NULL, 0);
INSERT INTO otp_tokens VALUES ('\x6f6c64', 'totp', false, '\x01b5970da61bcd89bf909809f6e280492694424c8772e725f04671703174aca5cc190ca7e45d7000863829a82639cb023801a13f7ae6901c613fcfb6dfa4a41e4fed8e8e0078af71b07900e6a755b87880212a362fdcf8d82ae81f17', '\x06537b2821655545c31e4ea87ba27da83b7ed9284154573bbe37e6c0d20353b2', '2026-12-06 22:56:23.819184+00', NULL, 0);
