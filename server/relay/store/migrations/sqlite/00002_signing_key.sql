-- The signing key Relay generates when RELAY_SIGNING_KEYS is not set (SQLite),
-- so that options and contexts stay valid across restarts. One row: slot 1.
-- +goose Up
CREATE TABLE signing_keys (
    slot       INTEGER PRIMARY KEY CHECK (slot = 1),
    kid        TEXT NOT NULL,
    key        TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- +goose Down
DROP TABLE signing_keys;
