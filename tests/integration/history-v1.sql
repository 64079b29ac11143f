-- history-v1.sql: a run history store as an sbench of schema version 1
-- left it (history/history_store.c's schema_v1, docs/history.md), with one
-- run, for tests/integration/history.sh's migration check.
CREATE TABLE sbench_history_meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO sbench_history_meta VALUES ('schema_version', '1');
CREATE TABLE sbench_runs (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, session TEXT NOT NULL,
 source TEXT NOT NULL, time DOUBLE PRECISION NOT NULL, cmdline TEXT, workload TEXT,
 options_digest TEXT, driver TEXT, host TEXT, port INTEGER, dbname TEXT, target TEXT,
 point_index INTEGER, repeat_index INTEGER, labels TEXT,
 tps DOUBLE PRECISION, qps DOUBLE PRECISION, errors DOUBLE PRECISION,
 reconnects DOUBLE PRECISION, transactions DOUBLE PRECISION, seconds DOUBLE PRECISION,
 lat_avg_ms DOUBLE PRECISION, lat_p50_ms DOUBLE PRECISION, lat_p95_ms DOUBLE PRECISION,
 lat_p99_ms DOUBLE PRECISION, lat_max_ms DOUBLE PRECISION, nopm DOUBLE PRECISION,
 server_version TEXT, sbench_version TEXT, driver_version TEXT, report TEXT);
CREATE TABLE sbench_run_labels (run BIGINT NOT NULL REFERENCES sbench_runs(id) ON DELETE CASCADE,
 key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run, key));
CREATE INDEX sbench_runs_time ON sbench_runs (time);
CREATE INDEX sbench_runs_workload ON sbench_runs (workload, options_digest);
CREATE INDEX sbench_runs_session ON sbench_runs (session);
INSERT INTO sbench_runs (run_id, session, source, time, cmdline, workload, options_digest, driver, host,
 port, dbname, target, point_index, repeat_index, labels, tps, qps, errors, reconnects, transactions,
 seconds, lat_avg_ms, lat_p50_ms, lat_p95_ms, lat_p99_ms, lat_max_ms, nopm, server_version,
 sbench_version, driver_version, report)
VALUES ('old-run-1', 'old-run-1', 'run', 1700000000, 'sbench oltp_read_only run', 'oltp_read_only',
 '0123456789abcdef', 'null', '', 0, '', '', -1, -1, 'build=old', 1234.5, 24690, 0, 0, 12345, 10,
 0.8, 0.7, 1.5, 2.5, 9.5, NULL, 'null', '0.1.0', 'null 2', NULL);
INSERT INTO sbench_run_labels VALUES (1, 'build', 'old');
