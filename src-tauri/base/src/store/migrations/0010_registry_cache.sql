-- The gallery's last listing of each registry, so it opens at once and works offline: the
-- latest version of each server as the registry answered it (a ServerResponse's fields as the
-- gallery keeps them), and when the registry was last read in full or since.
CREATE TABLE registry_listings (
    registry TEXT NOT NULL,
    name TEXT NOT NULL,
    listing TEXT NOT NULL,
    PRIMARY KEY (registry, name)
);
CREATE TABLE registry_syncs (
    registry TEXT PRIMARY KEY,
    synced_at TEXT NOT NULL
);
