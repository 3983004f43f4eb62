// Package sessions is the registry of the runs of this user on this machine,
// and the HTTP API over a Unix socket through which each is reached from
// elsewhere (see docs/questions.md). Each run registers an entry in a folder
// only its user may enter and serves its ask.Desk on the entry's socket,
// letting in only processes of that user; a run that was killed leaves an
// entry the next reader removes.
package sessions

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/runner/ask"
)

// maxEntryFile is the largest entry file a reader takes.
const maxEntryFile = 64 << 10

// lockWait is how long the registry's lock is waited for.
const lockWait = 5 * time.Second

// queryTimeout bounds how long a reader waits for one session's answer.
const queryTimeout = 3 * time.Second

// lockName is the file whose lock keeps readers from an entry being added:
// adding one takes it exclusively, reading the entries (and removing those of
// runs that are gone) shared, so that readers do not wait for each other.
const lockName = ".lock"

// Registry is a folder of session entries: for each run a file NAME.json,
// which the run keeps locked while it lives, and its socket NAME.sock.
type Registry struct {
	dir string
}

// Open opens the registry in dir (DefaultDir if empty), making the folder if
// it is missing. The folder must be this user's, mode 0700, and short enough
// for a socket's path.
func Open(dir string) (*Registry, error) {
	if dir == "" {
		dir = DefaultDir()
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	return &Registry{dir: dir}, nil
}

// Dir is the registry's folder.
func (r *Registry) Dir() string { return r.dir }

// entryInfo is what an entry file holds.
type entryInfo struct {
	// Socket is the base name of the session's socket in the folder.
	Socket string `json:"socket"`
	// Session is the session as it was when it registered.
	Session ask.Session `json:"session"`
}

// Entry is a run's registration: its entry file, locked while it lives, and
// the server on its socket.
type Entry struct {
	lock   *os.File
	path   string
	socket string
	server *Server
	once   sync.Once
	err    error
}

// Socket is the path of the session's socket.
func (e *Entry) Socket() string { return e.socket }

// Register adds desk's session to the registry and serves it on a socket of
// its own until Close. refused, if not nil, is told of each connection
// refused (another user's).
func (r *Registry) Register(desk ask.Desk, refused func(error)) (*Entry, error) {
	name, err := newEntryName()
	if err != nil {
		return nil, fmt.Errorf("session entry name: %w", err)
	}
	e := &Entry{path: filepath.Join(r.dir, name+entrySuffix), socket: filepath.Join(r.dir, name+socketSuffix)}
	info := entryInfo{Socket: name + socketSuffix, Session: desk.Session()}
	if err := r.locked(unix.LOCK_EX, func() error { return e.create(info) }); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", e.socket)
	if err != nil {
		e.remove()
		return nil, fmt.Errorf("session socket: %w", err)
	}
	// The folder keeps other users out; the socket's mode does too.
	if err := os.Chmod(e.socket, 0o600); err != nil {
		_ = ln.Close()
		e.remove()
		return nil, fmt.Errorf("session socket: %w", err)
	}
	e.server = Serve(ln, desk, refused)
	return e, nil
}

// create writes the entry file, locked before anyone can read it (readers
// take the registry's lock too).
func (e *Entry) create(info entryInfo) error {
	f, err := os.OpenFile(e.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("session entry: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = f.Close()
		_ = os.Remove(e.path)
		return fmt.Errorf("session entry %s: lock: %w", e.path, err)
	}
	e.lock = f
	if err := json.NewEncoder(f).Encode(info); err != nil {
		e.remove()
		return fmt.Errorf("session entry %s: %w", e.path, err)
	}
	return nil
}

// remove removes the entry's files and lets go of its lock.
func (e *Entry) remove() {
	_ = os.Remove(e.socket)
	_ = os.Remove(e.path)
	if e.lock != nil {
		_ = e.lock.Close()
	}
}

// Close stops serving and removes the entry. Only the first call does
// anything.
func (e *Entry) Close() error {
	e.once.Do(func() {
		if e.server != nil {
			e.err = e.server.Close()
		}
		e.remove()
	})
	return e.err
}

// newEntryName is a fresh random name for an entry of the registry's
// folder: a session's or a dashboard's.
func newEntryName() (string, error) {
	b := make([]byte, entryNameLen/2)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// locked runs fn holding the registry's lock, exclusive (unix.LOCK_EX) or
// shared (unix.LOCK_SH), which it waits up to lockWait for.
func (r *Registry) locked(how int, fn func() error) error {
	path := filepath.Join(r.dir, lockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("sessions lock: %w", err)
	}
	defer f.Close()
	deadline := time.Now().Add(lockWait)
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return fmt.Errorf("sessions lock %s: %w", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fn()
}

// Found is a session the registry lists.
type Found struct {
	// Session is the session as it stands; when Err is set, as it was when
	// it registered.
	Session ask.Session
	// Socket is the path of its socket.
	Socket string
	// Err is why the session could not be asked how it stands.
	Err error
}

// List returns the sessions of the registry, each asked how it stands, in
// the order they started. The entries of runs that are gone are removed.
func (r *Registry) List(ctx context.Context) ([]Found, error) {
	return r.ListOnly(ctx, func(ask.Session) bool { return true })
}

// ListOnly is List of the sessions that keep holds for as they registered
// (their id, name, playbook and program never change): only those are asked
// how they stand, so that finding one session among many asks it alone.
func (r *Registry) ListOnly(ctx context.Context, keep func(ask.Session) bool) ([]Found, error) {
	found, err := r.Registered(keep)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i := range found {
		wg.Go(func() {
			qctx, cancel := context.WithTimeout(ctx, queryTimeout)
			defer cancel()
			s, err := NewClient(found[i].Socket).Session(qctx)
			if err != nil {
				found[i].Err = err
				return
			}
			found[i].Session = s
		})
	}
	wg.Wait()
	slices.SortStableFunc(found, func(a, b Found) int { return a.Session.Started.Compare(b.Session.Started) })
	return found, nil
}

// Registered returns the sessions of live runs that keep holds for, as
// they registered, without asking them how they stand: their id, name,
// playbook, program and socket, which never change. The entries of runs
// that are gone are removed.
func (r *Registry) Registered(keep func(ask.Session) bool) ([]Found, error) {
	var infos []entryInfo
	err := r.locked(unix.LOCK_SH, func() error {
		var err error
		infos, err = r.scan()
		return err
	})
	if err != nil {
		return nil, err
	}
	infos = slices.DeleteFunc(infos, func(info entryInfo) bool { return !keep(info.Session) })
	found := make([]Found, len(infos))
	for i, info := range infos {
		found[i] = Found{Session: info.Session, Socket: filepath.Join(r.dir, info.Socket)}
	}
	return found, nil
}

// scan reads the entries of live runs and removes those of runs that are
// gone. It runs under the registry's lock.
func (r *Registry) scan() ([]entryInfo, error) {
	dirents, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, fmt.Errorf("sessions folder: %w", err)
	}
	var infos []entryInfo
	for _, d := range dirents {
		name, ok := strings.CutSuffix(d.Name(), entrySuffix)
		if !ok || !d.Type().IsRegular() || len(name) != entryNameLen {
			continue
		}
		info, live, err := r.read(name)
		if err != nil || !live {
			continue
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// read reads the entry name. An entry nobody holds locked is a run that is
// gone: its files are removed and live is false. Its lock is tried shared,
// so that two readers that find it at once both find it gone.
func (r *Registry) read(name string) (info entryInfo, live bool, err error) {
	path := filepath.Join(r.dir, name+entrySuffix)
	b, live, err := readLive(path, unix.LOCK_SH, maxEntryFile, func() {
		_ = os.Remove(filepath.Join(r.dir, name+socketSuffix))
		_ = os.Remove(path)
	})
	if err != nil || !live {
		return info, live, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, true, fmt.Errorf("session entry %s: %w", path, err)
	}
	if info.Socket != name+socketSuffix {
		return info, true, fmt.Errorf("session entry %s: socket %q is not its own", path, info.Socket)
	}
	return info, true, nil
}

// readLive reads the file at path, limit bytes at most, when the process that
// wrote it still holds its lock. A file nobody holds locked (tried with
// lock, LOCK_SH or LOCK_EX) is of a process that is gone: gone runs while
// the file is held locked here, and live is false.
func readLive(path string, lock, limit int, gone func()) (b []byte, live bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), lock|unix.LOCK_NB); err == nil {
		gone()
		return nil, false, nil
	}
	b, err = io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, true, err
	}
	if len(b) > limit {
		return nil, true, fmt.Errorf("%s: longer than %d bytes", path, limit)
	}
	return b, true, nil
}
