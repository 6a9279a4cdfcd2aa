-- What the model is offered, as the person shapes it: a tool switched off for the model (it stays
-- callable by the person), what a server's new tools start as, and named sets of tools across
-- servers a conversation may be limited to.
CREATE TABLE tool_switches (
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    PRIMARY KEY (server, tool)
);
CREATE TABLE new_tool_defaults (
    server TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL
);
CREATE TABLE tool_sets (
    name TEXT PRIMARY KEY
);
CREATE TABLE tool_set_members (
    set_name TEXT NOT NULL REFERENCES tool_sets (name) ON DELETE CASCADE,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    PRIMARY KEY (set_name, server, tool)
);
-- The sets a conversation offers (a JSON array of names); NULL: every tool switched on.
ALTER TABLE conversations ADD COLUMN tool_sets TEXT;
