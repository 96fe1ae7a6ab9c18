-- The cron prunes expired cabinet rows in bounded batches (storage/cabinet.ts,
-- purgeExpiredCabinetRows); these indexes let each delete find its oldest rows without a scan.
CREATE INDEX cabinet_challenges_expires ON cabinet_challenges (expires_at);
CREATE INDEX cabinet_sessions_expires ON cabinet_sessions (expires_at);
CREATE INDEX cabinet_signin_failures_window ON cabinet_signin_failures (window_start);
