-- A Suspect's key to its alert checked when the transaction commits, PostgreSQL: the same
-- constraint as sql/011-suspects-deferred.sql (which says why SQLite needs it), so that both
-- dialects accept the same order of writes within a detect. PostgreSQL changes it in place.
ALTER TABLE suspects ALTER CONSTRAINT suspects_alert_id_fkey DEFERRABLE INITIALLY DEFERRED;
