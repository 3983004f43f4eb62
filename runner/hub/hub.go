// Package hub is the per-user hub: one process per user per machine that
// owns the channels a person answers from (one poller per Telegram bot,
// one subscription per ntfy reply topic) for every run of the user, on this
// machine and on the machines joined to it over SSH. Runs link to it
// (runner/hublink) and hand it their questions; it asks them on the
// channels each run's playbook uses and routes each press to the run and
// question it was made for. It keeps nothing a crash would lose: runs link
// again and say what is open, and its ledger knows what each channel
// already delivered (see docs/hub.md).
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/internal/pidlock"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/hublink"
	"github.com/clai-sh/clai/runner/notify"
)

// ErrAlreadyRunning is Run's error where another hub holds the lock.
var ErrAlreadyRunning = errors.New("a hub already runs")

// The hub's log lines.
const (
	LogRegistered = "hub-registered" // a run linked, or linked again
	LogRefused    = "hub-refused"    // a connection or a hello refused, and why
	LogAway       = "hub-run-away"   // a run's link went away
	LogEnded      = "hub-run-ended"  // a run ended, or was given up
)

// Bounds of the hub.
const (
	// MaxSessions bounds the runs registered at once.
	MaxSessions = 256
	// MaxConns bounds the connections open at once.
	MaxConns = 512
	// HelloRate hellos at most are taken in any second; more are refused.
	HelloRate = 100
	// Linger is how long a run whose link went away is waited for before
	// its questions close as ended; a run on this machine whose process is
	// gone ends at once.
	Linger = 2 * time.Minute
	// processLook is how often the process of a run of this machine whose
	// link went away is looked for.
	processLook = 250 * time.Millisecond
	// callTimeout bounds a call of a run made for a channel.
	callTimeout = 10 * time.Second
	// helloTimeout bounds the wait for a connection's first frame.
	helloTimeout = 5 * time.Second
	// maxHost and maxName bound the names a hello carries.
	maxHost = 64
	maxName = 200
)

// Channel is one of the hub's channels, by the name playbooks use for it.
type Channel struct {
	Name    string
	Channel channel.Multi
}

// Config is the hub's.
type Config struct {
	// Dir is the runtime folder: the hub's socket, lock and ledger.
	Dir string
	// Host names this machine; a run that says another host is a joined
	// machine's.
	Host string
	// Channels are the channels the hub owns.
	Channels []Channel
	// Notifier, when set, tells the user config's notify targets of every
	// run (of those its playbook names), one outbox a target for them all;
	// Targets are the targets' names.
	Notifier *notify.Sender
	Targets  []string
	// Mirror, when set, is told of each joined machine's run, so that this
	// machine's clai sessions, clai answer and dashboard reach it; the
	// function it returns is called once the run ended.
	Mirror func(desk ask.Desk) (stop func())
	// Log gets the hub's lines (nil: none).
	Log *zap.Logger
	// Idle ends the hub once no run has been registered for that long (0:
	// never).
	Idle time.Duration
	// Linger overrides Linger (0: Linger).
	Linger time.Duration
	// Lock is the hub's lock, taken with TakeLock before its state and
	// channels were opened; nil: Run takes it.
	Lock *pidlock.Lock
}

// LockPath is the hub's lock in the runtime folder dir.
func LockPath(dir string) string { return strings.TrimSuffix(hublink.Socket(dir), ".sock") + ".lock" }

// Hub is a running hub.
type Hub struct {
	cfg   Config
	log   *zap.Logger
	since time.Time
	joins map[string]chan ask.Desk
	stop  context.CancelFunc

	mu     sync.Mutex
	runs   map[string]*run
	hellos []time.Time
	idle   *time.Timer
}

// Run serves the hub until ctx ends, a control frame stops it, or it was
// idle for cfg.Idle. It takes the lock (another hub: ErrAlreadyRunning)
// and binds the socket, removing a stale one.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	if cfg.Linger <= 0 {
		cfg.Linger = Linger
	}
	lock := cfg.Lock
	if lock == nil {
		var err error
		if lock, err = TakeLock(cfg.Dir); err != nil {
			return err
		}
	}
	defer lock.Unlock()
	socket := hublink.Socket(cfg.Dir)
	if err := os.Remove(socket); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stale hub socket: %w", err)
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return fmt.Errorf("hub socket: %w", err)
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		_ = ln.Close()
		return fmt.Errorf("hub socket: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &Hub{cfg: cfg, log: cfg.Log, since: time.Now(), joins: map[string]chan ask.Desk{}, stop: cancel, runs: map[string]*run{}}
	var wg sync.WaitGroup
	for _, c := range cfg.Channels {
		joins := make(chan ask.Desk, 16)
		h.joins[c.Name] = joins
		wg.Go(func() {
			if err := c.Channel.ServeAll(ctx, joins); err != nil && ctx.Err() == nil {
				h.log.Warn(channel.LogFailed, zap.String("event", channel.LogFailed), zap.String("channel", c.Name), zap.String("error", err.Error()))
			}
		})
	}
	if cfg.Idle > 0 {
		h.idle = time.AfterFunc(cfg.Idle, cancel)
	}
	pl := peer.Listen(ln, os.Getuid(), MaxConns, func(err error) {
		h.log.Warn(LogRefused, zap.String("event", LogRefused), zap.String("error", err.Error()))
	})
	context.AfterFunc(ctx, func() { _ = pl.Close() })
	h.log.Info("hub-started", zap.String("event", "hub-started"), zap.String("socket", socket), zap.Int("pid", os.Getpid()))
	for {
		c, err := pl.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(err, net.ErrClosed) {
				break
			}
			continue
		}
		wg.Go(func() { h.serve(ctx, hublink.NewConn(c)) })
	}
	_ = os.Remove(socket)
	cancel()
	wg.Wait()
	return nil
}

