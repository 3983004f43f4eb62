package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxSocketPath is the longest path a Unix socket may be bound to on this
// system: sun_path less its closing NUL (107 bytes on Linux, 103 on macOS and
// the BSDs).
var maxSocketPath = len(unix.RawSockaddrUnix{}.Path) - 1

// entryNameLen is the length of an entry's base name: 16 hex digits.
const entryNameLen = 16

// socketSuffix and entrySuffix end the names of an entry's two files.
const (
	socketSuffix = ".sock"
	entrySuffix  = ".json"
)

// DefaultDir is the folder of this user's running sessions:
// $XDG_RUNTIME_DIR/clai, else clai-UID in the temp folder.
func DefaultDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "clai")
	}
	return filepath.Join(os.TempDir(), "clai-"+strconv.Itoa(os.Getuid()))
}

// prepareDir makes dir if it is missing (mode 0700, its parent must exist)
// and checks that it is a folder of this user that nobody else may enter.
func prepareDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sessions folder %s: %w", dir, err)
	}
	return checkDir(dir)
}

// checkDir checks that dir is a folder (not a link to one), owned by this
// user, with mode 0700: another user can neither list it nor reach a socket
// in it, nor have put anything there.
func checkDir(dir string) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("sessions folder %s: %w", dir, &fs.PathError{Op: "lstat", Path: dir, Err: err})
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("sessions folder %s is not a folder (a link or a file is refused); remove it", dir)
	}
	if uid := int(st.Uid); uid != os.Getuid() {
		return fmt.Errorf("sessions folder %s belongs to uid %d, not to this user (uid %d); remove it or set XDG_RUNTIME_DIR", dir, uid, os.Getuid())
	}
	if perm := st.Mode & 0o7777; perm != 0o700 {
		return fmt.Errorf("sessions folder %s has mode %04o, want 0700 so that no other user may enter it; run chmod 700 %s", dir, perm, dir)
	}
	if longest := len(filepath.Join(dir, "x")) - 1 + entryNameLen + len(socketSuffix); longest > maxSocketPath {
		return fmt.Errorf("sessions folder %s is too long for a Unix socket (%d bytes a socket's path, at most %d); set XDG_RUNTIME_DIR to a shorter folder", dir, longest, maxSocketPath)
	}
	return nil
}
