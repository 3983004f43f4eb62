package hookproto

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/rundir"
)

// SocketEnv names the environment variable that, when set, is the path of
// the daemon's socket, for the hooks and the daemon alike.
const SocketEnv = "CLAI_DAEMON_SOCKET"

// SocketName is the base name of the daemon's socket in the runtime folder.
const SocketName = "daemon.sock"

// Transport is how the hooks reach the daemon and how the daemon listens: a
// Unix socket, or a named pipe on Windows.
type Transport interface {
	// Dial connects to the daemon, giving up after timeout.
	Dial(timeout time.Duration) (net.Conn, error)
	// Listen listens where Dial connects.
	Listen() (net.Listener, error)
	// String is where the transport leads, for messages.
	String() string
}

// UnixSocket is a Transport over the Unix socket at Path.
type UnixSocket struct {
	Path string
}

// Dial connects to the socket.
func (u UnixSocket) Dial(timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("unix", u.Path, timeout)
}

// Listen binds the socket. A file left at its path is not removed: the daemon
// removes a stale socket itself, once it holds its lock.
func (u UnixSocket) Listen() (net.Listener, error) {
	return net.Listen("unix", u.Path)
}

// String is where the transport leads, for messages.
func (u UnixSocket) String() string { return u.Path }

// NamedPipe is a Transport over the Windows named pipe at Path. Windows is not
// built yet: on every system its Dial and Listen fail with
// errors.ErrUnsupported.
type NamedPipe struct {
	Path string
}

// Dial fails: named pipes are not built.
func (p NamedPipe) Dial(time.Duration) (net.Conn, error) {
	return nil, fmt.Errorf("named pipe %s: %w", p.Path, errors.ErrUnsupported)
}

// Listen fails: named pipes are not built.
func (p NamedPipe) Listen() (net.Listener, error) {
	return nil, fmt.Errorf("named pipe %s: %w", p.Path, errors.ErrUnsupported)
}

// String is where the transport leads, for messages.
func (p NamedPipe) String() string { return p.Path }

// SocketPath is the path of the daemon's socket: $CLAI_DAEMON_SOCKET when
// set (made absolute from the working folder), else daemon.sock in the
// runtime folder (see rundir.Dir).
func SocketPath() string {
	if p := os.Getenv(SocketEnv); p != "" {
		return absolute(p)
	}
	return filepath.Join(rundir.Dir(), SocketName)
}

// absolute is path made absolute from the working folder, or path when the
// working folder cannot be told.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// PipePath is the path of the daemon's named pipe on Windows for user (the
// account name, a domain before a backslash allowed): \\.\pipe\clai-daemon-
// followed by the user, lower-cased, with every character a pipe's name may
// not hold, or that could make two users' names the same, written as _XX in
// hexadecimal.
func PipePath(user string) string {
	var b strings.Builder
	b.WriteString(`\\.\pipe\clai-daemon-`)
	for _, c := range []byte(strings.ToLower(user)) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	return b.String()
}

// DefaultTransport is the transport to the daemon on this system: the Unix
// socket at SocketPath. A socket in the runtime folder is used only when that
// folder is this user's alone (see rundir.Check), so that the hooks never hand
// commands to a socket another user put there; a socket named by
// CLAI_DAEMON_SOCKET is the user's choice and is taken as it is.
func DefaultTransport() (Transport, error) {
	if p := os.Getenv(SocketEnv); p != "" {
		return UnixSocket{Path: absolute(p)}, nil
	}
	dir := rundir.Dir()
	if err := rundir.Check(dir); err != nil {
		return nil, err
	}
	return UnixSocket{Path: filepath.Join(dir, SocketName)}, nil
}
