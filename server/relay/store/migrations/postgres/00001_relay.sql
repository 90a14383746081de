-- Relay's journeys and their retained signals (PostgreSQL).
-- Times are Unix microseconds (BIGINT) so both engines compare them the same way.
-- +goose Up
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    actor      TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX sessions_created_at ON sessions (created_at);

CREATE TABLE journeys (
    id         TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    actor      TEXT NOT NULL,
    context    TEXT NOT NULL DEFAULT '{}',
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX journeys_session_id ON journeys (session_id);
CREATE INDEX journeys_updated_at ON journeys (updated_at);

CREATE TABLE intents (
    id         TEXT PRIMARY KEY,
    journey_id TEXT NOT NULL REFERENCES journeys (id) ON DELETE CASCADE,
    tool       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX intents_journey_id ON intents (journey_id);
CREATE INDEX intents_created_at ON intents (created_at);

CREATE TABLE connector_reports (
    session_id  TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    connectors  TEXT NOT NULL,
    reported_at BIGINT NOT NULL
);
CREATE INDEX connector_reports_reported_at ON connector_reports (reported_at);

CREATE TABLE events (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    journey_id    TEXT NOT NULL REFERENCES journeys (id) ON DELETE CASCADE,
    intent_id     TEXT NOT NULL REFERENCES intents (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('request', 'selection', 'handoff', 'outcome')),
    request_id    TEXT NOT NULL,
    tool          TEXT NOT NULL DEFAULT '',
    provider      TEXT NOT NULL DEFAULT '',
    option_id     TEXT NOT NULL DEFAULT '',
    request_scope TEXT NOT NULL DEFAULT '',
    status        TEXT NOT NULL DEFAULT '',
    amount_minor  BIGINT,
    currency      TEXT NOT NULL DEFAULT '',
    occurred_at   BIGINT NOT NULL
);
CREATE INDEX events_journey_intent ON events (journey_id, intent_id, id);
CREATE INDEX events_intent_id ON events (intent_id);
CREATE INDEX events_occurred_at ON events (occurred_at);

-- +goose Down
DROP TABLE events;
DROP TABLE connector_reports;
DROP TABLE intents;
DROP TABLE journeys;
DROP TABLE sessions;
