// Package pidlock is the lock that makes a process the only one of its kind
// for a user: a file locked while the process lives, holding its process
// id for the message of the next one. A killed process's lock is free at
// once: the operating system lets go of it.
package pidlock

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// Lock is a held lock.
type Lock struct{ f *flock.Flock }

// TryLock takes the lock at path (made, mode 0600, if missing) and writes
// this process's id in it; held is false, with no error, where another
// process holds it.
func TryLock(path string) (lock *Lock, held bool, err error) {
	f := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ok, err := f.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, true, nil
	}
	_ = os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return &Lock{f: f}, false, nil
}

// Unlock lets the lock go.
func (l *Lock) Unlock() error { return l.f.Unlock() }

// Holder is the process id the holder of the lock at path wrote there; 0
// when there is none to read.
func Holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 32 {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
