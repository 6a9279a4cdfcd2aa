-- Tasks servers ran for the host (MCP tasks), so the Tasks panel survives a reload. `result` and
-- `error` are JSON, the result cut to a bound by the follower (tasks::MAX_RESULT_BYTES).
CREATE TABLE tasks (
    server         TEXT    NOT NULL,
    task_id        TEXT    NOT NULL,
    tool           TEXT    NOT NULL,
    call_id        TEXT,
    status         TEXT    NOT NULL,
    status_message TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    result         TEXT,
    error          TEXT,
    PRIMARY KEY (server, task_id)
);

CREATE INDEX tasks_by_update ON tasks (updated_at);
