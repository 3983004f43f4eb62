// Package tmux is the driver that works through a tmux pane: it reads the pane with
// capture-pane, polling faster while the pane changes, and types with send-keys. It
// drives a pane that already runs a program (a target), or starts the program in a
// detached session of its own.
//
// What it reads is the pane's screen, redrawn whole each time it changes, so it is
// meant for screen matching.
package tmux

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/driver"
	"github.com/clai-sh/clai/runner/driver/keys"
)

// Polling bounds: fast while the pane changes, slower while it is still.
const (
	minPoll = 10 * time.Millisecond
	maxPoll = 250 * time.Millisecond
)

// recordExit runs the program and then records its exit status as the pane option
// @clai_exit. tmux's own #{pane_dead_status} depends on the server reaping the
// program, and a tmux server that misses a SIGCHLD leaves it a zombie with no status;
// the shell that ran it always knows.
const recordExit = `t=$1; shift; "$@"; s=$?; "$t" set-option -p -t "$TMUX_PANE" @clai_exit "$s"; exit "$s"`

// Options says which pane to drive.
type Options struct {
	// Target is an existing pane ("work:0.1"); clai types into it and never ends
	// what runs there.
	Target string
	// Session is the name of a detached session to start with Argv in it; Close
	// kills the session.
	Session string
	Argv    []string
	Env     []string
	Dir     string
	// Rows and Cols size a new session (default 24x80).
	Rows, Cols int
	// Socket names the tmux server (tmux -L); empty means the default one.
	Socket string
}

// Pane is a tmux pane clai talks to. It implements driver.Driver; driver.Sizer, as
// the pane's size is its own (a person may resize a target pane); and
// driver.Typer, as tmux encodes a key it is given by name.
type Pane struct {
	target  string
	session string
	socket  string
	// dir is the working folder of the pane's program when clai attached.
	dir string

	// failures counts the looks at the pane that failed in a row; only Read
	// uses it.
	failures int

	mu      sync.Mutex
	last    snapshot
	poll    time.Duration
	closed  chan struct{}
	once    sync.Once
	status  driver.ExitStatus
	endOnce sync.Once
	done    chan struct{}
}

var (
	_ driver.Sizer  = (*Pane)(nil)
	_ driver.Typer  = (*Pane)(nil)
	_ driver.Folder = (*Pane)(nil)
)

// Start attaches to a pane, or starts a detached session running the command.
func Start(ctx context.Context, o Options) (*Pane, error) {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		return nil, fmt.Errorf("tmux: %w", err)
	}
	p := &Pane{target: o.Target, socket: o.Socket, poll: minPoll, closed: make(chan struct{}), done: make(chan struct{})}
	if o.Session != "" {
		if len(o.Argv) == 0 {
			return nil, errors.New("tmux: a new session needs a command")
		}
		rows, cols := o.Rows, o.Cols
		if rows <= 0 || cols <= 0 {
			rows, cols = 24, 80
		}
		// -P -F prints the new session's and pane's ids: "NAME:0.0" is wrong
		// where the person's tmux.conf sets base-index or pane-base-index, and
		// the session is ended by its id, whatever tmux made of its name.
		args := []string{"new-session", "-d", "-P", "-F", "#{session_id} #{pane_id}", "-s", o.Session, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
		if o.Dir != "" {
			args = append(args, "-c", o.Dir)
		}
		for _, kv := range o.Env {
			args = append(args, "-e", kv)
		}
		args = append(args, "sh", "-c", recordExit, "clai", tmuxPath)
		args = append(args, o.Argv...)
		// Keep the pane after its program exits, to read its last screen: set in the
		// same command list, so even a program that exits at once is kept.
		args = append(args, ";", "set-option", "-t", o.Session, "remain-on-exit", "on")
		out, err := p.tmux(ctx, args...)
		if err != nil {
			return nil, err
		}
		line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		ids := strings.Fields(line)
		if len(ids) != 2 {
			return nil, fmt.Errorf("tmux new-session: no session and pane id in %q", line)
		}
		p.session, p.target = ids[0], ids[1]
	}
	id, dir, err := p.paneID(ctx)
	if err != nil {
		return nil, fmt.Errorf("tmux pane %s: %w", p.target, err)
	}
	if id == "" {
		return nil, fmt.Errorf("tmux pane %s: no such pane", p.target)
	}
	p.dir = dir
	// From now on the pane goes by its id: should it close, a pane opened
	// later in its place ("work:0.1" again) is not the one clai was given.
	p.target = id
	return p, nil
}

