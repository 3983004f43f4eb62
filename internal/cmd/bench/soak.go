package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// The soak, W12: one real run of a program that draws a clock every 200 ms
// while it asks three questions, each answered soakAnswerIn after it opens,
// with a webhook target that fails soakFailRate of its requests and an ntfy
// server that is down for the first soakNtfyDown.
const (
	soakAnswerIn = 20 * time.Second
	soakFailRate = 0.3
	soakNtfyDown = 5 * time.Second
	soakLimit    = 5 * time.Minute
)

// soakPrompts are the program's questions and the answer each gets.
var soakPrompts = []struct{ prompt, answer string }{
	{"Migrate now? [y/N] ", "y"},
	{"Name: ", "alice"},
	{"Continue? [y/N] ", "N"},
}

// delivery counts what one target got of one question: the question, its
// close, and when the question first arrived.
type delivery struct {
	asked, closed int
	first         time.Time
}

// deliveries is what a target got, by question id.
type deliveries struct {
	mu sync.Mutex
	by map[string]*delivery
}

func (d *deliveries) add(id string, closed bool, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.by == nil {
		d.by = map[string]*delivery{}
	}
	x := d.by[id]
	if x == nil {
		x = &delivery{}
		d.by[id] = x
	}
	if closed {
		x.closed++
		return
	}
	x.asked++
	if x.first.IsZero() {
		x.first = at
	}
}

// flakyHook is a webhook that refuses a share of its requests with 503, at
// random from a fixed seed, and counts what it took.
type flakyHook struct {
	*hook
	got      deliveries
	mu       sync.Mutex
	rng      *rand.Rand
	refused  int
	requests int
}

func startFlakyHook(rate float64) (*flakyHook, error) {
	f := &flakyHook{rng: rand.New(rand.NewPCG(12, 34))}
	h, err := startRefusingHook(func(a arrival) {
		if a.n.Question != nil {
			f.got.add(a.n.Question.ID, a.n.Event == notify.EventClosed, a.at)
		}
	}, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.requests++
		refuse := f.rng.Float64() < rate
		if refuse {
			f.refused++
		}
		return refuse
	})
	if err != nil {
		return nil, err
	}
	f.hook = h
	return f, nil
}

// fakeNtfy is an ntfy server that starts late: its address is taken at once,
// and it serves from up on. It counts the questions published and their
// follow-ups, and holds subscriptions open.
type fakeNtfy struct {
	addr   string
	up     time.Time
	server *http.Server
	got    deliveries
}

// closedTitle is the title of an ntfy follow-up on a question that closed;
// answerCommand the clai answer command of a question without buttons.
var (
	closedTitle   = regexp.MustCompile(`question (q\d+) closed`)
	answerCommand = regexp.MustCompile(`--question (q\d+) `)
)

func (f *fakeNtfy) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if r.Method == http.MethodGet {
		// A subscription: open, then nothing until it is dropped.
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintf(w, `{"id":"open","time":%d,"event":"open","topic":"reply"}`+"\n", at.Unix())
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		<-r.Context().Done()
		return
	}
	var msg struct {
		Title   string `json:"title"`
		Message string `json:"message"`
		Actions []struct {
			Body string `json:"body"`
		} `json:"actions"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch m := closedTitle.FindStringSubmatch(msg.Title); {
	case m != nil:
		f.got.add(m[1], true, at)
	case len(msg.Actions) > 0:
		if b, err := channel.ParseButton(msg.Actions[0].Body); err == nil {
			f.got.add(b.Question, false, at)
		}
	default:
		// A question without buttons says the clai answer command for it.
		if m := answerCommand.FindStringSubmatch(msg.Message); m != nil {
			f.got.add(m[1], false, at)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"m%d","time":%d,"event":"message"}`, at.UnixNano(), at.Unix())
}

// startAfter serves from d on, at the address taken now.
func (f *fakeNtfy) startAfter(d time.Duration) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f.addr = ln.Addr().String()
	_ = ln.Close() // down until d has passed: connections are refused
	f.server = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(f.serve)}
	done := make(chan struct{})
	timer := time.AfterFunc(d, func() {
		defer close(done)
		ln, err := net.Listen("tcp", f.addr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "W12: the ntfy server could not take its address again: %v\n", err)
			return
		}
		f.up = time.Now()
		_ = f.server.Serve(ln)
	})
	return func() {
		if timer.Stop() {
			close(done)
		}
		_ = f.server.Close()
		<-done
	}, nil
}

// soakQuestion is a question of the run's report.
type soakQuestion struct {
	ID      string    `json:"id"`
	AskedAt time.Time `json:"asked_at"`
	Closed  *struct {
		How string `json:"how"`
	} `json:"closed"`
}

