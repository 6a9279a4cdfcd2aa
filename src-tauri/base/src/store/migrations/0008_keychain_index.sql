-- The names (never the values) of the keychain entries Switchboard wrote, so that a lookup that
-- usually finds nothing (a stored sign-in, a provider key) does not open the keychain: a locked
-- keyring would ask to be unlocked, and a machine without one would fail a server that needs no
-- secret at all.
CREATE TABLE keychain_entries (
    name   TEXT    PRIMARY KEY,
    -- 1: written by Switchboard; 0: looked up and found absent (kept only while the index is
    -- incomplete).
    stored INTEGER NOT NULL
);

-- One row: whether every entry Switchboard wrote is named above. A database in use before the
-- index existed may have entries written earlier; those are then looked up once each.
CREATE TABLE keychain_index (
    complete INTEGER NOT NULL
);

INSERT INTO keychain_index (complete) SELECT
    NOT EXISTS (SELECT 1 FROM audit)
    AND NOT EXISTS (SELECT 1 FROM providers)
    AND NOT EXISTS (SELECT 1 FROM trusted_launches)
    AND NOT EXISTS (SELECT 1 FROM conversations);
