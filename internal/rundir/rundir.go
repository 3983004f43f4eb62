// Package rundir is the per-user runtime folder of clai: $XDG_RUNTIME_DIR/clai,
// else clai-UID in the temporary folder. The registry of running sessions, the
// suggestion daemon's socket and the shell hooks' session files live there.
//
// It imports only the standard library, so that the shell hooks' small client
// can use it.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Dir is the runtime folder of this user: $XDG_RUNTIME_DIR/clai when that
// variable holds an absolute path, else clai-UID in the temporary folder.
func Dir() string {
	return dirFor(os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), os.Getuid())
}

// dirFor is Dir for the given XDG_RUNTIME_DIR, temporary folder and uid.
func dirFor(xdgRuntime, tmp string, uid int) string {
	if xdgRuntime != "" && filepath.IsAbs(xdgRuntime) {
		return filepath.Join(xdgRuntime, "clai")
	}
	return filepath.Join(tmp, "clai-"+strconv.Itoa(uid))
}

// Prepare makes dir if it is missing (mode 0700; its parent must exist) and
// checks it as Check does.
func Prepare(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("runtime folder %s: %w", dir, err)
	}
	return Check(dir)
}

// Check checks that dir is a folder (not a link to one), owned by this user,
// with mode 0700: another user can neither list it nor reach a socket in it,
// nor have put anything there.
func Check(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("runtime folder %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("runtime folder %s is not a folder (a link or a file is refused); remove it", dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("runtime folder %s belongs to uid %d, not to this user (uid %d); remove it or set XDG_RUNTIME_DIR", dir, uid, os.Getuid())
	}
	if perm := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky); perm != 0o700 {
		return fmt.Errorf("runtime folder %s has mode %04o, want 0700 so that no other user may enter it; run chmod 700 %s", dir, unixMode(perm), dir)
	}
	return nil
}

// unixMode is the permission bits of m as chmod writes them.
func unixMode(m fs.FileMode) uint32 {
	bits := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		bits |= 0o1000
	}
	return bits
}
