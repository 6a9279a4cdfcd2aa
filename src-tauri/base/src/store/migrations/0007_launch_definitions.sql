-- The trusted launch definitions themselves (canonical JSON), by digest: what a changed
-- definition is compared with, field by field, when trust is asked for again.
CREATE TABLE launch_definitions (
    digest     TEXT PRIMARY KEY,
    definition TEXT NOT NULL
);
