package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/clai-sh/clai/internal/peer"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/hub"
	"github.com/clai-sh/clai/runner/hublink"
)

// recorder is a channel that keeps the updates of every desk that joins.
type recorder struct {
	mu      sync.Mutex
	updates []ask.Update
	desks   []ask.Desk
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) Name() string                                { return "recorder" }
func (r *recorder) Serve(ctx context.Context, d ask.Desk) error { return nil }

func (r *recorder) ServeAll(ctx context.Context, joins <-chan ask.Desk) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-joins:
			r.mu.Lock()
			r.desks = append(r.desks, d)
			r.mu.Unlock()
			go func() {
				for u := range d.Watch(ctx) {
					r.mu.Lock()
					r.updates = append(r.updates, u)
					r.mu.Unlock()
					select {
					case r.changed <- struct{}{}:
					default:
					}
				}
			}()
		}
	}
}

// wait waits until cond holds of the updates.
func (r *recorder) wait(t *testing.T, what string, cond func([]ask.Update) bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		ok := cond(r.updates)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("%s never came: %+v", what, r.updates)
		}
	}
}

// startHub runs a hub in a folder of the test's own, with rec as its one
// channel, until the test ends.
func startHub(t *testing.T, rec *recorder, log *zap.Logger) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hub")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- hub.Run(ctx, hub.Config{Dir: dir, Host: "here", Channels: []hub.Channel{{Name: "recorder", Channel: rec}}, Log: log})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the hub: %v", err)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for !hublink.Reachable(hublink.Socket(dir)) {
		if time.Now().After(deadline) {
			t.Fatal("the hub never listened")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return dir
}

// link dials the hub in dir and says hello.
func link(t *testing.T, dir string, hello hublink.Hello) *hublink.Conn {
	t.Helper()
	c, err := peer.Dial(t.Context(), hublink.Socket(dir))
	if err != nil {
		t.Fatal(err)
	}
	conn := hublink.NewConn(c)
	t.Cleanup(func() { _ = conn.Close() })
	hello.Version = hublink.Version
	if err := conn.Write(hublink.Frame{Hello: &hello}); err != nil {
		t.Fatal(err)
	}
	return conn
}

func session(id string, q *ask.Question) ask.Session {
	return ask.Session{ID: id, Name: "deploy", Host: "far", PID: 1, State: "prompting", Question: q}
}

func question(id, hash string) *ask.Question {
	return &ask.Question{ID: id, Session: "0123456789ab", Text: "Deploy? [y/n]", ScreenHash: hash}
}

// TestARunThatLinksAgainTellsWhatChangedMeanwhile: a run's link drops
// while its question is open; it links again with the question answered
// meanwhile at its terminal, and later with a new question. The channels
// hear of the question once, of its close as the run says it closed, and
// of the new one: the desk is the same throughout.
func TestARunThatLinksAgainTellsWhatChangedMeanwhile(t *testing.T) {
	rec := newRecorder()
	dir := startHub(t, rec, nil)
	q1 := question("q1", "h1")
	first := link(t, dir, hublink.Hello{Session: session("0123456789ab", q1)})
	rec.wait(t, "q1 asked", func(us []ask.Update) bool {
		return len(us) == 1 && us[0].Kind == ask.UpdateQuestion && us[0].Question.ID == "q1"
	})
	_ = first.Close()

	answered := *q1
	answered.Closed = &ask.Closed{How: ask.Answered, By: "alice", Channel: ask.ChannelTerminal, Sent: "y⏎"}
	link(t, dir, hublink.Hello{Session: session("0123456789ab", nil), Closed: []*ask.Question{&answered}})
	rec.wait(t, "q1 closed as answered at the terminal", func(us []ask.Update) bool {
		return len(us) == 2 && us[1].Kind == ask.UpdateClosed && us[1].Question.ID == "q1" &&
			us[1].Question.Closed.How == ask.Answered && us[1].Question.Closed.By == "alice"
	})
	third := link(t, dir, hublink.Hello{Session: session("0123456789ab", question("q2", "h2"))})
	rec.wait(t, "q2 asked", func(us []ask.Update) bool {
		return len(us) == 3 && us[2].Kind == ask.UpdateQuestion && us[2].Question.ID == "q2"
	})
	// The run's end closes it: the channels hear of the end.
	end := ask.Update{Kind: ask.UpdateEnd, Outcome: "done"}
	if err := third.Write(hublink.Frame{Update: &hublink.Update{Update: end, Session: session("0123456789ab", nil)}}); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "the end", func(us []ask.Update) bool { return len(us) == 4 && us[3].Kind == ask.UpdateEnd })
}