// paneID returns the id of the pane the target names ("%3") and the working
// folder of its program, or "" when there is no such pane: tmux's
// display-message prints nothing for a target it cannot find, and fails only
// when the server is gone.
func (p *Pane) paneID(ctx context.Context) (id, dir string, err error) {
	out, err := p.tmux(ctx, "display-message", "-p", "-t", p.target, "#{pane_id} #{?pane_current_path,#{pane_current_path},#{pane_start_path}}")
	line, _, _ := strings.Cut(out, "\n")
	id, dir, _ = strings.Cut(line, " ")
	return strings.TrimSpace(id), dir, err
}

// Dir returns the working folder of the pane's program when clai attached:
// tmux's pane_current_path, else, when the program has not yet taken the
// terminal, the folder the pane was started in; "" when tmux knew neither.
func (p *Pane) Dir() string { return p.dir }

// tmux runs a tmux command on the pane's server and returns its output.
func (p *Pane) tmux(ctx context.Context, args ...string) (string, error) {
	name := args[0]
	if p.socket != "" {
		args = append([]string{"-L", p.socket}, args...)
	}
	out, err := exec.CommandContext(ctx, "tmux", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Read returns the pane's screen, redrawn whole (clear, home, then each row),
// whenever it or the pane's size changes; io.EOF once the program in a session of
// clai's ended and its last screen was read, or after Close.
func (p *Pane) Read(b []byte) (int, error) {
	for {
		select {
		case <-p.closed:
			return 0, io.EOF
		default:
		}
		snap, err := p.capture()
		if err != nil {
			if st, ended := p.captureFailed(); ended {
				p.end(st)
				return 0, io.EOF
			}
			select {
			case <-p.closed:
				return 0, io.EOF
			case <-time.After(maxPoll):
			}
			continue
		}
		p.failures = 0
		p.mu.Lock()
		changed := snap.screen != p.last.screen || snap.rows != p.last.rows || snap.cols != p.last.cols
		if changed {
			p.last, p.poll = snap, minPoll
		} else {
			p.poll = min(p.poll*2, maxPoll)
		}
		wait := p.poll
		p.mu.Unlock()
		if changed {
			redraw := "\x1b[H\x1b[2J" + strings.ReplaceAll(strings.TrimRight(snap.screen, "\n"), "\n", "\r\n")
			return copy(b, redraw), nil
		}
		if snap.exited != nil {
			p.end(*snap.exited)
			return 0, io.EOF
		}
		select {
		case <-p.closed:
			return 0, io.EOF
		case <-time.After(wait):
		}
	}
}

// maxFailures is how many looks at a pane that is still there may fail in a
// row before the driver gives up on it.
const maxFailures = 10

// captureFailed decides what a failed look at the pane means: the pane closed
// (it, its window or its session was killed, or the tmux server ended), which
// ends the program's output; or a passing failure of a pane that is still
// there, which ends it only after maxFailures in a row.
func (p *Pane) captureFailed() (driver.ExitStatus, bool) {
	if id, _, err := p.paneID(context.Background()); err != nil || id != p.target {
		return driver.ExitStatus{Code: -1, PaneClosed: true}, true
	}
	p.failures++
	return driver.ExitStatus{Code: -1}, p.failures >= maxFailures
}

// snapshot is one look at the pane.
type snapshot struct {
	screen     string
	rows, cols uint16
	exited     *driver.ExitStatus // set once the program of clai's session ended
}

// capture reads the pane's screen, its size and whether its program ended, with one
// tmux command.
func (p *Pane) capture() (snapshot, error) {
	out, err := p.tmux(context.Background(), "capture-pane", "-p", "-e", "-t", p.target, ";",
		"display-message", "-p", "-t", p.target, "#{pane_height} #{pane_width} #{@clai_exit}")
	if err != nil {
		return snapshot{}, err
	}
	out = strings.TrimSuffix(out, "\n")
	i := strings.LastIndexByte(out, '\n')
	if i < 0 {
		return snapshot{}, fmt.Errorf("tmux capture-pane: no screen in %q", out)
	}
	snap := snapshot{screen: out[:i+1]}
	meta := strings.Fields(out[i+1:])
	if len(meta) < 2 {
		return snapshot{}, fmt.Errorf("tmux display-message: no pane size in %q", out[i+1:])
	}
	rows, err1 := strconv.ParseUint(meta[0], 10, 16)
	cols, err2 := strconv.ParseUint(meta[1], 10, 16)
	if err := errors.Join(err1, err2); err != nil {
		return snapshot{}, fmt.Errorf("tmux display-message: pane size: %w", err)
	}
	snap.rows, snap.cols = uint16(rows), uint16(cols)
	if len(meta) == 3 && p.session != "" {
		if code, err := strconv.Atoi(meta[2]); err == nil {
			st := exitStatus(code)
			snap.exited = &st
		}
	}
	return snap, nil
}

// Size is the pane's size in the last screen Read returned.
func (p *Pane) Size() (rows, cols uint16) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last.rows, p.last.cols
}

// exitStatus reads a shell's $?: above 128 the program was killed by a signal.
func exitStatus(code int) driver.ExitStatus {
	if code > 128 && code <= 128+64 {
		return driver.ExitStatus{Code: code, Signal: syscall.Signal(code - 128).String()}
	}
	return driver.ExitStatus{Code: code}
}

func (p *Pane) end(st driver.ExitStatus) {
	p.endOnce.Do(func() {
		p.status = st
		close(p.done)
	})
}

// Write types b into the pane as a person's terminal sent it: text literally
// (send-keys -l), the sequences of keys by the key's name, so tmux encodes them as
// the pane's program asked (cursor keys in application mode), and any other byte
// as it is (send-keys -H).
func (p *Pane) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, p.ended()
	}
	if err := p.send(sendKeys(p.target, b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Type types the keystrokes into the pane: their Data as Write does, and each
// key by its tmux name.
func (p *Pane) Type(k keys.Keystrokes) error {
	if len(k.Data) == 0 && len(k.Keys) == 0 {
		return p.ended()
	}
	return p.send(typeKeys(p.target, k))
}

// ended returns an error wrapping driver.ErrEnded once the driver was closed.
func (p *Pane) ended() error {
	select {
	case <-p.closed:
		return fmt.Errorf("tmux send-keys: %w", driver.ErrEnded)
	default:
		return nil
	}
}

// send runs a list of send-keys commands, unless the driver was closed.
func (p *Pane) send(args []string) error {
	if err := p.ended(); err != nil {
		return err
	}
	if _, err := p.tmux(context.Background(), args...); err != nil {
		return err
	}
	p.mu.Lock()
	p.poll = minPoll // the answer will redraw the pane
	p.mu.Unlock()
	return nil
}

// Resize resizes the window of clai's own session; a target pane is the person's
// and keeps its size.
func (p *Pane) Resize(rows, cols uint16) error {
	if p.session == "" {
		return nil
	}
	_, err := p.tmux(context.Background(), "resize-window", "-t", p.session, "-x", strconv.Itoa(int(cols)), "-y", strconv.Itoa(int(rows)))
	return err
}

// Wait blocks until the program of clai's session ended (or, for a target pane,
// until Close) and returns how it ended.
func (p *Pane) Wait() (driver.ExitStatus, error) {
	<-p.done
	return p.status, nil
}

// Close stops reading; it kills clai's own session, never a target pane.
func (p *Pane) Close() error {
	var err error
	p.once.Do(func() {
		close(p.closed)
		if p.session != "" {
			if snap, cerr := p.capture(); cerr == nil && snap.exited != nil {
				p.end(*snap.exited)
			}
			// Still running: killing the session hangs its terminal up.
			p.end(driver.ExitStatus{Code: 129, Signal: "hangup"})
			_, err = p.tmux(context.Background(), "kill-session", "-t", p.session)
		}
		p.end(driver.ExitStatus{})
	})
	return err
}
