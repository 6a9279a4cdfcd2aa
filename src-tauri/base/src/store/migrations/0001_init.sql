-- Audit log: one row per step of a flow (a request, what was shown, the decision, what went back).
-- Rows are only ever appended, each in its own transaction, so a killed app loses nothing it wrote.
CREATE TABLE audit (
    id          INTEGER PRIMARY KEY,
    flow        TEXT    NOT NULL,
    at_ms       INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    step        TEXT    NOT NULL,
    server      TEXT    NOT NULL,
    subject     TEXT,
    actor       TEXT    NOT NULL,
    decision    TEXT,
    detail      TEXT    NOT NULL,
    duration_ms INTEGER
);
CREATE INDEX audit_flow ON audit (flow);
CREATE INDEX audit_at ON audit (at_ms);

-- Standing approval rules. `tool` is '' for a rule about the whole server.
CREATE TABLE policies (
    server     TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    tool       TEXT    NOT NULL DEFAULT '',
    rule       TEXT    NOT NULL,
    changed_ms INTEGER NOT NULL,
    PRIMARY KEY (server, kind, tool)
);

-- Pinned definitions: the canonical hash of each approved tool and of the server's instructions.
CREATE TABLE pins (
    server     TEXT    NOT NULL,
    item       TEXT    NOT NULL,
    digest     TEXT    NOT NULL,
    definition TEXT    NOT NULL,
    pinned_ms  INTEGER NOT NULL,
    PRIMARY KEY (server, item)
);

-- Sampling usage per server and UTC day, for the daily token budget.
CREATE TABLE sampling_usage (
    server TEXT    NOT NULL,
    day    INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (server, day)
);
