//go:build e2e

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/internal/testsshd"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/hublink"
)

// sshHang bounds a wait of the two-machine test: long past any backoff,
// it only catches a hang.
const sshHang = 90 * time.Second

// startAskingOn starts a clai run named name whose playbook has the line
// extra ("" for none) and whose program asks each of questions in turn
// ("NAME: QUESTION"), printing "got: X" after each answer.
func (e *sessionsEnv) startAskingOn(t *testing.T, name, extra string, questions ...string) *hubRun {
	t.Helper()
	prompter := testprog.Build(t, "prompter")
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "%q", prompter)
	for _, q := range questions {
		fmt.Fprintf(&cmd, ", \"-q\", \"%s: %s \"", name, q)
	}
	src := fmt.Sprintf("version: 1\nname: %s\n%sspawn:\n  command: [%s]\ntimeouts:\n  prompt: 300s\n  total: 600s\n",
		name, extra, cmd.String())
	return e.startPlaybook(t, name, src)
}

// asking are the messages with buttons whose question holds text: the
// screen excerpt below it is left out, which shows the questions before.
func asking(f *channeltest.Telegram, text string) []channeltest.Message {
	var out []channeltest.Message
	for _, m := range f.Messages() {
		question, _, _ := strings.Cut(m.Text, "\n--- screen ---")
		if len(m.Buttons) > 0 && strings.Contains(question, text) {
			out = append(out, m)
		}
	}
	return out
}

// waitAsking waits until a message with buttons holding text reached the
// bot, and returns the first.
func waitAsking(t *testing.T, tg *channeltest.Telegram, text string) channeltest.Message {
	t.Helper()
	var asked channeltest.Message
	tg.Wait(t, "the question "+text, func(f *channeltest.Telegram) bool {
		if qs := asking(f, text); len(qs) > 0 {
			asked = qs[0]
			return true
		}
		return false
	})
	return asked
}

// button is the button of m labelled label.
func button(t *testing.T, m channeltest.Message, label string) string {
	t.Helper()
	for _, b := range m.Buttons {
		if b.Text == label {
			return b.Data
		}
	}
	t.Fatalf("no button %q in %+v", label, m.Buttons)
	return ""
}

// waitPressAnswered waits for the answer to the press id, and returns its
// text.
func waitPressAnswered(t *testing.T, tg *channeltest.Telegram, id string) string {
	t.Helper()
	var text string
	tg.Wait(t, "the press "+id+" answered", func(f *channeltest.Telegram) bool {
		for _, a := range f.Answers() {
			if a.ID == id {
				text = a.Text
				return true
			}
		}
		return false
	})
	return text
}

