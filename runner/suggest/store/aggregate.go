package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// Import adds command events as they are, without learning from them: a bulk
// load, after which RebuildAggregates learns from all of them at once.
func (s *Store) Import(ctx context.Context, events []Event) error {
	return s.write(ctx, rewritesEvents, func(a *applyTx) error {
		for i := range events {
			e := &events[i]
			if e.Kind != Command {
				continue
			}
			if err := a.insertEvent(ctx, e, e.At.UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
}

// transitionKey names a transition in a scope.
type transitionKey struct{ scope, prev, next string }

// scoreKey names a template in a scope.
type scoreKey struct{ scope, template string }

// aggregate is a transition's count, or a command's score with its last
// args and how many times in a row they were used.
type aggregate struct {
	rank     float64
	count    int64
	last     int64
	lastCmd  string
	lastArgs []string
	argsUses int64
}

// first is the score of a command run once, at t.
func (s *Store) first(cmd string, args []string, t int64) aggregate {
	return aggregate{rank: s.rankAt(t), count: 1, last: t, lastCmd: cmd, lastArgs: args, argsUses: 1}
}

// count counts a run of the command at t, with args.
func (s *Store) count(a *aggregate, cmd string, args []string, t int64) {
	if slices.Equal(a.lastArgs, args) {
		a.argsUses++
	} else {
		a.argsUses = 1
	}
	a.rank, a.count = s.bump(a.rank, t), a.count+1
	if t >= a.last {
		a.last, a.lastCmd, a.lastArgs = t, cmd, args
	}
}

// tally is what a rebuild learns from the events, in memory.
type tally struct {
	transitions map[transitionKey]*aggregate
	scores      map[scoreKey]*aggregate
	bySession   map[string]last
	byRepo      map[string]last
}

// RebuildAggregates recomputes the transitions and the scores from the
// command events alone, as if each had been learnt from as it came, in the
// order of their times.
func (s *Store) RebuildAggregates(ctx context.Context) error {
	return s.write(ctx, rewritesEvents, func(a *applyTx) error { return a.rebuild(ctx) })
}

// rebuild replaces the transitions and the scores with what the command
// events teach, in the transaction.
func (a *applyTx) rebuild(ctx context.Context) error {
	t, err := a.s.tally(ctx, a.tx)
	if err != nil {
		return err
	}
	for _, q := range []string{`DELETE FROM transitions`, `DELETE FROM command_scores`} {
		if err := a.exec(ctx, q); err != nil {
			return fmt.Errorf("rebuild: %w", err)
		}
	}
	for k, v := range t.transitions {
		if err := a.exec(ctx, upsertTransition, k.scope, k.prev, k.next, v.count, v.last); err != nil {
			return fmt.Errorf("rebuild: transition: %w", err)
		}
	}
	for k, v := range t.scores {
		if err := a.exec(ctx, upsertScore, k.scope, k.template, v.rank, v.count, v.last, v.lastCmd, encodeArgs(v.lastArgs), v.argsUses); err != nil {
			return fmt.Errorf("rebuild: score: %w", err)
		}
	}
	return nil
}

// querier is a database or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// tally reads every command event in order and learns from it in memory.
func (s *Store) tally(ctx context.Context, q querier) (*tally, error) {
	rows, err := q.QueryContext(ctx, `SELECT session_id, ts_ms, repo_key, cmd, template, args FROM command_events ORDER BY ts_ms, id`)
	if err != nil {
		return nil, fmt.Errorf("rebuild: %w", err)
	}
	defer rows.Close()
	t := &tally{
		transitions: map[transitionKey]*aggregate{},
		scores:      map[scoreKey]*aggregate{},
		bySession:   map[string]last{},
		byRepo:      map[string]last{},
	}
	for rows.Next() {
		var session, repo, cmd, template, args string
		var at int64
		if err := rows.Scan(&session, &at, &repo, &cmd, &template, &args); err != nil {
			return nil, fmt.Errorf("rebuild: %w", err)
		}
		s.learn(t, session, repo, cmd, template, decodeArgs(args), at)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rebuild: %w", err)
	}
	return t, nil
}

// learn is what Apply learns from one command, in memory: the same previous
// command, transitions and scores.
func (s *Store) learn(t *tally, session, repo, cmd, template string, args []string, at int64) {
	prev, ok := t.bySession[session]
	if !ok && repo != "" {
		prev, ok = t.byRepo[repo]
		ok = ok && at-prev.at <= s.opt.RepoWindow.Milliseconds()
	}
	for _, scope := range scopes(repo) {
		if ok {
			k := transitionKey{scope, prev.template, template}
			tr := t.transitions[k]
			if tr == nil {
				tr = &aggregate{}
				t.transitions[k] = tr
			}
			tr.count++
			tr.last = max(tr.last, at)
		}
		k := scoreKey{scope, template}
		sc := t.scores[k]
		if sc == nil {
			first := s.first(cmd, args, at)
			t.scores[k] = &first
			continue
		}
		s.count(sc, cmd, args, at)
	}
	l := last{template: template, at: at}
	t.bySession[session] = l
	if repo != "" {
		t.byRepo[repo] = l
	}
}

// Purged counts the rows a purge removed.
type Purged struct {
	Events, Sessions, Transitions, Scores, Tasks int64
	// Scrubbed says how the files were scrubbed after.
	Scrubbed Scrubbed
}

// Purge removes what is older than before: command events, sessions last
// heard of, and the transitions, scores and tasks last seen before it, with
// the transitions from a command not run since. When
// it removed anything, it scrubs the files (see Scrub): nothing of what it
// removed is left in the database, its free pages or its write-ahead log.
// It is one of the store's writes (see Writer.Do).
func (s *Store) Purge(ctx context.Context, before time.Time) (Purged, error) {
	var p Purged
	cut := before.UnixMilli()
	err := s.write(ctx, rewritesEvents, func(a *applyTx) error {
		for _, d := range []struct {
			q string
			n *int64
		}{
			{`DELETE FROM command_events WHERE ts_ms < ?`, &p.Events},
			{`DELETE FROM sessions WHERE last_ms < ?`, &p.Sessions},
			{`DELETE FROM transitions WHERE last_ms < ?`, &p.Transitions},
			{`DELETE FROM command_scores WHERE last_ms < ?`, &p.Scores},
			{`DELETE FROM project_tasks WHERE updated_ms < ?`, &p.Tasks},
		} {
			res, err := a.tx.ExecContext(ctx, d.q, cut)
			if err != nil {
				return fmt.Errorf("purge: %w", err)
			}
			if *d.n, err = res.RowsAffected(); err != nil {
				return fmt.Errorf("purge: %w", err)
			}
		}
		// A transition from a command run before the cut to one after it
		// is recent, but names the old command: it goes with it.
		res, err := a.tx.ExecContext(ctx, `DELETE FROM transitions WHERE NOT EXISTS (
			SELECT 1 FROM command_scores s WHERE s.scope = transitions.scope AND s.template = transitions.prev_template)`)
		if err != nil {
			return fmt.Errorf("purge: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("purge: %w", err)
		}
		p.Transitions += n
		return nil
	})
	if err != nil || p == (Purged{}) {
		return p, err
	}
	p.Scrubbed, err = s.Scrub(ctx)
	return p, err
}
