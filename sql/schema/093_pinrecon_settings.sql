-- What the database's times mean (issue 31): the configured zone of the calendar (periods, local dates, the
-- report's times), the pinrecon version that last wrote the file and the schema it applied. One row, set by every
-- command that writes.
-- An analyst's own tool reads it and sets its session so (SET TimeZone = '<timezone>'; docs/DATA.md).
CREATE TABLE IF NOT EXISTS pinrecon_settings (
  id               INTEGER PRIMARY KEY CHECK (id = 1),
  timezone         VARCHAR NOT NULL,       -- IANA zone of the configuration (timezone)
  version          VARCHAR NOT NULL,       -- pinrecon's version that last wrote it (a name with "pin" would be masked)
  updated_at       TIMESTAMPTZ NOT NULL    -- when any of them last changed
);
-- The schema's digest came later (issue 27): a command opening a file whose digest is its own runs no schema script.
ALTER TABLE pinrecon_settings ADD COLUMN IF NOT EXISTS schema_sha256 VARCHAR;  -- digest of sql/schema/ last applied