// TestHellosPastTheBoundsAreRefusedAndLogged: a thousand hellos at once;
// the hub takes HelloRate of them in a second, refuses the others with the
// reason and logs each, and still answers afterwards.
func TestHellosPastTheBoundsAreRefusedAndLogged(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	dir := startHub(t, newRecorder(), zap.New(core))
	const n = 1000
	var wg sync.WaitGroup
	refused := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			c, err := peer.Dial(context.Background(), hublink.Socket(dir))
			if err != nil {
				refused <- "dial: " + err.Error()
				return
			}
			conn := hublink.NewConn(c)
			defer conn.Close()
			hello := hublink.Hello{Version: hublink.Version, Session: session(fmt.Sprintf("%012x", i), nil)}
			if err := conn.Write(hublink.Frame{Hello: &hello}); err != nil {
				refused <- "write: " + err.Error()
				return
			}
			f, err := conn.ReadWithin(2 * time.Second)
			if err == nil && f.Refused != "" {
				refused <- f.Refused
			}
		})
	}
	wg.Wait()
	close(refused)
	bounded := 0
	for why := range refused {
		if strings.Contains(why, "registrations in a second") || strings.Contains(why, "runs are registered already") {
			bounded++
		}
	}
	if bounded < n-hub.HelloRate-hub.MaxSessions {
		t.Errorf("%d of %d hellos refused for the bounds", bounded, n)
	}
	if got := logs.FilterMessage(hub.LogRefused).Len(); got < bounded {
		t.Errorf("%d refusals logged, %d refused", got, bounded)
	}
	if !hublink.Reachable(hublink.Socket(dir)) {
		t.Error("the hub does not answer after the flood")
	}
}

// dialHelperEnv makes the test binary a client that dials a hub and says
// what it was told, for TestAnotherUsersConnectionIsRefused.
const dialHelperEnv = "CLAI_HUB_TEST_DIAL"

func TestDialHelper(t *testing.T) {
	socket := os.Getenv(dialHelperEnv)
	if socket == "" {
		t.Skip("a helper of TestAnotherUsersConnectionIsRefused")
	}
	c, err := (&netDialer{}).dial(socket)
	if err != nil {
		fmt.Println("dial:", err)
		return
	}
	conn := hublink.NewConn(c)
	hello := hublink.Hello{Version: hublink.Version, Session: session("0badc0ffee00", nil)}
	_ = conn.Write(hublink.Frame{Hello: &hello})
	f, err := conn.ReadWithin(5 * time.Second)
	b, _ := json.Marshal(f)
	fmt.Println("read:", string(b), err)
}

// TestAnotherUsersConnectionIsRefused: a process of another uid that
// reaches the hub's socket (its folder opened to all, as a careless setup
// might) is refused before a hello is read, and the refusal is logged.
func TestAnotherUsersConnectionIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only root can run a process as another user")
	}
	core, logs := observer.New(zap.InfoLevel)
	rec := newRecorder()
	dir := startHub(t, rec, zap.New(core))
	socket := hublink.Socket(dir)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		t.Fatal(err)
	}
	// The test binary, where the other user may run it.
	bin := filepath.Join(dir, "helper")
	testprog.Place(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^TestDialHelper$", "-test.v")
	cmd.Env = append(os.Environ(), dialHelperEnv+"="+socket)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the helper: %v\n%s", err, out)
	}
	if strings.Contains(string(out), `"hello"`) || strings.Contains(string(out), "status") {
		t.Fatalf("the other user was answered:\n%s", out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for logs.FilterMessage(hub.LogRefused).FilterFieldKey("error").Len() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no refusal logged; the helper said:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if msg := logs.FilterMessage(hub.LogRefused).FilterFieldKey("error").All()[0].ContextMap()["error"]; !strings.Contains(fmt.Sprint(msg), "uid 65534") {
		t.Errorf("the refusal logged: %v", msg)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.updates) != 0 {
		t.Errorf("the other user's run reached the channels: %+v", rec.updates)
	}
}
