// Package learned keeps the answers people gave to the questions of runs, in
// a SQLite file of its own in the user's state folder, so that a run needs no
// daemon for it. A question is stored by its template (its text with numbers,
// paths, hashes and URLs as slots), with the playbook, the program and the
// repository it was asked in; no answer to a password-like question, nor one
// that shows masked, is ever stored. From them it suggests the answers people
// gave most to the same question, with their share as the confidence, answers
// a question itself where the playbook allows it, and proposes rules (see
// docs/learned-answers.md).
package learned

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/clai-sh/clai/internal/sqlitefile"
	"github.com/clai-sh/clai/internal/statedir"
)

// schemaVersion is the version of the database's tables this code writes.
const schemaVersion = 2

// FileName is the database's name in the state folder.
const FileName = "learned.db"

// DefaultPath returns where the learned answers are kept:
// $XDG_STATE_HOME/clai/learned.db, else ~/.local/state/clai/learned.db.
func DefaultPath(getenv func(string) string) (string, error) {
	dir, err := statedir.Dir(getenv)
	if err != nil {
		return "", fmt.Errorf("learned answers: %w; set XDG_STATE_HOME", err)
	}
	return filepath.Join(dir, FileName), nil
}

// Store is the database of learned answers. Several runs may use one at
// once: it is in WAL mode, and a writer waits for another's write.
type Store struct {
	db *sql.DB
}

