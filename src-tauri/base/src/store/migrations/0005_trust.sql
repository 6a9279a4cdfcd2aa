-- Launch definitions the user trusted, by the digest of their canonical form.
CREATE TABLE trusted_launches (
    digest     TEXT    PRIMARY KEY,
    trusted_at INTEGER NOT NULL
);

-- The trusted definition each server name last ran: its rules and pins were made for it.
CREATE TABLE server_launches (
    server TEXT PRIMARY KEY,
    digest TEXT NOT NULL
);
