// Command clai-hook is the small client the shell hooks of `clai init` run: it
// hands the suggestion daemon the commands a shell ran, and never makes the
// shell wait for it. It imports only the standard library, the hook protocol
// and the runtime folder, so that it starts in a few milliseconds; for the same
// reason it is the client to ask for suggestions from a prompt (suggest). The shell hooks run it
// as a shell starts and ends; at a prompt they append to the spool instead.
//
//	clai-hook ingest [-stdin] [-wait]   a command that ended
//	clai-hook session-start     a shell starting: prints its session id, the
//	                            daemon's socket and the shell's spool file
//	clai-hook session-end       a shell ending
//	clai-hook suggest [-json] [-limit N]
//	                            the next commands for this shell, as clai
//	                            suggest prints them: for a prompt, a key
//	                            binding or a script, at a fraction of clai's
//	                            start-up
//
// What it sends comes from the environment, never from its arguments, so that
// no command line shows in a process list:
//
//	CLAI_HOOK_SHELL        bash, zsh or fish
//	CLAI_HOOK_PID          the shell's process id
//	CLAI_SESSION_ID        the session id session-start printed
//	CLAI_HOOK_CMD          the command line (with -stdin: read from stdin)
//	CLAI_HOOK_EXIT         its exit status
//	CLAI_HOOK_DURATION_MS  how long it ran, in milliseconds (empty or -1: unknown)
//	CLAI_HOOK_TS_MS        when it ended, in milliseconds since the Unix epoch
//	                       (empty: when clai-hook runs)
//	CLAI_HOOK_TIMEOUT_MS   the connect timeout, 10 to 20 (default 15)
//	CLAI_HOOK_LAST         suggest: the command that ran last (default: the
//	                       session's last one, as the hooks told the daemon)
//	CLAI_DAEMON_SOCKET     the daemon's socket, when not the runtime folder's
//
// The working folder is clai-hook's own, which it inherits from the shell.
// With -stdin, the command line is stdin, less one closing newline. Errors
// go to stderr (which the hooks send to /dev/null) with exit 1. Without
// -wait, ingest does not wait for the daemon's reply, and an event the
// daemon could not take is lost; with -wait (for scripts and importers) it
// waits for the reply, 10 s at most, and exits 75 (EX_TEMPFAIL) when the
// daemon dropped the event (no room, or its database could not be written):
// it may be sent again.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/clai-sh/clai/internal/rundir"
	"github.com/clai-sh/clai/runner/suggest/hookproto"
)

// sessionWait is how long session-start waits for the daemon to write the
// shell's session file, after the daemon took the session_start event.
const sessionWait = 50 * time.Millisecond

// sessionPoll is how often session-start looks for the session file.
const sessionPoll = 2 * time.Millisecond

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := dispatch(args, os.Getenv, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "clai-hook:", err)
		if errors.Is(err, hookproto.ErrDropped) {
			return exitTempFail
		}
		return 1
	}
	return 0
}

// exitTempFail is the exit code of ingest -wait when the daemon dropped the
// event: try again later (EX_TEMPFAIL of sysexits.h).
const exitTempFail = 75

func dispatch(args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: clai-hook ingest [-stdin] [-wait] | session-start | session-end | suggest [-json] [-limit N]")
	}
	h := hook{getenv: getenv, now: time.Now, transport: hookproto.DefaultTransport, sessionWait: sessionWait}
	switch cmd, rest := args[0], args[1:]; {
	case cmd == "ingest":
		fromStdin, wait, ok := ingestFlags(rest)
		if !ok {
			return fmt.Errorf("unknown arguments %q of ingest (it takes -stdin and -wait)", strings.Join(rest, " "))
		}
		h.wait = wait
		if fromStdin {
			return h.ingest(stdin, true)
		}
		return h.ingest(strings.NewReader(getenv("CLAI_HOOK_CMD")), false)
	case cmd == "session-start" && len(rest) == 0:
		return h.sessionStart(stdout)
	case cmd == "session-end" && len(rest) == 0:
		return h.send(h.event(hookproto.TypeSessionEnd))
	case cmd == "suggest":
		asJSON, limit, err := suggestFlags(rest)
		if err != nil {
			return err
		}
		return h.suggest(stdout, asJSON, limit)
	default:
		return fmt.Errorf("unknown command or arguments %q (see clai-hook's usage: ingest [-stdin] [-wait], session-start, session-end, suggest [-json] [-limit N])", strings.Join(args, " "))
	}
}

// ingestFlags reads ingest's flags, -stdin and -wait, each once at most in
// any order.
func ingestFlags(args []string) (fromStdin, wait, ok bool) {
	for _, a := range args {
		switch {
		case a == "-stdin" && !fromStdin:
			fromStdin = true
		case a == "-wait" && !wait:
			wait = true
		default:
			return false, false, false
		}
	}
	return fromStdin, wait, true
}

// hook is one run of clai-hook: where it reads its environment and the time,
// how it reaches the daemon, and how long it waits for a session file.
type hook struct {
	getenv      func(string) string
	now         func() time.Time
	transport   func() (hookproto.Transport, error)
	sessionWait time.Duration
	// wait makes ingest wait for the daemon's reply.
	wait bool
}

