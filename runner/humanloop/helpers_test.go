package humanloop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/humanloop"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/report"
	"github.com/clai-sh/clai/runner/sessions"
)

// lockedBuffer is a bytes.Buffer that a run writes to while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Sync() error { return nil }

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hang is how long a test waits for what must come at once: only a hang
// reaches it.
const hang = 120 * time.Second

// isolated are a test's own folders: the sessions folder its runs register
// in, and a folder for its files that is also its runs' state folder
// (learned answers). They reach the runs through humanloop.Options, not the
// process's environment. (The tests still run one at a time: several runs
// at once on a small machine stretch the answerer's and the notifications'
// bounded waits past what the tests allow.)
type isolated struct {
	sessions, dir string
}

// isolate makes the test's folders.
func isolate(t *testing.T) *isolated {
	t.Helper()
	// The sessions folder holds sockets, whose paths must be short.
	rt, err := os.MkdirTemp("", "clai-rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(rt) })
	return &isolated{sessions: filepath.Join(rt, "clai"), dir: t.TempDir()}
}

// startRun is startRun in the test's folders: opts's sessions folder, and the
// state folder in its environment (the process's, when opts has none).
func (iso *isolated) startRun(t *testing.T, pb *playbooks.Playbook, opts humanloop.Options) *aRun {
	t.Helper()
	opts.SessionsDir = iso.sessions
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	opts.Environ = append(slices.Clone(opts.Environ), "XDG_STATE_HOME="+iso.dir)
	return startRun(t, pb, opts)
}

// parsePlaybook parses a playbook's YAML, formatted with args.
func parsePlaybook(t *testing.T, format string, args ...any) *playbooks.Playbook {
	t.Helper()
	pb, findings := playbooks.Parse("playbook.yaml", fmt.Appendf(nil, format, args...))
	if pb == nil {
		t.Fatal(findings)
	}
	return pb
}

// parseConfig parses a user config's YAML, formatted with args, as the file
// config.yaml.
func parseConfig(t *testing.T, format string, args ...any) *playbooks.Config {
	t.Helper()
	cfg, findings := playbooks.ParseConfig("config.yaml", fmt.Appendf(nil, format, args...))
	if cfg == nil {
		t.Fatal(findings)
	}
	return cfg
}

// prompterCommand is the YAML list of a command that runs the fake program
// prompter with args.
func prompterCommand(t *testing.T, args ...string) string {
	t.Helper()
	list := []string{fmt.Sprintf("%q", testprog.Build(t, "prompter"))}
	for _, a := range args {
		list = append(list, fmt.Sprintf("%q", a))
	}
	return "[" + strings.Join(list, ", ") + "]"
}

// scriptModel writes a model the answerer runs as a command: it reads the
// request and replies reply.
func scriptModel(t *testing.T, reply string) string {
	t.Helper()
	return scriptFile(t, "cat > /dev/null\necho '"+reply+"'")
}

// scriptFile writes a shell script of body and returns its path.
func scriptFile(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// aRun is a run of humanloop.Run in a goroutine of the test: what its
// program showed, what it said on its notices, its event log, and, once it
// is over, its report and error.
type aRun struct {
	shown, notices, log lockedBuffer
	done                chan struct{}
	rep                 *report.Report
	err                 error
	// sessions is the sessions folder the run registers in.
	sessions string
}

// startRun runs pb with opts, its program's output mirrored to r.shown, its
// notices (unless opts names a writer) to r.notices and its event log to
// r.log; the run is waited for when the test ends.
func startRun(t *testing.T, pb *playbooks.Playbook, opts humanloop.Options) *aRun {
	t.Helper()
	r := &aRun{done: make(chan struct{})}
	if opts.Notices == nil {
		opts.Notices = &r.notices
	}
	logger, stop := eventlog.New(&r.log, zapcore.InfoLevel, pb.Name)
	opts.Logger = logger
	opts.Runner = append(opts.Runner, runner.WithMirror(&r.shown), runner.WithTimeline(true))
	r.sessions = opts.SessionsDir
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(r.done)
		r.rep, r.err = humanloop.Run(ctx, pb, opts)
		_ = stop()
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	return r
}

// wait waits for the run to end and returns its report and error.
func (r *aRun) wait(t *testing.T) (*report.Report, error) {
	t.Helper()
	select {
	case <-r.done:
		return r.rep, r.err
	case <-time.After(hang):
		t.Fatalf("the run goes on:\n%s\n%s", r.shown.String(), r.notices.String())
		return nil, nil
	}
}

// waitDone waits for the run to end well: its program done, no error.
func (r *aRun) waitDone(t *testing.T) *report.Report {
	t.Helper()
	rep, err := r.wait(t)
	if err != nil || rep == nil || rep.ExitCode != 0 {
		t.Fatalf("the run: %v, %+v\n%s\n%s", err, rep, r.shown.String(), r.notices.String())
	}
	return rep
}

// logLines returns the lines of the run's event log whose event is event.
func (r *aRun) logLines(event string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(r.log.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["event"] == event {
			out = append(out, m)
		}
	}
	return out
}

// waitQuestion waits until the only session registered is r's and its open
// question is id, as clai sessions lists it; it returns the session and its
// socket.
func (r *aRun) waitQuestion(t *testing.T, id string) (ask.Session, string) {
	t.Helper()
	return r.waitFor(t, "question "+id, func(q *ask.Question) bool { return q.ID == id })
}

// waitFor waits until the only session registered is r's and its open
// question is one that is (what says which, for a failure), as clai sessions
// lists it; it returns the session and its socket. A generous deadline only
// catches a hang, or a run that ended.
func (r *aRun) waitFor(t *testing.T, what string, is func(*ask.Question) bool) (ask.Session, string) {
	t.Helper()
	reg, err := sessions.Open(r.sessions)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hang)
	for {
		list, err := reg.List(t.Context())
		if err == nil && len(list) == 1 && list[0].Session.Question != nil && is(list[0].Session.Question) {
			return list[0].Session, list[0].Socket
		}
		select {
		case <-r.done:
			t.Fatalf("the run ended (%v) before %s:\n%s", r.err, what, r.shown.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s; sessions: %+v (%v)", what, list, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answer waits for question id of r and answers it through the session's
// socket, as clai answer does: a text, or with choose an option's label.
func (r *aRun) answer(t *testing.T, id, text, choose string) {
	t.Helper()
	_, socket := r.waitQuestion(t, id)
	a := ask.Answer{Question: id, Choose: choose, By: "tester", Channel: "cli"}
	if choose == "" {
		a.Text = &text
	}
	if _, err := sessions.NewClient(socket).Answer(t.Context(), a); err != nil {
		t.Fatalf("the answer to %s: %v", id, err)
	}
}

// toldDir returns a folder and the YAML of a notify command target on
// events, which writes each notification it is told to a file of its own in
// the folder.
func toldDir(t *testing.T, events string) (dir, target string) {
	t.Helper()
	dir = t.TempDir()
	return dir, fmt.Sprintf("  - command: [sh, -c, 'cat > \"$0/$$.json\"', %q]\n    on: [%s]\n", dir, events)
}

// waitTold waits until the command target of toldDir has written a
// notification of question id (the answerer, when there is one, decided it
// first), or the run ends.
func (r *aRun) waitTold(t *testing.T, dir, id string) {
	t.Helper()
	deadline := time.Now().Add(hang)
	for {
		// A file the target is still writing is read again next time.
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			var n notify.Notification
			data, err := os.ReadFile(f)
			if err == nil && json.Unmarshal(data, &n) == nil && n.Question != nil && n.Question.ID == id {
				return
			}
		}
		select {
		case <-r.done:
			t.Fatalf("the run ended (%v) before question %s was told:\n%s", r.err, id, r.shown.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("question %s was not told", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// told reads the notifications the command target of toldDir wrote.
func told(t *testing.T, dir string) []notify.Notification {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []notify.Notification
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var n notify.Notification
		if err := json.Unmarshal(data, &n); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, data)
		}
		out = append(out, n)
	}
	return out
}
