package store

// migrations are the schema's steps, forward only: migration i brings the
// database to version i+1. A step, once released, never changes; a change of
// the schema is a new step at the end.
var migrations = []string{
	// 1: the first schema.
	`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		shell      TEXT NOT NULL DEFAULT '',
		pid        INTEGER NOT NULL DEFAULT 0,
		started_ms INTEGER NOT NULL,
		ended_ms   INTEGER,
		last_ms    INTEGER NOT NULL
	);
	CREATE INDEX sessions_last ON sessions(last_ms);

	CREATE TABLE command_events (
		id          INTEGER PRIMARY KEY,
		session_id  TEXT NOT NULL,
		ts_ms       INTEGER NOT NULL,
		cwd         TEXT NOT NULL,
		repo_key    TEXT NOT NULL,
		cmd         TEXT NOT NULL,
		template    TEXT NOT NULL,
		args        TEXT NOT NULL,
		tool        TEXT NOT NULL,
		exit_code   INTEGER NOT NULL,
		duration_ms INTEGER NOT NULL
	);
	CREATE INDEX command_events_ts ON command_events(ts_ms);
	CREATE INDEX command_events_session ON command_events(session_id, ts_ms);
	CREATE INDEX command_events_repo ON command_events(repo_key, ts_ms);

	CREATE TABLE transitions (
		scope         TEXT NOT NULL,
		prev_template TEXT NOT NULL,
		next_template TEXT NOT NULL,
		count         INTEGER NOT NULL,
		last_ms       INTEGER NOT NULL,
		PRIMARY KEY (scope, prev_template, next_template)
	) WITHOUT ROWID;
	CREATE INDEX transitions_last ON transitions(last_ms);

	CREATE TABLE command_scores (
		scope    TEXT NOT NULL,
		template TEXT NOT NULL,
		rank     REAL NOT NULL,
		count    INTEGER NOT NULL,
		last_ms  INTEGER NOT NULL,
		last_cmd  TEXT NOT NULL,
		last_args TEXT NOT NULL,
		args_uses INTEGER NOT NULL,
		PRIMARY KEY (scope, template)
	) WITHOUT ROWID;
	CREATE INDEX command_scores_rank ON command_scores(scope, rank DESC);
	CREATE INDEX command_scores_last ON command_scores(last_ms);

	CREATE TABLE project_tasks (
		repo_key   TEXT NOT NULL,
		source     TEXT NOT NULL,
		name       TEXT NOT NULL,
		command    TEXT NOT NULL,
		updated_ms INTEGER NOT NULL,
		PRIMARY KEY (repo_key, source, name)
	) WITHOUT ROWID;
	CREATE INDEX project_tasks_updated ON project_tasks(updated_ms);`,
	// 2: the branch a command ran on and whether the work tree was dirty
	// when it ended; '' and NULL when unknown.
	`ALTER TABLE command_events ADD COLUMN branch TEXT NOT NULL DEFAULT '';
	ALTER TABLE command_events ADD COLUMN dirty INTEGER;`,
}

// SchemaVersion is the version of the schema this build knows: a database of
// a newer one is refused.
func SchemaVersion() int { return len(migrations) }
