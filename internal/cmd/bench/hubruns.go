package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
)

// hubEnv is the folders one group of runs shares: a runtime folder (one
// hub), a config folder whose user config has one Telegram channel on the
// fake.
type hubEnv struct {
	dir, runtime string
	env          []string
	tg           *channeltest.Telegram
}

// newEnv makes a fresh fake bot and the folders of a group of runs under
// b.dir; close stops the fake and removes the folders.
func (b hubBench) newEnv(name string) (*hubEnv, error) {
	dir, err := os.MkdirTemp(b.dir, name+"-")
	if err != nil {
		return nil, err
	}
	e := &hubEnv{dir: dir, runtime: filepath.Join(dir, "rt")}
	config := filepath.Join(dir, "config", "clai", "config.yaml")
	for _, d := range []string{e.runtime, filepath.Dir(config)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	e.tg = channeltest.StartTelegram(hubBenchToken)
	cfg := fmt.Sprintf("channels:\n  - telegram:\n      token: env:%s\n      chats: [%d]\n      base_url: %q\n", hubBenchTokenEnv, hubBenchChat, e.tg.URL())
	if err := os.WriteFile(config, []byte(cfg), 0o600); err != nil {
		e.close()
		return nil, err
	}
	e.env = append(os.Environ(), "XDG_RUNTIME_DIR="+e.runtime, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		hubBenchTokenEnv+"="+hubBenchToken, "CLAI_HOST=bench")
	return e, nil
}

// hubLog is the end of the log of e's hub, if one ran, to say what went
// wrong.
func (e *hubEnv) hubLog() string {
	log, err := os.ReadFile(filepath.Join(e.runtime, "clai", "hub.log"))
	if err != nil {
		return ""
	}
	return "\nthe hub's log:\n" + string(tail(log, 8192))
}

func (e *hubEnv) close() {
	e.tg.Close()
	_ = os.RemoveAll(e.dir)
}

// hubRun is one clai run of WH, asking "rNN: where? [northXX/southXX] ",
// XX letters of its own.
type hubRun struct {
	i           int
	name, stamp string
	cmd         *exec.Cmd
	out         *syncBuffer
	exited      chan error
	question    channeltest.Message
	asked       bool
	pressID     string
	pressed     time.Time
	want        string
}

// syncBuffer is a buffer written by a process's output and read meanwhile.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 64<<10 {
		return len(p), nil // enough to say what went wrong
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start starts run i of env e: clai run, through the hub, or owning the
// bot itself when own.
func (b hubBench) start(e *hubEnv, i int, own bool) (*hubRun, error) {
	r := &hubRun{i: i, name: fmt.Sprintf("r%02d", i), stamp: filepath.Join(e.dir, fmt.Sprintf("stamp-%02d", i)),
		out: &syncBuffer{}, exited: make(chan error, 1)}
	pb := filepath.Join(e.dir, r.name+".yaml")
	// Each run's options are its own (letters only, as a [y/n] question's
	// are), so that a press typed into another run shows.
	code := string(rune('a'+i/26%26)) + string(rune('a'+i%26))
	src := fmt.Sprintf("version: 1\nname: %s\nspawn: {command: [%q, -q, \"%s: where? [north%s/south%s] \", -stamp, %q]}\n"+
		"timeouts: {prompt: %s, total: %s}\n", r.name, b.prompter, r.name, code, code, r.stamp, b.limit, 2*b.limit)
	if err := os.WriteFile(pb, []byte(src), 0o644); err != nil {
		return nil, err
	}
	args := []string{"run", "--log", os.DevNull}
	if own {
		args = append(args, "--own-channels")
	}
	r.cmd = exec.Command(b.clai, append(args, pb)...)
	r.cmd.Env, r.cmd.Stdout, r.cmd.Stderr = e.env, r.out, r.out
	r.cmd.WaitDelay = 5 * time.Second
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("WH: start %s: %w", r.name, err)
	}
	go func() { r.exited <- r.cmd.Wait() }()
	return r, nil
}

