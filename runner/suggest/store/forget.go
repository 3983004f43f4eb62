package store

import (
	"context"
	"fmt"
	"slices"

	"github.com/clai-sh/clai/internal/sqlitefile"
)

// Forgotten counts what Forget removed.
type Forgotten struct {
	// Events counts the command events that matched.
	Events int64
	// Scrubbed says how the files were scrubbed after.
	Scrubbed Scrubbed
}

// Scrubbed says what a scrub did (see sqlitefile.Scrubbed).
type Scrubbed = sqlitefile.Scrubbed

// Forget removes the command events that match, and all that was learnt from
// them: an event matches when match holds for its command line, its
// template or one of its args. The transitions and the scores (with each
// command's last args) are then learnt again from the events kept, as
// RebuildAggregates does, so that none is left of what the events taught;
// what was learnt from events the retention already purged goes with them.
// When an event matched, the files are scrubbed (see Scrub). It is one of
// the store's writes (see Writer.Do).
func (s *Store) Forget(ctx context.Context, match func(string) bool) (Forgotten, error) {
	var f Forgotten
	err := s.write(ctx, rewritesEvents, func(a *applyTx) error {
		ids, err := a.matching(ctx, match)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		for _, id := range ids {
			if err := a.exec(ctx, `DELETE FROM command_events WHERE id = ?`, id); err != nil {
				return fmt.Errorf("forget: %w", err)
			}
		}
		f.Events = int64(len(ids))
		return a.rebuild(ctx)
	})
	if err != nil || f.Events == 0 {
		return f, err
	}
	f.Scrubbed, err = s.Scrub(ctx)
	return f, err
}

// matching lists the ids of the command events that match.
func (a *applyTx) matching(ctx context.Context, match func(string) bool) ([]int64, error) {
	rows, err := a.tx.QueryContext(ctx, `SELECT id, cmd, template, args FROM command_events`)
	if err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		var cmd, template, args string
		if err := rows.Scan(&id, &cmd, &template, &args); err != nil {
			return nil, fmt.Errorf("forget: %w", err)
		}
		if match(cmd) || match(template) || slices.ContainsFunc(decodeArgs(args), match) {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	return ids, nil
}
