-- Servers trusted before local servers ran in a sandbox keep running as they did (unsandboxed,
-- and shown so) until the user sandboxes them: each name with the definition it ran then.
CREATE TABLE unsandboxed_launches (
    server TEXT PRIMARY KEY,
    digest TEXT NOT NULL
);
INSERT INTO unsandboxed_launches (server, digest) SELECT server, digest FROM server_launches;