// TakeLock takes the hub's lock in dir and writes this process's id in it;
// another hub holds it: ErrAlreadyRunning. A hub takes it before it opens
// its state, which only the lock's holder may write.
func TakeLock(dir string) (*pidlock.Lock, error) {
	path := LockPath(dir)
	lock, held, err := pidlock.TryLock(path)
	if err != nil {
		return nil, fmt.Errorf("hub %w", err)
	}
	if held {
		return nil, fmt.Errorf("%w as process %d (its lock is %s)", ErrAlreadyRunning, pidlock.Holder(path), path)
	}
	return lock, nil
}

// serve reads a connection's first frame, a run's hello or a command's
// control, and serves it.
func (h *Hub) serve(ctx context.Context, c *hublink.Conn) {
	defer c.Close()
	context.AfterFunc(ctx, func() { _ = c.Close() })
	f, err := c.ReadWithin(helloTimeout)
	if errors.Is(err, io.EOF) {
		return // a run that looked whether a hub answers, and went
	}
	if err != nil {
		h.refuse(c, fmt.Sprintf("no hello: %v", err))
		return
	}
	switch {
	case f.Hello != nil:
		h.link(ctx, c, f.Hello)
	case f.Control == "status":
		st := h.status()
		_ = c.Write(hublink.Frame{Status: &st})
	case f.Control == "stop":
		st := h.status()
		_ = c.Write(hublink.Frame{Status: &st})
		h.stop()
	default:
		h.refuse(c, "the first frame is neither a hello nor a control")
	}
}

// refuse tells c why it is refused, and logs it.
func (h *Hub) refuse(c *hublink.Conn, why string) {
	h.log.Warn(LogRefused, zap.String("event", LogRefused), zap.String("reason", why))
	_ = c.Write(hublink.Frame{Refused: why})
}

// check says what is wrong with a hello, if anything.
func (h *Hub) check(hello *hublink.Hello) string {
	s := hello.Session
	switch {
	case hello.Version != hublink.Version:
		return fmt.Sprintf("the wire's version %d, not %d", hello.Version, hublink.Version)
	case !validID(s.ID):
		return "a session id that is not 1 to 32 hex digits"
	case len(s.Host) > maxHost || s.Host != ask.Visible(s.Host) || strings.ContainsAny(s.Host, "/ "):
		return "a host name that is too long or not printable"
	case len(s.Name) > maxName:
		return "a session name that is too long"
	case len(hello.Closed) > hublink.MaxClosed:
		return "too many questions closed"
	}
	for _, name := range hello.Channels {
		if _, ok := h.joins[name]; !ok && !slices.Contains(h.cfg.Targets, name) {
			return fmt.Sprintf("the hub has no channel or notify target %q: the user config names %s", ask.Visible(name), h.names())
		}
	}
	return ""
}

