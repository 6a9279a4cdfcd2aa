-- The user's LLM providers (keys live in the OS keychain, never here) and the models they rated.
CREATE TABLE providers (
    id         TEXT    PRIMARY KEY,
    kind       TEXT    NOT NULL,
    base_url   TEXT,
    position   INTEGER NOT NULL,
    changed_ms INTEGER NOT NULL
);

CREATE TABLE provider_models (
    provider     TEXT    NOT NULL REFERENCES providers (id) ON DELETE CASCADE,
    model        TEXT    NOT NULL,
    cost         REAL    NOT NULL,
    speed        REAL    NOT NULL,
    intelligence REAL    NOT NULL,
    position     INTEGER NOT NULL,
    PRIMARY KEY (provider, model)
);
