-- Traffic sessions the person chose to keep (the Traffic screen's "Keep"): every message to and
-- from every server while one ran, secrets already replaced, each body cut as the ring cuts it.
CREATE TABLE traffic_sessions (
    id INTEGER PRIMARY KEY,
    started_ms INTEGER NOT NULL,
    ended_ms INTEGER,
    messages INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    -- Messages left out: the writer fell behind (dropped) or the session reached its bounds.
    dropped INTEGER NOT NULL DEFAULT 0,
    full INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE traffic_kept (
    session INTEGER NOT NULL REFERENCES traffic_sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    server TEXT NOT NULL,
    at_ms REAL NOT NULL,
    -- The traffic screen's entry (JSON); a request's pairing is filled in below when answered.
    entry TEXT NOT NULL,
    body BLOB NOT NULL,
    paired_seq INTEGER,
    latency_ms REAL,
    UNIQUE (session, seq)
);
CREATE TABLE traffic_session_methods (
    session INTEGER NOT NULL REFERENCES traffic_sessions (id) ON DELETE CASCADE,
    method TEXT NOT NULL,
    PRIMARY KEY (session, method)
);