// waitSession waits until clai sessions of e lists a session named name
// whose open question holds text, and returns it.
func (e *sessionsEnv) waitSession(t *testing.T, name, text string) ask.Session {
	t.Helper()
	deadline := time.Now().Add(sshHang)
	for {
		list := e.sessions(t)
		for _, s := range list {
			if s.Name == name && s.Question != nil && strings.Contains(s.Question.Text, text) {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("clai sessions never listed %s asking %q: %+v", name, text, list)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dashboardSees reads the dashboard's events at url (as clai dashboard
// printed it) until a session event has named each of ids.
func dashboardSees(t *testing.T, url string, ids ...string) {
	t.Helper()
	base, token, ok := strings.Cut(url, "/?token=")
	if !ok {
		t.Fatalf("a dashboard URL without its token: %s", url)
	}
	ctx, cancel := context.WithTimeout(t.Context(), sshHang)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Clai-Token", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the dashboard's events: %s", resp.Status)
	}
	missing := map[string]bool{}
	for _, id := range ids {
		missing[id] = true
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for len(missing) > 0 && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var view struct {
			Session ask.Session `json:"session"`
		}
		if json.Unmarshal([]byte(data), &view) == nil {
			delete(missing, view.Session.ID)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the dashboard never showed %v (%v)", missing, sc.Err())
	}
}

// joinProc is a clai hub join of a test, in the background.
type joinProc struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan error
}

// startJoin starts clai hub join on e's machine to the sshd srv, whose
// sessions run remoteClai, and stops it when the test ends: it must remove
// e's hub socket and leave no ssh behind.
func (e *sessionsEnv) startJoin(t *testing.T, srv *testsshd.Server, remoteClai string) *joinProc {
	t.Helper()
	out := new(lockedBuffer)
	cmd := exec.Command(e.bin, "hub", "join", "-o", strings.Join(srv.SSHArgs(), " "), "--remote-clai", remoteClai, srv.Target())
	cmd.Env, cmd.Stdout, cmd.Stderr = e.env, out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j := &joinProc{cmd: cmd, out: out, exited: make(chan error, 1)}
	go func() { j.exited <- cmd.Wait() }()
	socket := hublink.Socket(filepath.Join(e.runtime, "clai"))
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-j.exited:
			if err != nil {
				t.Errorf("clai hub join ended with %v:\n%s", err, out)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("clai hub join did not end on SIGTERM:\n%s", out)
			return
		}
		if _, err := os.Lstat(socket); err == nil {
			t.Errorf("clai hub join left %s behind", socket)
		}
		if pids := processesWith(socket); len(pids) > 0 {
			t.Errorf("clai hub join left processes behind that forward %s: %v", socket, pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return j
}

// waitSaid waits until the join has said want n times at least.
func (j *joinProc) waitSaid(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(sshHang)
	for strings.Count(j.out.String(), want) < n {
		select {
		case err := <-j.exited:
			t.Fatalf("clai hub join ended (%v) before it said %q %d times:\n%s", err, want, n, j.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("clai hub join did not say %q %d times:\n%s", want, n, j.out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesWith are the processes whose command line holds s, where /proc
// says so.
func processesWith(s string) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !bytes.Contains(b, []byte(s)) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(d, "/proc/%d/cmdline", &pid); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestHubTwoMachinesOneBotOverSSH: two machines, simulated by two runtime
// folders and a real sshd on loopback, one Telegram bot. The laptop's runs
// start its hub; the build box joins it with clai hub join and has no
// channel of its own. Each question reaches the bot once, naming its
// machine; each press types into the program it was made for; the laptop's
// clai sessions lists the build box's run as buildbox/ID, and clai answer
// there answers it. Then the link is cut: a run started on the build box
// meanwhile is answerable there, and reaches the phone once the join links
// again; a question answered on the build box while the link was down is
// closed on the phone, never asked as open again.
func TestHubTwoMachinesOneBotOverSSH(t *testing.T) {
	const token, chat = "123456:AAHsecret-token_value", 4242
	tg := channeltest.NewTelegram(t, token)
	laptop := newSessionsEnv(t)
	laptop.telegramChannel(t, tg, token, chat)
	laptop.env = append(laptop.env, "CLAI_HOST=laptop")
	t.Cleanup(func() {
		if t.Failed() {
			tg.Snapshot(func(f *channeltest.Telegram) {
				t.Logf("the bot's messages: %+v\nits edits: %+v\nthe presses answered: %+v", f.Messages(), f.Edits(), f.Answers())
			})
		}
	})
	box := newSessionsEnv(t)
	box.env = append(box.env, "CLAI_HOST=buildbox", "XDG_CONFIG_HOME="+filepath.Join(box.dir, "config"))

	// The laptop's runs start its hub, outside any SSH session: the sshd's
	// Stop below ends every process its sessions started.
	alpha := laptop.startAskingOn(t, "alpha", "", "where? [north/south]")
	bravo := laptop.startAskingOn(t, "bravo", "", "where? [east/west]")
	alphaQ := waitAsking(t, tg, "alpha: where?")
	bravoQ := waitAsking(t, tg, "bravo: where?")

	// A command over SSH runs on the laptop: its runtime folder, config and
	// name.
	srv := testsshd.Start(t,
		"XDG_RUNTIME_DIR="+laptop.runtime, "XDG_STATE_HOME="+laptop.dir,
		"XDG_CONFIG_HOME="+filepath.Join(laptop.dir, "config"), "CLAI_TEST_TG="+token, "CLAI_HOST=laptop",
		"PATH="+filepath.Dir(laptop.bin)+":/usr/local/bin:/usr/bin:/bin")
	join := box.startJoin(t, srv, laptop.bin)
	join.waitSaid(t, "joined the hub", 1)

	// The build box's run links to the laptop's hub through the join: its
	// config has no channel, and its playbook names none.
	charlie := box.startAskingOn(t, "charlie", "", "where? [up/down]", "when? [now/later]")
	charlieQ := waitAsking(t, tg, "charlie: where?")
	// And one more, asked on the phone before the link is cut.
	echo := box.startAskingOn(t, "echo", "channels: [telegram]\n", "where? [left/right]", "when? [soon/never]")
	echoQ := waitAsking(t, tg, "echo: where?")
	for m, host := range map[*channeltest.Message]string{&alphaQ: "laptop", &bravoQ: "laptop", &charlieQ: "buildbox", &echoQ: "buildbox"} {
		if !strings.Contains(m.Text, "on "+host) {
			t.Errorf("a question does not name its machine %s:\n%s", host, m.Text)
		}
	}

	// The laptop lists the build box's runs as its own, named buildbox/ID.
	remote := laptop.waitSession(t, "charlie", "charlie: where?")
	if !strings.HasPrefix(remote.ID, "buildbox/") || remote.Host != "buildbox" {
		t.Errorf("the laptop lists the build box's run as %q on %q", remote.ID, remote.Host)
	}
	names := map[string]string{}
	for _, s := range laptop.sessions(t) {
		names[s.Name] = s.ID
	}
	for _, name := range []string{"alpha", "bravo", "charlie", "echo"} {
		if names[name] == "" {
			t.Fatalf("the laptop's clai sessions does not list %s: %v", name, names)
		}
	}
	// And so does its dashboard.
	dashboardSees(t, laptop.startDashboard(t), names["alpha"], names["bravo"], names["charlie"], names["echo"])

	// Each press types into its own program, on either machine.
	tg.Press(chat, chat, alphaQ.ID, button(t, alphaQ, "south"))
	tg.Press(chat, chat, bravoQ.ID, button(t, bravoQ, "east"))
	tg.Press(chat, chat, charlieQ.ID, button(t, charlieQ, "down"))
	alpha.waitExit(t)
	bravo.waitExit(t)
	for r, want := range map[*hubRun]string{alpha: "got: south\r\n", bravo: "got: east\r\n"} {
		if got := r.out.String(); !strings.Contains(got, want) {
			t.Errorf("%s's program got %q, want %q", r.name, got, want)
		}
	}
	// clai answer on the laptop answers the build box's run by HOST/ID.
	remote = laptop.waitSession(t, "charlie", "charlie: when?")
	if _, stderr, code := laptop.clai(t, "answer", remote.ID, "--question", remote.Question.ID, "--choose", "later"); code != 0 {
		t.Fatalf("clai answer %s on the laptop: exit %d\n%s", remote.ID, code, stderr)
	}
	charlie.waitExit(t)
	if got := charlie.out.String(); strings.Count(got, "got: ") != 2 || !strings.Contains(got, "got: down\r\n") || !strings.Contains(got, "got: later\r\n") {
		t.Errorf("charlie's program got:\n%s", got)
	}

	// The link is cut.
	srv.Stop()
	join.waitSaid(t, "is down", 1)
	// A run started meanwhile is answerable on the build box.
	foxtrot := box.startAskingOn(t, "foxtrot", "channels: [telegram]\n", "where? [in/out]")
	box.waitSession(t, "foxtrot", "foxtrot: where?")
	// echo's question, asked on the phone, is answered on the build box.
	local := box.waitSession(t, "echo", "echo: where?")
	if _, stderr, code := box.clai(t, "answer", local.ID, "--question", local.Question.ID, "--choose", "left"); code != 0 {
		t.Fatalf("clai answer on the build box: exit %d\n%s", code, stderr)
	}
	box.waitSession(t, "echo", "echo: when?")

	// The link is back: the join links again, and the runs with it.
	srv.Restart()
	join.waitSaid(t, "joined the hub", 2)
	foxtrotQ := waitAsking(t, tg, "foxtrot: where?")
	if !strings.Contains(foxtrotQ.Text, "on buildbox") {
		t.Errorf("foxtrot's question does not name its machine:\n%s", foxtrotQ.Text)
	}
	echoQ2 := waitAsking(t, tg, "echo: when?")
	tg.Wait(t, "echo's first question closed on the phone", func(f *channeltest.Telegram) bool {
		for _, ed := range f.Edits() {
			if ed.ID == echoQ.ID && strings.Contains(ed.Text, "answered by") {
				return true
			}
		}
		return false
	})
	// A press of the question answered meanwhile types nothing.
	if text := waitPressAnswered(t, tg, tg.Press(chat, chat, echoQ.ID, button(t, echoQ, "right"))); text != channel.MovedOn {
		t.Errorf("a press of echo's question answered on the build box was answered %q", text)
	}
	tg.Press(chat, chat, foxtrotQ.ID, button(t, foxtrotQ, "out"))
	tg.Press(chat, chat, echoQ2.ID, button(t, echoQ2, "never"))
	foxtrot.waitExit(t)
	echo.waitExit(t)
	if got := foxtrot.out.String(); strings.Count(got, "got: ") != 1 || !strings.Contains(got, "got: out\r\n") {
		t.Errorf("foxtrot's program got:\n%s", got)
	}
	if got := echo.out.String(); strings.Count(got, "got: ") != 2 || !strings.Contains(got, "got: left\r\n") || !strings.Contains(got, "got: never\r\n") {
		t.Errorf("echo's program got:\n%s", got)
	}

	tg.Snapshot(func(f *channeltest.Telegram) {
		for _, q := range []string{"alpha: where?", "bravo: where?", "charlie: where?", "echo: where?", "echo: when?", "foxtrot: where?"} {
			if n := len(asking(f, q)); n != 1 {
				t.Errorf("%q was sent %d times", q, n)
			}
		}
		if n := f.Conflicts(); n != 0 {
			t.Errorf("%d getUpdates ended by another: the bot had more than one poller", n)
		}
	})
	if t.Failed() {
		t.Logf("clai hub join said:\n%s", join.out)
	}
}
