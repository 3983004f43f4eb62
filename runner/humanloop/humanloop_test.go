package humanloop_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/channel/channeltest"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/humanloop"
)

// TestRunTellsAPersonAndTakesTheirAnswerFromAPhone embeds clai as the
// package doc says: a real program asks a question; the run, assembled by
// humanloop.Run from a user config with a webhook target and an ntfy
// channel, tells the webhook, publishes the question with a button per
// option, and types the option the phone's press picked.
func TestRunTellsAPersonAndTakesTheirAnswerFromAPhone(t *testing.T) {
	// The run registers in a sessions folder and learns in a state folder
	// of the test's own.
	iso := isolate(t)
	var told lockedBuffer
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		fmt.Fprintf(&told, "%s\n", body)
	}))
	t.Cleanup(hook.Close)
	ntfy := channeltest.NewNtfy(t, "")
	cfg, findings := playbooks.ParseConfig("config.yaml", fmt.Appendf(nil,
		"notify:\n  - webhook: {url: %q}\nchannels:\n  - ntfy: {server: %q, topic: alice-questions}\n", hook.URL, ntfy.URL()))
	if cfg == nil {
		t.Fatal(findings)
	}
	prompter := testprog.Build(t, "prompter")
	pb, findings := playbooks.Parse("deploy.yaml", fmt.Appendf(nil,
		"version: 1\nname: deploy\nspawn:\n  command: [%q, \"-q\", \"Deploy where? [staging/prod] \"]\ntimeouts:\n  prompt: 120s\n  total: 300s\n", prompter))
	if pb == nil {
		t.Fatal(findings)
	}
	var shown, notices lockedBuffer
	type result struct {
		outcome engine.State
		err     error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := humanloop.Run(context.Background(), pb, humanloop.Options{
			Config: cfg, Headless: true, Notices: &notices, Runner: []runner.Option{runner.WithMirror(&shown)},
			SessionsDir: iso.sessions, Environ: append(os.Environ(), "XDG_STATE_HOME="+iso.dir),
		})
		r := result{err: err}
		if rep != nil {
			r.outcome = rep.Outcome
		}
		done <- r
	}()
	var asked channeltest.NtfyMessage
	ntfy.Wait(t, "the question", func(msgs []channeltest.NtfyMessage) bool {
		for _, m := range msgs {
			if len(m.Actions) == 2 {
				asked = m
				return true
			}
		}
		return false
	})
	// The person presses once both have told them: a question answered
	// before its webhook went out is not told there any more.
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(told.String(), "Deploy where?"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the webhook was not told within 60 s:\n%s", told.String())
		}
	}
	if status := ntfy.Press(t, asked.Actions[1]); status != 200 {
		t.Fatalf("the press: status %d", status)
	}
	select {
	case r := <-done:
		if r.err != nil || r.outcome != engine.Done {
			t.Fatalf("the run: %v, %v\n%s\n%s", r.outcome, r.err, shown.String(), notices.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("the run goes on after the press:\n%s", shown.String())
	}
	if got := shown.String(); !strings.Contains(got, "got: prod") || strings.Contains(got, "got: staging") {
		t.Fatalf("the program got:\n%s", got)
	}
	if !strings.Contains(told.String(), "Deploy where?") {
		t.Fatalf("the webhook was told:\n%s", told.String())
	}
	if !strings.Contains(notices.String(), "clai answer") {
		t.Errorf("a headless run that waits for a person says where to answer; it said:\n%s", notices.String())
	}
}

// TestTheProgramInheritsEnviron: Options.Environ is the program's
// environment too, as it is the parts': an embedder that runs a program
// with an environment of its own gives it there.
func TestTheProgramInheritsEnviron(t *testing.T) {
	pb := parsePlaybook(t, "version: 1\nname: env\nspawn: {shell: 'echo \"colour=$CLAI_TEST_COLOUR\"'}\nsteps:\n  - expect: colour=teal\n")
	r := isolate(t).startRun(t, pb, humanloop.Options{Environ: append(os.Environ(), "CLAI_TEST_COLOUR=teal"), Headless: true, Quiet: true})
	if rep := r.waitDone(t); rep.Outcome != "done" {
		t.Fatalf("the program did not see Environ: %+v\n%s", rep, r.shown.String())
	}
}
