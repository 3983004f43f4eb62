package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Kind tells what an event is.
type Kind int

// The kinds of events.
const (
	// Command is a command a shell ran.
	Command Kind = iota
	// SessionStart is a shell that started.
	SessionStart
	// SessionEnd is a shell that ended.
	SessionEnd
)

// Event is what a shell told of, understood: for a command, its template and
// the repository it ran in.
type Event struct {
	Kind    Kind
	Session string
	Shell   string
	PID     int
	At      time.Time
	Cwd     string
	// RepoKey names the repository the command ran in, "" outside one.
	RepoKey string
	Cmd     string
	// Template is the command with its variable parts made slots, Args the
	// words the slots stand for, and Tool the program it runs.
	Template string
	Args     []string
	Tool     string
	Exit     int
	// Duration is how long the command ran, negative when unknown.
	Duration time.Duration
	// Tree is the state of the repository's work tree when the command
	// ended, when it is known.
	Tree *TreeState
}

// TreeState is what the store keeps of a work tree: its branch ("" on a
// detached HEAD) and whether a file differed from the last commit.
type TreeState struct {
	Branch string
	Dirty  bool
}

// globalScope is the scope of what is learnt across all repositories.
const globalScope = ""

// last is a command as the one before or after another: its template, its
// time and, when known, its repository.
type last struct {
	template string
	at       int64
	repo     string
}

// applyTx is a write transaction with the statements events need.
type applyTx struct {
	s  *Store
	tx *sql.Tx
	st map[string]*sql.Stmt
	// added are the command events inserted, by repository, in a write
	// that addsEvents; nil in any other.
	added map[string][]recentRow
}

// eventsWrite is what a write does to the command events, and so to the
// recent commands the store keeps in memory (see recentCache).
type eventsWrite int

const (
	// rewritesEvents may delete or change command events, or add ones the
	// write does not tell of: the recent commands kept are dropped.
	rewritesEvents eventsWrite = iota
	// addsEvents only adds command events, each by insertEvent: they are
	// put in their place among the recent commands kept once committed.
	addsEvents
	// leavesEvents writes no command event.
	leavesEvents
)

// stmt prepares q once in the transaction.
func (a *applyTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := a.st[q]; ok {
		return st, nil
	}
	st, err := a.tx.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	a.st[q] = st
	return st, nil
}

