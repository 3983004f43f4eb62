package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SessionShell is the shell the session's hooks named (bash, zsh, fish),
// "" when the session is unknown or its hooks named none.
func (s *Store) SessionShell(ctx context.Context, session string) (string, error) {
	var shell string
	err := s.db.QueryRowContext(ctx, `SELECT shell FROM sessions WHERE id = ?`, session).Scan(&shell)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("shell of session %q: %w", session, err)
	}
	return shell, nil
}
