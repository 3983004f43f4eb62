package sessions

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/internal/rundir"
)

// maxSocketPath is the longest path a Unix socket may be bound to on this
// system: sun_path less its closing NUL (107 bytes on Linux, 103 on macOS and
// the BSDs).
const maxSocketPath = len(unix.RawSockaddrUnix{}.Path) - 1

// entryNameLen is the length of an entry's base name: 16 hex digits.
const entryNameLen = 16

// socketSuffix and entrySuffix end the names of an entry's two files.
const (
	socketSuffix = ".sock"
	entrySuffix  = ".json"
)

// DefaultDir is the folder of this user's running sessions: the runtime
// folder of clai ($XDG_RUNTIME_DIR/clai, else clai-UID in the temp folder).
func DefaultDir() string { return rundir.Dir() }

// prepareDir makes dir if it is missing (mode 0700, its parent must exist)
// and checks that it is this user's alone (see rundir.Check) and short
// enough for the sockets of its entries.
func prepareDir(dir string) error {
	if err := rundir.Prepare(dir); err != nil {
		return fmt.Errorf("sessions folder: %w", err)
	}
	return checkSocketRoom(dir)
}

// checkSocketRoom checks that the sockets of entries in dir have paths short
// enough to bind.
func checkSocketRoom(dir string) error {
	if longest := len(filepath.Join(dir, "x")) - 1 + entryNameLen + len(socketSuffix); longest > maxSocketPath {
		return fmt.Errorf("sessions folder %s is too long for a Unix socket (%d bytes a socket's path, at most %d); set XDG_RUNTIME_DIR to a shorter folder", dir, longest, maxSocketPath)
	}
	return nil
}