// stop ends a run that still runs (SIGTERM, then SIGKILL) and waits for it.
func (r *hubRun) stop() {
	select {
	case err := <-r.exited:
		r.exited <- err
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-r.exited:
		r.exited <- err
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
		r.exited <- <-r.exited
	}
}

// questionOf is the message with buttons that asks r's question, if sent;
// call it with the fake locked.
func questionOf(f *channeltest.Telegram, name string) (channeltest.Message, int) {
	var first channeltest.Message
	n := 0
	for _, m := range f.Messages() {
		if len(m.Buttons) >= 2 && strings.Contains(m.Text, name+": where?") {
			if n == 0 {
				first = m
			}
			n++
		}
	}
	return first, n
}

// waitAsked waits until every run's question reached the bot.
func (b hubBench) waitAsked(ctx context.Context, e *hubEnv, runs []*hubRun) error {
	err := e.tg.WaitContext(ctx, func(f *channeltest.Telegram) bool {
		all := true
		for _, r := range runs {
			if !r.asked {
				r.question, _ = questionOf(f, r.name)
				r.asked = r.question.ID != 0
			}
			all = all && r.asked
		}
		return all
	})
	if err != nil {
		var missing []string
		for _, r := range runs {
			if !r.asked {
				missing = append(missing, r.name+": "+strings.TrimSpace(r.out.String()))
			}
		}
		var sent []string
		e.tg.Snapshot(func(f *channeltest.Telegram) {
			for _, m := range f.Messages() {
				sent = append(sent, fmt.Sprintf("%q", m.Text))
			}
		})
		return fmt.Errorf("WH: %d runs' questions never reached the bot within %v:\n%s\nthe bot got: %s%s",
			len(missing), b.limit, strings.Join(missing, "\n"), strings.Join(sent, ", "), e.hubLog())
	}
	return nil
}

// press presses r's button as a person would: north for even runs, south
// for odd ones; pressed is when the press was queued at the fake.
func (r *hubRun) press(e *hubEnv) {
	k := r.i % 2
	r.want = r.question.Buttons[k].Text
	r.pressID = e.tg.Press(hubBenchChat, hubBenchChat, r.question.ID, r.question.Buttons[k].Data)
	r.pressed = time.Now()
}

// answerOf is how the bot answered r's press ("" before it did).
func answerOf(f *channeltest.Telegram, r *hubRun) string {
	for _, a := range f.Answers() {
		if a.ID == r.pressID {
			return a.Text
		}
	}
	return ""
}

// got is what r's program said it got ("" if nothing yet).
func (r *hubRun) got() string {
	out := r.out.String()
	i := strings.LastIndex(out, "got: ")
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(out[i+len("got: "):], "\n")
	return strings.TrimSpace(line)
}

// pressOutcome is what became of one press.
type pressOutcome int

const (
	typed     pressOutcome = iota // the program read its own option
	misrouted                     // the program read another option than the one pressed
	refused                       // the press was answered as moved on
	lost                          // nothing: the press was taken by no run that typed it
)

// settle waits for r's press to be answered by the bot and, unless it was
// refused, for r to end; it returns what became of the press and, when it
// was typed, the time from the press to the program reading it.
func (b hubBench) settle(ctx context.Context, e *hubEnv, r *hubRun) (pressOutcome, time.Duration, error) {
	var said string
	if e.tg.WaitContext(ctx, func(f *channeltest.Telegram) bool { said = answerOf(f, r); return said != "" }) != nil {
		return lost, 0, nil
	}
	if said == channel.MovedOn {
		return refused, 0, nil
	}
	select {
	case err := <-r.exited:
		r.exited <- err
		if err != nil {
			return lost, 0, fmt.Errorf("WH: %s: clai run: %w\n%s", r.name, err, r.out.String())
		}
	case <-ctx.Done():
		return lost, 0, fmt.Errorf("WH: %s did not end within %v of its press (answered %q):\n%s", r.name, b.limit, said, r.out.String())
	}
	if got := r.got(); got != r.want {
		return misrouted, 0, nil
	}
	read, err := readStamp(r.stamp)
	if err != nil {
		return lost, 0, fmt.Errorf("WH: %s: %w", r.name, err)
	}
	return typed, read.Sub(r.pressed), nil
}