// exec runs q with args.
func (a *applyTx) exec(ctx context.Context, q string, args ...any) error {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// insert runs q with args, and returns the rowid of the row it inserted.
func (a *applyTx) insert(ctx context.Context, q string, args ...any) (int64, error) {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// Apply records events in one transaction: the sessions, the commands, and
// what they teach (transitions and scores). Events are taken in order.
func (s *Store) Apply(ctx context.Context, events []Event) error {
	return s.write(ctx, addsEvents, func(a *applyTx) error {
		for i := range events {
			if err := a.apply(ctx, &events[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// write runs f in a write transaction, which does w to the command events;
// once it is over, the recent commands kept in memory are made to agree.
func (s *Store) write(ctx context.Context, w eventsWrite, f func(*applyTx) error) (err error) {
	a := &applyTx{s: s, st: map[string]*sql.Stmt{}}
	if w == addsEvents {
		a.added = map[string][]recentRow{}
	}
	defer func() { s.wrote(w, a, err) }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("database %s: %w", s.path, err)
	}
	defer func() { _ = tx.Rollback() }()
	a.tx = tx
	if err := f(a); err != nil {
		return fmt.Errorf("database %s: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("database %s: commit: %w", s.path, err)
	}
	return nil
}

func (a *applyTx) apply(ctx context.Context, e *Event) error {
	at := e.At.UnixMilli()
	if err := a.exec(ctx, `INSERT INTO sessions(id, shell, pid, started_ms, last_ms) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET
			shell = CASE excluded.shell WHEN '' THEN shell ELSE excluded.shell END,
			pid = CASE excluded.pid WHEN 0 THEN pid ELSE excluded.pid END,
			started_ms = min(started_ms, excluded.started_ms),
			last_ms = max(last_ms, excluded.last_ms)`,
		e.Session, e.Shell, e.PID, at, at); err != nil {
		return fmt.Errorf("session %q: %w", e.Session, err)
	}
	switch e.Kind {
	case SessionEnd:
		if err := a.exec(ctx, `UPDATE sessions SET ended_ms = ? WHERE id = ?`, at, e.Session); err != nil {
			return fmt.Errorf("session %q: %w", e.Session, err)
		}
	case Command:
		return a.command(ctx, e, at)
	}
	return nil
}

// command records a command and learns from it. A command whose event comes
// late, after the next command of its session was learnt from, is put back
// in its place: the transition that next command took from the one before
// now comes from this one.
func (a *applyTx) command(ctx context.Context, e *Event, at int64) error {
	prev, ok, err := a.previous(ctx, e, at)
	if err != nil {
		return err
	}
	next, late, err := a.following(ctx, e, at)
	if err != nil {
		return err
	}
	if err := a.insertEvent(ctx, e, at); err != nil {
		return err
	}
	for _, scope := range scopes(e.RepoKey) {
		if ok {
			if err := a.exec(ctx, upsertTransition, scope, prev.template, e.Template, 1, at); err != nil {
				return fmt.Errorf("transition: %w", err)
			}
		}
		if err := a.score(ctx, scope, e, at); err != nil {
			return err
		}
	}
	if late {
		return a.splice(ctx, prev, ok, e.Template, next)
	}
	return nil
}

// following is the first command of e's session after at, when e came late.
func (a *applyTx) following(ctx context.Context, e *Event, at int64) (last, bool, error) {
	st, err := a.stmt(ctx, `SELECT template, ts_ms, repo_key FROM command_events WHERE session_id = ? AND ts_ms > ? ORDER BY ts_ms, id LIMIT 1`)
	if err != nil {
		return last{}, false, fmt.Errorf("next command: %w", err)
	}
	var l last
	switch err := st.QueryRowContext(ctx, e.Session, at).Scan(&l.template, &l.at, &l.repo); err {
	case nil:
		return l, true, nil
	case sql.ErrNoRows:
		return last{}, false, nil
	default:
		return last{}, false, fmt.Errorf("next command: %w", err)
	}
}

// splice moves the transition of next: from prev (when there was one) to
// template, the command that came late between them.
func (a *applyTx) splice(ctx context.Context, prev last, hadPrev bool, template string, next last) error {
	for _, scope := range scopes(next.repo) {
		if hadPrev {
			if err := a.exec(ctx, `UPDATE transitions SET count = count - 1 WHERE scope = ? AND prev_template = ? AND next_template = ?`, scope, prev.template, next.template); err != nil {
				return fmt.Errorf("transition: %w", err)
			}
			if err := a.exec(ctx, `DELETE FROM transitions WHERE scope = ? AND prev_template = ? AND next_template = ? AND count <= 0`, scope, prev.template, next.template); err != nil {
				return fmt.Errorf("transition: %w", err)
			}
		}
		if err := a.exec(ctx, upsertTransition, scope, template, next.template, 1, next.at); err != nil {
			return fmt.Errorf("transition: %w", err)
		}
	}
	return nil
}

// insertEvent adds e to the command events.
func (a *applyTx) insertEvent(ctx context.Context, e *Event, at int64) error {
	branch, dirty := "", any(nil)
	if e.Tree != nil {
		branch, dirty = e.Tree.Branch, e.Tree.Dirty
	}
	args := encodeArgs(e.Args)
	id, err := a.insert(ctx, `INSERT INTO command_events(session_id, ts_ms, cwd, repo_key, cmd, template, args, tool, exit_code, duration_ms, branch, dirty) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Session, at, e.Cwd, e.RepoKey, e.Cmd, e.Template, args, e.Tool, e.Exit, durationMS(e.Duration), branch, dirty)
	if err != nil {
		return fmt.Errorf("command event: %w", err)
	}
	if a.added != nil {
		a.added[e.RepoKey] = append(a.added[e.RepoKey], recentRow{template: e.Template, args: args, decoded: decodeArgs(args), at: at, id: id})
	}
	return nil
}

// wrote makes the recent commands kept agree with the command events after
// a write that did w and ended with err: the events it added are put in
// their place; after any other write of the events, or a failed one, all
// are dropped.
func (s *Store) wrote(w eventsWrite, a *applyTx, err error) {
	switch {
	case w == leavesEvents:
	case err != nil || w == rewritesEvents:
		s.recent.drop()
	default:
		s.recent.add(a.added)
	}
}

// encodeArgs is args as the database keeps them: a JSON array.
func encodeArgs(args []string) string {
	if len(args) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(args)
	return string(b)
}

// decodeArgs reads args the database kept; nil when there are none.
func decodeArgs(s string) []string {
	var args []string
	if json.Unmarshal([]byte(s), &args) != nil || len(args) == 0 {
		return nil
	}
	return args
}

const upsertTransition = `INSERT INTO transitions(scope, prev_template, next_template, count, last_ms) VALUES (?, ?, ?, ?, ?)
	ON CONFLICT(scope, prev_template, next_template) DO UPDATE SET count = count + excluded.count, last_ms = max(last_ms, excluded.last_ms)`

// score bumps the decayed score of e's template in scope, and keeps its
// args as the last ones used with it.
func (a *applyTx) score(ctx context.Context, scope string, e *Event, at int64) error {
	st, err := a.stmt(ctx, `SELECT rank, count, last_ms, last_cmd, last_args, args_uses FROM command_scores WHERE scope = ? AND template = ?`)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	var agg aggregate
	var lastArgs string
	switch err := st.QueryRowContext(ctx, scope, e.Template).Scan(&agg.rank, &agg.count, &agg.last, &agg.lastCmd, &lastArgs, &agg.argsUses); err {
	case nil:
		agg.lastArgs = decodeArgs(lastArgs)
		a.s.count(&agg, e.Cmd, e.Args, at)
	case sql.ErrNoRows:
		agg = a.s.first(e.Cmd, e.Args, at)
	default:
		return fmt.Errorf("score: %w", err)
	}
	if err := a.exec(ctx, upsertScore, scope, e.Template, agg.rank, agg.count, agg.last, agg.lastCmd, encodeArgs(agg.lastArgs), agg.argsUses); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	return nil
}

const upsertScore = `INSERT INTO command_scores(scope, template, rank, count, last_ms, last_cmd, last_args, args_uses) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT(scope, template) DO UPDATE SET rank = excluded.rank, count = excluded.count, last_ms = excluded.last_ms,
		last_cmd = excluded.last_cmd, last_args = excluded.last_args, args_uses = excluded.args_uses`

// previous is the command before e: the last one of its session, else the
// last one in its repository within the repository window.
func (a *applyTx) previous(ctx context.Context, e *Event, at int64) (last, bool, error) {
	p, ok, err := a.lastWhere(ctx, `SELECT template, ts_ms FROM command_events WHERE session_id = ? AND ts_ms <= ? ORDER BY ts_ms DESC, id DESC LIMIT 1`, e.Session, at)
	if err != nil || ok || e.RepoKey == "" {
		return p, ok, err
	}
	return a.lastWhere(ctx, `SELECT template, ts_ms FROM command_events WHERE repo_key = ? AND ts_ms <= ? AND ts_ms >= ? ORDER BY ts_ms DESC, id DESC LIMIT 1`,
		e.RepoKey, at, at-a.s.opt.RepoWindow.Milliseconds())
}

func (a *applyTx) lastWhere(ctx context.Context, q string, args ...any) (last, bool, error) {
	st, err := a.stmt(ctx, q)
	if err != nil {
		return last{}, false, fmt.Errorf("previous command: %w", err)
	}
	var l last
	switch err := st.QueryRowContext(ctx, args...).Scan(&l.template, &l.at); err {
	case nil:
		return l, true, nil
	case sql.ErrNoRows:
		return last{}, false, nil
	default:
		return last{}, false, fmt.Errorf("previous command: %w", err)
	}
}

// scopes are the scopes a command in repoKey teaches: the global one, and its
// repository's.
func scopes(repoKey string) []string {
	if repoKey == "" {
		return []string{globalScope}
	}
	return []string{globalScope, repoKey}
}

func durationMS(d time.Duration) int64 {
	if d < 0 {
		return -1
	}
	return d.Milliseconds()
}
