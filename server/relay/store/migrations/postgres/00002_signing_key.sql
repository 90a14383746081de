-- The signing key table (PostgreSQL). Relay refuses to start on PostgreSQL
-- without RELAY_SIGNING_KEYS, so it stays empty there; it exists so that both
-- engines carry the same schema version.
-- +goose Up
CREATE TABLE signing_keys (
    slot       SMALLINT PRIMARY KEY CHECK (slot = 1),
    kid        TEXT NOT NULL,
    key        TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE signing_keys;