// benchSoak runs W12 once and prints what a person would have seen.
func benchSoak(clai, prompter, dir string) error {
	fmt.Printf("\nW12 soak: a clock every 200 ms, three questions each answered %v after it opens; a webhook failing %.0f%% of requests, ntfy down for the first %v:\n",
		soakAnswerIn, 100*soakFailRate, soakNtfyDown)
	work, err := os.MkdirTemp(dir, "w12-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	hook, err := startFlakyHook(soakFailRate)
	if err != nil {
		return err
	}
	defer hook.Close()
	ntfy := &fakeNtfy{}
	start := time.Now()
	stopNtfy, err := ntfy.startAfter(soakNtfyDown)
	if err != nil {
		return err
	}
	defer stopNtfy()

	config := filepath.Join(work, "config", "clai", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(config, fmt.Appendf(nil, "channels:\n  - ntfy:\n      topic: soak-questions\n      server: http://%s\n", ntfy.addr), 0o600); err != nil {
		return err
	}
	args := []string{prompter, "-tick", "200ms"}
	for _, p := range soakPrompts {
		args = append(args, "-q", p.prompt)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	pb := filepath.Join(work, "soak.yaml")
	if err := os.WriteFile(pb, fmt.Appendf(nil, `version: 1
name: soak
spawn: {command: [%s]}
settings: {settle: 300ms}
timeouts: {prompt: 2m, total: 4m}
notify:
  - webhook: {url: %q}
`, strings.Join(quoted, ", "), hook.url), 0o644); err != nil {
		return err
	}
	report := filepath.Join(work, "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), soakLimit)
	defer cancel()
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(work, "config"))
	var out bytes.Buffer
	run := exec.CommandContext(ctx, clai, "run", "-q", "--remote", "--report", report, pb)
	run.Env, run.Stdout, run.Stderr = env, &out, &out
	if err := run.Start(); err != nil {
		return fmt.Errorf("W12: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	answered, err := answerSoak(ctx, clai, env, exited)
	if err != nil {
		return fmt.Errorf("W12: %w\n%s", err, out.String())
	}
	if err := <-exited; err != nil {
		return fmt.Errorf("W12: clai run: %w\n%s", err, out.String())
	}
	wall := time.Since(start)
	// What is still on its way to a target is delivered within the sender's
	// grace at the end; the run has ended, so all is in.
	var rep struct {
		Questions []soakQuestion `json:"questions"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return fmt.Errorf("W12: the report: %w", err)
	}
	printSoak(rep.Questions, answered, wall, hook, ntfy)
	return nil
}

// answerSoak answers each question of the soak's session soakAnswerIn after
// it opened, with clai answer, until the run ends; it returns how many it
// answered.
func answerSoak(ctx context.Context, clai string, env []string, exited <-chan error) (int, error) {
	answered := 0
	done := map[string]bool{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for answered < len(soakPrompts) {
		select {
		case <-ctx.Done():
			return answered, fmt.Errorf("%d of %d questions answered within %v", answered, len(soakPrompts), soakLimit)
		case err := <-exited:
			return answered, fmt.Errorf("the run ended after %d answers: %v", answered, err)
		case <-tick.C:
		}
		list := exec.CommandContext(ctx, clai, "sessions", "--json")
		list.Env = env
		raw, err := list.Output()
		if err != nil {
			continue // the run may not be registered yet
		}
		var sessions []ask.Session
		if err := json.Unmarshal(raw, &sessions); err != nil {
			return answered, fmt.Errorf("clai sessions --json: %w", err)
		}
		for _, s := range sessions {
			q := s.Question
			if s.Name != "soak" || q == nil || done[q.ID] || time.Since(q.AskedAt) < soakAnswerIn {
				continue
			}
			p := soakPrompts[min(answered, len(soakPrompts)-1)]
			a := exec.CommandContext(ctx, clai, "answer", s.ID, "--question", q.ID, p.answer)
			a.Env = env
			if msg, err := a.CombinedOutput(); err != nil {
				return answered, fmt.Errorf("clai answer %s: %v: %s", q.ID, err, msg)
			}
			done[q.ID] = true
			answered++
		}
	}
	return answered, nil
}

// printSoak prints, per target, notifications per question, the largest
// delay from a question opening (or the target coming up) to its delivery,
// and the questions lost.
func printSoak(qs []soakQuestion, answered int, wall time.Duration, hook *flakyHook, ntfy *fakeNtfy) {
	fmt.Printf("  %d questions for %d prompts (%.2f per prompt, target 1.00), %d answered, the run took %v\n",
		len(qs), len(soakPrompts), float64(len(qs))/float64(len(soakPrompts)), answered, wall.Round(time.Second))
	hook.mu.Lock()
	fmt.Printf("  the webhook refused %d of %d requests\n", hook.refused, hook.requests)
	hook.mu.Unlock()
	for _, t := range []struct {
		name string
		got  *deliveries
		up   time.Time
	}{{"webhook", &hook.got, time.Time{}}, {"ntfy", &ntfy.got, ntfy.up}} {
		t.got.mu.Lock()
		var perQuestion, closes []string
		var worst time.Duration
		lost := 0
		for _, q := range qs {
			d := t.got.by[q.ID]
			if d == nil || d.asked == 0 {
				lost++
				perQuestion = append(perQuestion, "0")
				continue
			}
			perQuestion = append(perQuestion, fmt.Sprint(d.asked))
			closes = append(closes, fmt.Sprint(d.closed))
			from := q.AskedAt
			if t.up.After(from) {
				from = t.up
			}
			worst = max(worst, d.first.Sub(from))
		}
		t.got.mu.Unlock()
		fmt.Printf("  %-8s notifications per question %s (target 1 each), closes %s (target 1 each), largest delay to delivery once up %v (target ≤ 2 s + a backoff step), lost %d (target 0)\n",
			t.name, strings.Join(perQuestion, " "), strings.Join(closes, " "), worst.Round(10*time.Millisecond), lost)
	}
	if len(qs) != len(soakPrompts) || slices.ContainsFunc(qs, func(q soakQuestion) bool { return q.Closed == nil }) {
		fmt.Println("  OVER: a prompt was asked more than once, or a question never closed")
	}
}
