package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Transition is how often one command template followed another in a scope.
type Transition struct {
	Prev, Next string
	Count      int64
	Last       time.Time
	// LastCmd is the last command of template Next in the scope, "" when
	// none is known; LastArgs the words of its slots, and ArgsUses how many
	// times in a row they were used.
	LastCmd  string
	LastArgs []string
	ArgsUses int64
}

// CommandScore is a command template's decayed frequency in a scope.
type CommandScore struct {
	Template string
	// Score is the decayed count at the time asked: each run counts 1,
	// halving every half-life since.
	Score float64
	Count int64
	Last  time.Time
	// LastCmd is the last command of the template, LastArgs the words of
	// its slots, ArgsUses how many times in a row they were used.
	LastCmd  string
	LastArgs []string
	ArgsUses int64
}

// Task is a project's task, such as a Makefile target or a package.json
// script.
type Task struct {
	// Source is where it was found: "Makefile", "package.json", "Taskfile",
	// "justfile".
	Source string `json:"source"`
	// Name is the task's name, Command the command that runs it.
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Transitions are the templates that followed prev in scope ("" is the
// global scope, else a repository's key), the most frequent first.
func (s *Store) Transitions(ctx context.Context, scope, prev string, limit int) ([]Transition, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT t.next_template, t.count, t.last_ms, coalesce(c.last_cmd, ''), coalesce(c.last_args, '[]'), coalesce(c.args_uses, 0)
		FROM transitions t LEFT JOIN command_scores c ON c.scope = t.scope AND c.template = t.next_template
		WHERE t.scope = ? AND t.prev_template = ? ORDER BY t.count DESC, t.last_ms DESC LIMIT ?`, scope, prev, limit)
	if err != nil {
		return nil, fmt.Errorf("transitions: %w", err)
	}
	defer rows.Close()
	var ts []Transition
	for rows.Next() {
		t := Transition{Prev: prev}
		var at int64
		var args string
		if err := rows.Scan(&t.Next, &t.Count, &at, &t.LastCmd, &args, &t.ArgsUses); err != nil {
			return nil, fmt.Errorf("transitions: %w", err)
		}
		t.Last, t.LastArgs = time.UnixMilli(at), decodeArgs(args)
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// AllTransitions are the transitions of scope, the most frequent first.
func (s *Store) AllTransitions(ctx context.Context, scope string, limit int) ([]Transition, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT prev_template, next_template, count, last_ms FROM transitions
		WHERE scope = ? ORDER BY count DESC, last_ms DESC LIMIT ?`, scope, limit)
	if err != nil {
		return nil, fmt.Errorf("transitions: %w", err)
	}
	defer rows.Close()
	var ts []Transition
	for rows.Next() {
		var t Transition
		var at int64
		if err := rows.Scan(&t.Prev, &t.Next, &t.Count, &at); err != nil {
			return nil, fmt.Errorf("transitions: %w", err)
		}
		t.Last = time.UnixMilli(at)
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// TopCommands are the templates of scope with the highest decayed scores at
// now, the highest first.
func (s *Store) TopCommands(ctx context.Context, scope string, now time.Time, limit int) ([]CommandScore, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT template, rank, count, last_ms, last_cmd, last_args, args_uses FROM command_scores
		WHERE scope = ? ORDER BY rank DESC LIMIT ?`, scope, limit)
	if err != nil {
		return nil, fmt.Errorf("command scores: %w", err)
	}
	defer rows.Close()
	var cs []CommandScore
	at := now.UnixMilli()
	for rows.Next() {
		var c CommandScore
		var rank float64
		var last int64
		var args string
		if err := rows.Scan(&c.Template, &rank, &c.Count, &last, &c.LastCmd, &args, &c.ArgsUses); err != nil {
			return nil, fmt.Errorf("command scores: %w", err)
		}
		c.Score, c.Last, c.LastArgs = s.decayed(rank, at), time.UnixMilli(last), decodeArgs(args)
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// LastCommand is the template of the last command of session, "" when it
// ran none.
func (s *Store) LastCommand(ctx context.Context, session string) (string, error) {
	var t string
	err := s.db.QueryRowContext(ctx, `SELECT template FROM command_events WHERE session_id = ? ORDER BY ts_ms DESC, id DESC LIMIT 1`, session).Scan(&t)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("last command of session %q: %w", session, err)
	}
	return t, nil
}

// Tasks are the tasks known of the repository repoKey, by source and name.
func (s *Store) Tasks(ctx context.Context, repoKey string) ([]Task, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, name, command FROM project_tasks WHERE repo_key = ? ORDER BY source, name`, repoKey)
	if err != nil {
		return nil, fmt.Errorf("project tasks: %w", err)
	}
	defer rows.Close()
	var ts []Task
	for rows.Next() {
		var t Task
		if err := rows.Scan(&t.Source, &t.Name, &t.Command); err != nil {
			return nil, fmt.Errorf("project tasks: %w", err)
		}
		ts = append(ts, t)
	}
	return ts, rows.Err()
}

// SetTasks replaces the tasks of the repository repoKey with tasks, found at
// now.
func (s *Store) SetTasks(ctx context.Context, repoKey string, tasks []Task, now time.Time) error {
	return s.write(ctx, leavesEvents, func(a *applyTx) error {
		if err := a.exec(ctx, `DELETE FROM project_tasks WHERE repo_key = ?`, repoKey); err != nil {
			return fmt.Errorf("project tasks: %w", err)
		}
		for _, t := range tasks {
			if err := a.exec(ctx, `INSERT INTO project_tasks(repo_key, source, name, command, updated_ms) VALUES (?, ?, ?, ?, ?)
				ON CONFLICT(repo_key, source, name) DO UPDATE SET command = excluded.command, updated_ms = excluded.updated_ms`,
				repoKey, t.Source, t.Name, t.Command, now.UnixMilli()); err != nil {
				return fmt.Errorf("project tasks: %w", err)
			}
		}
		return nil
	})
}

// Counts are the rows of each table, for the daemon's health.
type Counts struct {
	Sessions    int64 `json:"sessions"`
	Events      int64 `json:"events"`
	Transitions int64 `json:"transitions"`
	Scores      int64 `json:"scores"`
	Tasks       int64 `json:"tasks"`
}

// Count counts the rows of each table.
func (s *Store) Count(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM sessions), (SELECT count(*) FROM command_events), (SELECT count(*) FROM transitions),
		(SELECT count(*) FROM command_scores), (SELECT count(*) FROM project_tasks)`).
		Scan(&c.Sessions, &c.Events, &c.Transitions, &c.Scores, &c.Tasks)
	if err != nil {
		return c, fmt.Errorf("counts: %w", err)
	}
	return c, nil
}

// Recent is how a template was used among the latest commands of a scope.
type Recent struct {
	// Count is how many of them it was.
	Count int
	// Args are the distinct args its slots were filled with, the latest
	// first; none for a template with no slot.
	Args [][]string
}

// RecentUses are the templates among the last n commands run in the
// repository repoKey ("" is outside any repository), with how often each
// ran and the distinct args it was used with, at most perTemplate of them.
// The answer is the one of the query over the command events, from memory
// when the repository's latest commands are kept there (see recentCache).
func (s *Store) RecentUses(ctx context.Context, repoKey string, n, perTemplate int) (map[string]*Recent, error) {
	if out, ok := s.recent.uses(repoKey, n, perTemplate); ok {
		return out, nil
	}
	epoch := s.recent.begin()
	rows, err := s.recentRows(ctx, repoKey, n)
	if err != nil {
		return nil, err
	}
	s.recent.fill(repoKey, n, rows, epoch)
	return usesOf(rows, perTemplate), nil
}

// recentRows are the last n command events of repoKey, newest first.
func (s *Store) recentRows(ctx context.Context, repoKey string, n int) ([]recentRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT template, args, ts_ms, id FROM command_events WHERE repo_key = ? ORDER BY ts_ms DESC, id DESC LIMIT ?`, repoKey, n)
	if err != nil {
		return nil, fmt.Errorf("recent commands: %w", err)
	}
	defer rows.Close()
	var out []recentRow
	for rows.Next() {
		var r recentRow
		if err := rows.Scan(&r.template, &r.args, &r.at, &r.id); err != nil {
			return nil, fmt.Errorf("recent commands: %w", err)
		}
		r.decoded = decodeArgs(r.args)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent commands: %w", err)
	}
	return out, nil
}