// event is an event of type typ with the shell, session, process id and
// working folder of the environment.
func (h hook) event(typ string) hookproto.Event {
	pid, _ := strconv.Atoi(h.getenv("CLAI_HOOK_PID"))
	return hookproto.Event{
		V: hookproto.Version, Type: typ, Session: h.getenv("CLAI_SESSION_ID"), Shell: h.getenv("CLAI_HOOK_SHELL"),
		PID: pid, TSMillis: h.timestamp(), Cwd: h.cwd(),
	}
}

// timestamp is when the event happened: CLAI_HOOK_TS_MS, which the shell
// sets from its own clock where it has one, so that events sent in the
// background keep their order; else now.
func (h hook) timestamp() int64 {
	if ms, err := strconv.ParseInt(h.getenv("CLAI_HOOK_TS_MS"), 10, 64); err == nil && ms > 0 {
		return ms
	}
	return h.now().UnixMilli()
}

// cwd is the working folder as the shell names it ($PWD when it is the same
// folder, which os.Getwd checks), else $PWD.
func (h hook) cwd() string {
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return h.getenv("PWD")
}

// ingest sends the command read from r. A command of blanks is no command; a
// longer one than an event line holds is dropped.
func (h hook) ingest(r io.Reader, fromStdin bool) error {
	data, err := io.ReadAll(io.LimitReader(r, hookproto.MaxLine+1))
	if err != nil {
		return fmt.Errorf("read the command: %w", err)
	}
	if fromStdin {
		data = bytes.TrimSuffix(data, []byte("\n"))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if len(data) > hookproto.MaxLine {
		return fmt.Errorf("a command of more than %d bytes is not sent", hookproto.MaxLine)
	}
	e := h.event(hookproto.TypeCommand)
	e.Cmd = string(data)
	e.Exit, _ = strconv.Atoi(h.getenv("CLAI_HOOK_EXIT"))
	e.DurationMS = hookproto.UnknownDuration
	if ms, err := strconv.ParseInt(h.getenv("CLAI_HOOK_DURATION_MS"), 10, 64); err == nil && ms >= 0 {
		e.DurationMS = ms
	}
	if h.wait {
		t, err := h.transport()
		if err != nil {
			return err
		}
		_, err = hookproto.SendWait(t, h.connectTimeout(), hookproto.DefaultReplyWait, e)
		return err
	}
	return h.send(e)
}

// sessionStart tells the daemon of the shell and prints its session id: the
// one the daemon writes to the shell's session file, when it does so at once,
// else one of the shell's own (see hookproto.LocalSessionID), which the daemon
// takes as well. On the next two lines it prints the daemon's socket and the
// shell's spool file, where the hooks append the commands (see
// hookproto.Spool), once the spool's folder is there and the user's alone
// (the runtime folder is made for it, a folder CLAI_DAEMON_SOCKET names is
// not); it leaves them out when it is not, when the daemon is reached
// otherwise than by a Unix socket, or when a path would not fit on a line.
func (h hook) sessionStart(stdout io.Writer) error {
	e := h.event(hookproto.TypeSessionStart)
	e.Session = hookproto.LocalSessionID(e.PID)
	id := e.Session
	t, err := h.transport()
	if err != nil && h.getenv(hookproto.SocketEnv) == "" && rundir.Prepare(rundir.Dir()) == nil {
		// A runtime folder no daemon made yet.
		t, err = h.transport()
	}
	if err == nil {
		if err := hookproto.Send(t, h.connectTimeout(), e); err == nil {
			id = h.awaitSession(filepath.Dir(t.String()), e.PID, id)
		}
	}
	out := id + "\n"
	if sock, ok := t.(hookproto.UnixSocket); ok && err == nil {
		spool, serr := hookproto.SpoolFile(filepath.Dir(sock.Path), id)
		if serr == nil && !strings.ContainsAny(sock.Path+spool, "\n\r") && hookproto.PrepareSpool(filepath.Dir(sock.Path)) == nil {
			out += sock.Path + "\n" + spool + "\n"
		}
	}
	_, err = io.WriteString(stdout, out)
	return err
}

// awaitSession waits, h.sessionWait at most, for the daemon to write the
// session file of the shell pid in dir; it returns the id there, else
// fallback.
func (h hook) awaitSession(dir string, pid int, fallback string) string {
	deadline := h.now().Add(h.sessionWait)
	for {
		if id, ok := hookproto.ReadSessionFile(dir, pid, h.now()); ok {
			return id
		}
		if h.now().After(deadline) {
			return fallback
		}
		time.Sleep(sessionPoll)
	}
}

// send hands e to the daemon.
func (h hook) send(e hookproto.Event) error {
	t, err := h.transport()
	if err != nil {
		return err
	}
	return hookproto.Send(t, h.connectTimeout(), e)
}

// connectTimeout is the connect timeout CLAI_HOOK_TIMEOUT_MS sets.
func (h hook) connectTimeout() time.Duration {
	return hookproto.ConnectTimeout(h.getenv(hookproto.TimeoutEnv))
}