// names lists the channels' and targets' names, for a message.
func (h *Hub) names() string {
	var names []string
	for _, c := range h.cfg.Channels {
		names = append(names, c.Name)
	}
	for _, t := range h.cfg.Targets {
		if !slices.Contains(names, t) {
			names = append(names, t)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// validID says whether id may be a session's: 1 to 32 hex digits.
func validID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

// admit says why a hello is refused for the hub's bounds, if it is: more
// than HelloRate in the last second, or MaxSessions registered.
func (h *Hub) admit(key string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	h.hellos = slices.DeleteFunc(h.hellos, func(t time.Time) bool { return now.Sub(t) >= time.Second })
	if len(h.hellos) >= HelloRate {
		return fmt.Sprintf("more than %d registrations in a second", HelloRate)
	}
	h.hellos = append(h.hellos, now)
	if _, again := h.runs[key]; !again && len(h.runs) >= MaxSessions {
		return fmt.Sprintf("%d runs are registered already", MaxSessions)
	}
	return ""
}

// link serves a run's link until it closes.
func (h *Hub) link(ctx context.Context, c *hublink.Conn, hello *hublink.Hello) {
	if why := h.check(hello); why != "" {
		h.refuse(c, why)
		return
	}
	key := runKey(hello.Session)
	if why := h.admit(key); why != "" {
		h.refuse(c, why)
		return
	}
	r, fresh := h.register(key, hello)
	now := time.Now()
	r.attach(c, hello, now)
	h.log.Info(LogRegistered, zap.String("event", LogRegistered), zap.String("session", key), zap.Bool("again", !fresh))
	if fresh {
		h.join(ctx, r)
	}
	for {
		f, err := c.Read()
		if err != nil {
			break
		}
		switch {
		case f.Update != nil:
			r.update(f.Update)
			if f.Update.Update.Kind == ask.UpdateEnd {
				h.forget(key, r, "the run ended")
				return
			}
		case f.Reply != nil:
			r.reply(f.Reply)
		}
	}
	back := r.detach(c, time.Now())
	if back == nil {
		return
	}
	h.log.Info(LogAway, zap.String("event", LogAway), zap.String("session", key))
	// A run of this machine whose process is gone ended; one of a joined
	// machine, or one that lives on, is waited for.
	local := h.local(r.Session())
	t := time.NewTimer(h.cfg.Linger)
	defer t.Stop()
	look := time.NewTicker(processLook)
	defer look.Stop()
	for {
		if local && !alive(r.Session().PID) {
			r.end("the run ended unseen", time.Now())
			h.forget(key, r, "its process is gone")
			return
		}
		select {
		case <-back:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			r.end("the run was not heard from again", time.Now())
			h.forget(key, r, "its link stayed away")
			return
		case <-look.C:
		}
	}
}

// runKey names a run among the hub's: its host and session id.
func runKey(s ask.Session) string { return s.Host + "/" + s.ID }

// local says whether s is a run of this machine.
func (h *Hub) local(s ask.Session) bool { return s.Host == h.cfg.Host }

// register finds the run of key, or adds it; true when it is new.
func (h *Hub) register(key string, hello *hublink.Hello) (*run, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.runs[key]; ok && !r.isEnded() {
		return r, false
	}
	r := newRun(key, hello)
	h.runs[key] = r
	if h.idle != nil {
		h.idle.Stop()
	}
	return r, true
}

// join hands r to the channels its playbook uses, and to the mirror if it
// is a joined machine's.
func (h *Hub) join(ctx context.Context, r *run) {
	for _, c := range h.cfg.Channels {
		if r.channels != nil && !slices.Contains(r.channels, c.Name) {
			continue
		}
		select {
		case h.joins[c.Name] <- r:
		case <-ctx.Done():
			return
		}
	}
	if h.cfg.Notifier != nil {
		// A joined machine's run is HOST/ID here, in the clai answer
		// commands its notifications carry.
		var desk ask.Desk = r
		if !h.local(r.Session()) {
			desk = Named(r)
		}
		h.cfg.Notifier.WatchNamed(desk, r.channels)
	}
	if h.cfg.Mirror != nil && !h.local(r.Session()) {
		stop := h.cfg.Mirror(r)
		go func() {
			w := r.WatchKinds(ctx, ask.UpdateEnd)
			for range w {
			}
			stop()
		}()
	}
}

// forget lets the ended run r of key go.
func (h *Hub) forget(key string, r *run, why string) {
	h.log.Info(LogEnded, zap.String("event", LogEnded), zap.String("session", key), zap.String("reason", why))
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs[key] == r {
		delete(h.runs, key)
	}
	if len(h.runs) == 0 && h.idle != nil {
		h.idle.Reset(h.cfg.Idle)
	}
}

// status is what the hub says of itself.
func (h *Hub) status() hublink.Status {
	st := hublink.Status{PID: os.Getpid(), Host: h.cfg.Host, Since: h.since.UTC().Format(time.RFC3339)}
	for _, c := range h.cfg.Channels {
		st.Channels = append(st.Channels, c.Name)
	}
	st.Targets = h.cfg.Targets
	h.mu.Lock()
	runs := make([]*run, 0, len(h.runs))
	for _, r := range h.runs {
		runs = append(runs, r)
	}
	h.mu.Unlock()
	for _, r := range runs {
		st.Sessions = append(st.Sessions, r.Session())
	}
	slices.SortFunc(st.Sessions, func(a, b ask.Session) int { return strings.Compare(runKey(a), runKey(b)) })
	return st
}

// alive says whether the process pid may still run: it exists, and is no
// zombie waiting for its parent.
func alive(pid int) bool {
	if pid <= 0 {
		return true
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !zombie(pid)
}

// zombie says whether pid has ended and waits for its parent to read its
// end, where /proc says so (elsewhere: no).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
