package hookproto

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// SessionsFolder is the folder, in the runtime folder, of the session ids the
// daemon assigned to shells: one file a shell, named after its process id,
// holding the id.
const SessionsFolder = "shell-sessions"

// SessionFresh is how recent a session file must be for a shell to take its
// id: an older one was written for an earlier process with the same id.
const SessionFresh = time.Second

// maxSessionID bounds a session id read from a file.
const maxSessionID = 128

// SessionFile is the path of the session file of the shell with process id
// pid, in the runtime folder dir.
func SessionFile(dir string, pid int) string {
	return filepath.Join(dir, SessionsFolder, strconv.Itoa(pid))
}

// WriteSessionFile writes id as the session of the shell with process id pid,
// in the runtime folder dir: a whole file at once (renamed into place), in a
// 0700 folder made if missing.
func WriteSessionFile(dir string, pid int, id string) error {
	if !validSessionID([]byte(id)) {
		return fmt.Errorf("session id %q: want 1 to %d letters, digits, '-', '_' or '.'", id, maxSessionID)
	}
	folder := filepath.Join(dir, SessionsFolder)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	tmp, err := os.CreateTemp(folder, ".tmp-*")
	if err != nil {
		return fmt.Errorf("session file: %w", err)
	}
	_, werr := tmp.WriteString(id + "\n")
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), SessionFile(dir, pid))
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("session file: %w", werr)
	}
	return nil
}

// ReadSessionFile returns the id the daemon wrote for the shell with process
// id pid, when it wrote it no longer than SessionFresh before now; ok is false
// when there is none, it is older, or it holds no valid id.
func ReadSessionFile(dir string, pid int, now time.Time) (id string, ok bool) {
	path := SessionFile(dir, pid)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxSessionID+1 || now.Sub(fi.ModTime()) > SessionFresh {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	if !validSessionID(data) {
		return "", false
	}
	return string(data), true
}

// LocalSessionID is a session id a shell makes for itself when the daemon
// assigns none: l-PID- and 16 random hexadecimal digits.
func LocalSessionID(pid int) string {
	return fmt.Sprintf("l-%d-%016x", pid, rand.Uint64())
}

// validSessionID reports whether id is 1 to maxSessionID bytes of letters,
// digits, '-', '_' and '.', which a shell may keep and print as they are.
func validSessionID(id []byte) bool {
	if len(id) == 0 || len(id) > maxSessionID {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}
