-- Where the extra instructions went (§9.7): a Regression keeps the profile comparison made
-- when bisection pinned it, the JSON `bisect --json` shows under "profile" ({benchmark,
-- metric, fixed_work, base_total, head_total, functions}); NULL when none was made (no
-- valgrind, or stored before this migration).
ALTER TABLE regressions ADD COLUMN profile TEXT;