// Open opens the database at path, making it and its folder (0700) when
// missing, and brings its tables to this version. A database written by a
// newer clai is refused.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := sqlitefile.Open(path, sqlitefile.Options{})
	if err != nil {
		return nil, fmt.Errorf("learned answers: %w", err)
	}
	db.SetMaxOpenConns(1)
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("learned answers: %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// migrations bring the tables from the version of their index to the next.
var migrations = []string{
	`CREATE TABLE answers (
		id INTEGER PRIMARY KEY,
		at_ms INTEGER NOT NULL,
		playbook TEXT NOT NULL,
		program TEXT NOT NULL,
		repo TEXT NOT NULL,
		template TEXT NOT NULL,
		question TEXT NOT NULL,
		kind TEXT NOT NULL,
		answer TEXT NOT NULL,
		channel TEXT NOT NULL
	);
	CREATE INDEX answers_by_question ON answers (playbook, program, template);`,
	// The labels of the question's options, as a JSON list, for the menu a
	// proposed choose: rule's test shows.
	`ALTER TABLE answers ADD COLUMN options TEXT NOT NULL DEFAULT '[]';`,
}

// ErrNewer is the error of a database a newer clai wrote.
var ErrNewer = sqlitefile.ErrNewer

// migrate brings the tables to schemaVersion (see sqlitefile.Migrate: runs
// opening a new database at once make its tables once).
func (s *Store) migrate(ctx context.Context) error {
	return sqlitefile.Migrate(ctx, s.db, migrations[:schemaVersion])
}

// The kinds of an answer.
const (
	// KindText is a line typed.
	KindText = "text"
	// KindChoice is one of a [y/N]-style question's choices, typed as a line.
	KindChoice = "choice"
	// KindOption is an entry of a menu, chosen by its label.
	KindOption = "option"
)

// Answer is a person's answer to a question, as it is stored.
type Answer struct {
	// Question is the question's text as it was asked (secrets masked);
	// Template the same with slots.
	Question, Template string
	// Kind is KindText, KindChoice or KindOption; Text the line or the
	// label.
	Kind, Text string
	// Options are the labels of the question's options.
	Options []string
	// Playbook, Program and Repo say where it was asked; Channel how it was
	// answered.
	Playbook, Program, Repo, Channel string
	At                               time.Time
}

// MaxPerQuestion is how many answers to one question are kept: the latest.
const MaxPerQuestion = 1000

// Record stores a, and forgets the answers to its question beyond the
// latest MaxPerQuestion.
func (s *Store) Record(ctx context.Context, a Answer) error {
	options, err := json.Marshal(append([]string{}, a.Options...))
	if err != nil {
		return fmt.Errorf("learned answers: record: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("learned answers: record: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO answers (at_ms, playbook, program, repo, template, question, options, kind, answer, channel)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.At.UnixMilli(), a.Playbook, a.Program, a.Repo, a.Template, a.Question, string(options), a.Kind, a.Text, a.Channel)
	if err == nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM answers WHERE playbook = ?1 AND program = ?2 AND template = ?3 AND id NOT IN
			(SELECT id FROM answers WHERE playbook = ?1 AND program = ?2 AND template = ?3 ORDER BY id DESC LIMIT ?4)`,
			a.Playbook, a.Program, a.Template, MaxPerQuestion)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("learned answers: record: %w", err)
	}
	return nil
}

// Key names a question: its template, asked by a playbook's program.
type Key struct {
	Playbook, Program, Template string
}

// Given is an answer people gave to a question, how often, and its share of
// all the answers to it.
type Given struct {
	Kind, Text string
	Count      int
	Share      float64
}

// Answers returns the answers given to the question k, the most given first
// (the latest first among equals), at most limit.
func (s *Store) Answers(ctx context.Context, k Key, limit int) ([]Given, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT kind, answer, COUNT(*) AS n, SUM(COUNT(*)) OVER () AS total
		FROM answers WHERE playbook = ? AND program = ? AND template = ?
		GROUP BY kind, answer ORDER BY n DESC, MAX(at_ms) DESC, answer LIMIT ?`,
		k.Playbook, k.Program, k.Template, limit)
	if err != nil {
		return nil, fmt.Errorf("learned answers: %w", err)
	}
	defer rows.Close()
	var out []Given
	for rows.Next() {
		var g Given
		var total int
		if err := rows.Scan(&g.Kind, &g.Text, &g.Count, &total); err != nil {
			return nil, fmt.Errorf("learned answers: %w", err)
		}
		g.Share = float64(g.Count) / float64(total)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("learned answers: %w", err)
	}
	return out, nil
}

// Repeated is a question of a playbook and the answer people gave most to
// it.
type Repeated struct {
	// Template is the question with slots; Example the latest text it was
	// asked with, and Options the labels of its options then.
	Template, Example string
	Options           []string
	Given
}

// Repeated returns, for each question of playbook, the answer people gave
// most to it (the latest first among equals), when they gave it at least
// minCount times; ordered by template.
func (s *Store) Repeated(ctx context.Context, playbook string, minCount int) ([]Repeated, error) {
	rows, err := s.db.QueryContext(ctx, `WITH counted AS (
			SELECT template, kind, answer, COUNT(*) AS n, MAX(id) AS latest,
				SUM(COUNT(*)) OVER (PARTITION BY template) AS total,
				ROW_NUMBER() OVER (PARTITION BY template ORDER BY COUNT(*) DESC, MAX(id) DESC) AS rank
			FROM answers WHERE playbook = ? GROUP BY template, kind, answer)
		SELECT c.template, a.question, a.options, c.kind, c.answer, c.n, c.total
		FROM counted c JOIN answers a ON a.id = c.latest
		WHERE c.rank = 1 AND c.n >= ? ORDER BY c.template`, playbook, minCount)
	if err != nil {
		return nil, fmt.Errorf("learned answers: %w", err)
	}
	defer rows.Close()
	var out []Repeated
	for rows.Next() {
		var r Repeated
		var total int
		var options string
		if err := rows.Scan(&r.Template, &r.Example, &options, &r.Kind, &r.Text, &r.Count, &total); err != nil {
			return nil, fmt.Errorf("learned answers: %w", err)
		}
		if err := json.Unmarshal([]byte(options), &r.Options); err != nil {
			return nil, fmt.Errorf("learned answers: the options of %q: %w", r.Example, err)
		}
		r.Share = float64(r.Count) / float64(total)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("learned answers: %w", err)
	}
	return out, nil
}

// Forget deletes what was learned from the answers to playbook ("": every
// playbook's), and returns how many answers it deleted. Nothing of them is
// left in the file: secure_delete overwrites them, and the write-ahead log
// that still holds them is checkpointed and truncated (see
// sqlitefile.Scrub).
func (s *Store) Forget(ctx context.Context, playbook string) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM answers WHERE ? = '' OR playbook = ?`, playbook, playbook)
	if err != nil {
		return 0, fmt.Errorf("learned answers: forget: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return n, err
	}
	if _, err := sqlitefile.Scrub(ctx, s.db); err != nil {
		return n, fmt.Errorf("learned answers: forget: %w", err)
	}
	return n, nil
}
