// Package statedir names clai's per-user state folder, where run logs, the
// suggestion daemon's database and the learned answers are kept.
package statedir

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir returns clai's state folder in the environment getenv reads:
// $XDG_STATE_HOME/clai, else ~/.local/state/clai. It makes nothing.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "clai"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", err
		}
	}
	if home == "" {
		return "", errors.New("no home folder")
	}
	return filepath.Join(home, ".local", "state", "clai"), nil
}
