-- Where the extra instructions went (§9.7), PostgreSQL: a Regression's profile comparison as
-- JSON text, NULL when none was made. sql/008-profiles.sql is the SQLite text.
ALTER TABLE regressions ADD COLUMN profile text COLLATE "C";
