package daemon_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/runner/suggest/daemon"
)

// shellEvent is one NDJSON line of a command shell ran in session.
func shellEvent(session, shell, cmd string, at time.Time) string {
	return fmt.Sprintf(`{"v":1,"type":"command","session":%q,"shell":%q,"pid":1,"ts_ms":%d,"cwd":"/elsewhere","cmd":%q,"exit":0,"duration_ms":3}`+"\n",
		session, shell, at.UnixMilli(), cmd)
}

// TestSuggestionsAreOnlyWhatTheAskingShellCanRun stores, after "make", a
// template no shell of bash's kind can read (as a store written before
// templates were checked may hold), a fish loop and a bash conditional: each
// shell is offered what it can run only, the best first, as many as asked
// when there are that many; the shell is the request's, else the one the
// session's hooks named.
func TestSuggestionsAreOnlyWhatTheAskingShellCanRun(t *testing.T) {
	t.Parallel()
	d := start(t, config(t))
	const (
		background = "sleep 5 &; echo done" // fish reads "&;", bash does not
		fishLoop   = "for f in *.go; gofmt -l $f; end"
		bashIf     = "if test -f go.mod; then go test; fi"
		plain      = "git status"
	)
	var lines []string
	at := time.Now()
	for _, c := range []struct {
		cmd   string
		times int
	}{{background, 4}, {fishLoop, 3}, {bashIf, 2}, {plain, 1}} {
		for range c.times {
			lines = append(lines, shellEvent("b", "bash", "make", at), shellEvent("b", "bash", c.cmd, at.Add(time.Second)))
			at = at.Add(2 * time.Second)
		}
	}
	lines = append(lines, shellEvent("f", "fish", "pwd", at))
	if accepted, _ := d.ingest(t, lines...); accepted != len(lines) {
		t.Fatalf("ingest took %d of %d", accepted, len(lines))
	}
	cases := []struct {
		req  daemon.SuggestRequest
		want []string
	}{
		{daemon.SuggestRequest{Shell: "bash"}, []string{bashIf, plain}},
		{daemon.SuggestRequest{Shell: "zsh"}, []string{bashIf, plain}},
		{daemon.SuggestRequest{Shell: "fish"}, []string{background, fishLoop, plain}},
		{daemon.SuggestRequest{Shell: "/usr/bin/fish"}, []string{background, fishLoop, plain}},
		{daemon.SuggestRequest{}, []string{bashIf, plain}},
		{daemon.SuggestRequest{Session: "b"}, []string{bashIf, plain}},
		{daemon.SuggestRequest{Session: "f"}, []string{background, fishLoop, plain}},
		{daemon.SuggestRequest{Session: "f", Shell: "bash"}, []string{bashIf, plain}},
		{daemon.SuggestRequest{Shell: "bash", Limit: 1}, []string{bashIf}},
		{daemon.SuggestRequest{Shell: "fish", Limit: 2}, []string{background, fishLoop}},
	}
	for _, c := range cases {
		c.req.Cwd, c.req.LastCmd = "/elsewhere", "make"
		reply, err := d.client.Suggest(t.Context(), c.req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range reply.Suggestions {
			got = append(got, s.Command)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("shell %q, session %q, limit %d: suggested %q, want %q", c.req.Shell, c.req.Session, c.req.Limit, got, c.want)
		}
	}
	// The daemon logs before it answers: the line is there already.
	if !logged(d.log, `left out "sleep 5 &; echo done"`) {
		t.Error("the daemon did not log the suggestion it left out")
	}
}

// logged reports whether a line of the log so far contains s.
func logged(l logLines, s string) bool {
	for {
		select {
		case line := <-l:
			if strings.Contains(line, s) {
				return true
			}
		default:
			return false
		}
	}
}
