package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/pidlock"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/hub"
)

// hubRun is a clai run of a test, asking one question on the hub's bot.
type hubRun struct {
	name   string
	out    *lockedBuffer
	exited <-chan error
	pid    int
}

// startAsking starts a clai run named name whose program asks "NAME: where?
// [OPTION/OPTION]" once, and prints what it got.
func (e *sessionsEnv) startAsking(t *testing.T, name string, options ...string) *hubRun {
	t.Helper()
	prompter := testprog.Build(t, "prompter")
	src := fmt.Sprintf("version: 1\nname: %s\nspawn:\n  command: [%q, \"-q\", \"%s: where? [%s] \"]\ntimeouts:\n  prompt: 120s\n  total: 300s\n",
		name, prompter, name, strings.Join(options, "/"))
	return e.startPlaybook(t, name, src)
}

// startPlaybook starts clai run of the playbook src, written as NAME.yaml,
// with its output read while it runs.
func (e *sessionsEnv) startPlaybook(t *testing.T, name, src string) *hubRun {
	t.Helper()
	pb := filepath.Join(e.dir, name+".yaml")
	if err := os.WriteFile(pb, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := new(lockedBuffer)
	cmd := exec.Command(e.bin, "run", "--log", filepath.Join(e.dir, name+".log"), pb)
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return &hubRun{name: name, out: out, exited: exited, pid: cmd.Process.Pid}
}

// questionsOf are the messages with buttons that ask run's question.
func questionsOf(f *channeltest.Telegram, name string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range f.Messages() {
		if len(m.Buttons) > 0 && strings.Contains(m.Text, name+": where?") {
			out = append(out, m)
		}
	}
	return out
}

// waitAsked waits until run's question reached the bot, and returns it.
func waitAsked(t *testing.T, tg *channeltest.Telegram, r *hubRun) channeltest.Message {
	t.Helper()
	var asked channeltest.Message
	tg.Wait(t, r.name+"'s question", func(f *channeltest.Telegram) bool {
		if qs := questionsOf(f, r.name); len(qs) > 0 {
			asked = qs[0]
			return true
		}
		return false
	})
	return asked
}

// waitExit waits for run's end, which must be a success.
func (r *hubRun) waitExit(t *testing.T) {
	t.Helper()
	select {
	case err := <-r.exited:
		if err != nil {
			t.Fatalf("clai run %s: %v\n%s", r.name, err, r.out)
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("clai run %s still runs:\n%s", r.name, r.out)
	}
}

// TestRunsShareOneBotThroughTheHub: three clai runs at once, one Telegram
// bot and one ntfy topic: the first run starts the hub, which polls the bot
// and reads the reply topic once for all of them; each question arrives
// once on each, naming its machine, and each press (two on Telegram, one
// on ntfy) types its option into the program it was made for, none refused
// as moved on. The bot sees one poller: no getUpdates is ended by
// another's.
func TestRunsShareOneBotThroughTheHub(t *testing.T) {
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	ntfy := channeltest.NewNtfy(t, "")
	e := newSessionsEnv(t)
	e.telegramChannel(t, tg, token, chat)
	config := filepath.Join(e.dir, "config", "clai", "config.yaml")
	both := fmt.Sprintf("channels:\n  - telegram:\n      token: env:CLAI_TEST_TG\n      chats: [%d]\n      base_url: %q\n"+
		"  - ntfy:\n      server: %q\n      topic: alice-questions\n", chat, tg.URL(), ntfy.URL())
	if err := os.WriteFile(config, []byte(both), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "CLAI_HOST=laptop")
	runs := []*hubRun{
		e.startAsking(t, "alpha", "north", "south"),
		e.startAsking(t, "bravo", "east", "west"),
		e.startAsking(t, "charlie", "up", "down"),
	}
	asked := map[string]channeltest.Message{}
	for _, r := range runs {
		asked[r.name] = waitAsked(t, tg, r)
	}
	published := map[string]channeltest.NtfyMessage{}
	ntfy.Wait(t, "every question published", func(msgs []channeltest.NtfyMessage) bool {
		for _, m := range msgs {
			for _, r := range runs {
				if len(m.Actions) > 0 && strings.Contains(m.Message, r.name+": where?") {
					published[r.name] = m
				}
			}
		}
		return len(published) == len(runs)
	})
	want := map[string]string{}
	for i, r := range runs {
		m := asked[r.name]
		if !strings.Contains(m.Text, "on laptop") {
			t.Errorf("%s's question does not name its machine:\n%s", r.name, m.Text)
		}
		if r.name == "bravo" {
			want[r.name] = published[r.name].Actions[1].Label
			if status := ntfy.Press(t, published[r.name].Actions[1]); status != 200 {
				t.Fatalf("the ntfy press: status %d", status)
			}
			continue
		}
		want[r.name] = m.Buttons[i%2].Text
		tg.Press(chat, chat, m.ID, m.Buttons[i%2].Data)
	}
	for _, r := range runs {
		r.waitExit(t)
		if got := r.out.String(); !strings.Contains(got, "got: "+want[r.name]+"\r\n") {
			t.Errorf("%s's program got %q, want %q", r.name, got, want[r.name])
		}
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		for _, r := range runs {
			if n := len(questionsOf(f, r.name)); n != 1 {
				t.Errorf("%s's question was sent %d times", r.name, n)
			}
		}
		for _, a := range f.Answers() {
			if !strings.HasPrefix(a.Text, "sent: ") {
				t.Errorf("a press was answered %q", a.Text)
			}
		}
		if n := f.Conflicts(); n != 0 {
			t.Errorf("%d getUpdates ended by another: the bot had more than one poller", n)
		}
	})
	ntfy.Wait(t, "each question published once", func(msgs []channeltest.NtfyMessage) bool {
		for _, r := range runs {
			n := 0
			for _, m := range msgs {
				if len(m.Actions) > 0 && strings.Contains(m.Message, r.name+": where?") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s's question was published %d times", r.name, n)
			}
		}
		return true
	})
}

// hubPID is the process of the hub of e, as its lock says.
func (e *sessionsEnv) hubPID(t *testing.T) int {
	t.Helper()
	pid := pidlock.Holder(hub.LockPath(filepath.Join(e.runtime, "clai")))
	if pid == 0 {
		t.Fatal("the hub's lock names no process")
	}
	return pid
}

// waitUntil waits until cond holds; a generous deadline only catches a
// hang, and then what says what never came.
func waitUntil(t *testing.T, cond func() bool, what func() string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The bot of the hub tests: its token and its one chat.
const (
	hubToken = "123456:AAHsecret-token_value"
	hubChat  = 4242
)

// oneRunAsking starts a run whose program asks one question, with a user
// config whose one channel is a fake bot, and waits until the hub asked it
// there.
func oneRunAsking(t *testing.T) (*sessionsEnv, *channeltest.Telegram, *hubRun, channeltest.Message) {
	t.Helper()
	tg := channeltest.NewTelegram(t, hubToken)
	e := newSessionsEnv(t)
	e.telegramChannel(t, tg, hubToken, hubChat)
	r := e.startAsking(t, "alpha", "north", "south")
	return e, tg, r, waitAsked(t, tg, r)
}

// TestTheHubKilledLosesNothing: a run waits at a question its hub sent to
// the bot; the hub is killed with SIGKILL. The run starts a new hub and
// links to it; the question is not sent again (the ledger knows it was),
// and a press of the first message's button, taken by the new hub, types
// the option once.
func TestTheHubKilledLosesNothing(t *testing.T) {
	e, tg, r, m := oneRunAsking(t)
	// The hub writes its ledger once the Bot API answered the send: killed
	// before, it sends the message again (docs/hub.md says so).
	state := filepath.Join(e.runtime, "clai", hub.StateName)
	ledger := func() string { b, _ := os.ReadFile(state); return string(b) }
	waitUntil(t, func() bool { return strings.Contains(ledger(), `"data":"`+strconv.FormatInt(m.ID, 10)+`"`) },
		func() string { return "the hub's ledger never had the message: " + ledger() })
	first := e.hubPID(t)
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The run links to a hub of its own starting, which takes the lock.
	waitUntil(t, func() bool { return e.hubStatus(t) != "" }, func() string { return "no hub answers after the first was killed:\n" + r.out.String() })
	if again := e.hubPID(t); again == first {
		t.Fatalf("the hub's lock still names the killed hub %d", first)
	}
	// The new hub has the run again before the press.
	waitUntil(t, func() bool { return strings.Contains(e.hubStatus(t), "1 sessions") },
		func() string { return "the run did not link to the new hub: " + e.hubStatus(t) + "\n" + r.out.String() })
	tg.Press(hubChat, hubChat, m.ID, m.Buttons[1].Data)
	r.waitExit(t)
	if got := r.out.String(); strings.Count(got, "got: ") != 1 || !strings.Contains(got, "got: south\r\n") {
		t.Errorf("the program got:\n%s", got)
	}
	tg.Snapshot(func(f *channeltest.Telegram) {
		if n := len(questionsOf(f, "alpha")); n != 1 {
			t.Errorf("the question was sent %d times", n)
		}
	})
}

// hubStatus is clai hub status's output, "" when no hub answers.
func (e *sessionsEnv) hubStatus(t *testing.T) string {
	t.Helper()
	out, _, code := e.clai(t, "hub", "status")
	if code != 0 {
		return ""
	}
	return out
}

// TestARunKilledClosesItsQuestionEverywhere: a run killed with SIGKILL while
// its question is on the phone: the hub sees its process gone, and the
// message is edited to say the run ended; a press of it is refused as moved
// on.
func TestARunKilledClosesItsQuestionEverywhere(t *testing.T) {
	_, tg, r, m := oneRunAsking(t)
	if err := syscall.Kill(r.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tg.Wait(t, "the message edited as ended", func(f *channeltest.Telegram) bool {
		for _, ed := range f.Edits() {
			if ed.ID == m.ID && strings.Contains(ed.Text, "closed: the run ended") {
				return true
			}
		}
		return false
	})
	id := tg.Press(hubChat, hubChat, m.ID, m.Buttons[0].Data)
	tg.Wait(t, "the press answered", func(f *channeltest.Telegram) bool {
		for _, a := range f.Answers() {
			if a.ID == id {
				return a.Text == channel.MovedOn
			}
		}
		return false
	})
}
