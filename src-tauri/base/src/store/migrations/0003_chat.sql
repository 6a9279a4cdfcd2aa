-- Chat conversations and their messages (MCP sampling content blocks as JSON).
CREATE TABLE conversations (
    id         TEXT    PRIMARY KEY,
    title      TEXT    NOT NULL,
    provider   TEXT    NOT NULL,
    model      TEXT    NOT NULL,
    updated_ms INTEGER NOT NULL
);

CREATE TABLE chat_messages (
    id           INTEGER PRIMARY KEY,
    conversation TEXT    NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role         TEXT    NOT NULL,
    content      TEXT    NOT NULL,
    at_ms        INTEGER NOT NULL
);
CREATE INDEX chat_messages_conversation ON chat_messages (conversation, id);
