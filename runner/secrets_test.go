package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/internal/leakcheck"
	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/report"
)

// The secret property: whatever way a program shows a secret, no artifact of a
// run or of a replay of it holds the secret, 8 characters of it in a row, or
// one of its escaped forms (see internal/leakcheck).

// leakWindow is the playbooks' settings.window: small enough that the last
// output of a timeout is the whole window, whose start a cut left halfway
// through the secret.
const leakWindow = 300

// leakPlaybook is the playbook of the secrets fake: its block is answered with
// a line that repeats the matched group, then a step waits in vain, so the run
// ends at a timeout whose message quotes the last output.
const leakPlaybook = `
version: 1
name: leaks
spawn:
  command: [%q, -way, %s, -cols, "%d", -filler, "%d"]
  size: {rows: 24, cols: %d}
settings: {match: %s, window: %d, settle: 50ms, min_send_interval: 0s}
steps:
  - expect: {regex: '(?s)BEGIN(?P<msg>.*)END'}
    line: "noted {{ match.msg }}"
  - expect: "NEVER SHOWN"
    timeout: 400ms
rules:
  - name: vault
    match: "Vault password:"
    secret: env:CLAI_SECRET
`

// leakCols is the width of the fake's terminal.
const leakCols = 40

func leakPlaybookFor(t *testing.T, program, way, mode, secret string) *playbooks.Playbook {
	return playbook(t, leakPlaybook, program, way, leakCols, leakFiller(secret), leakCols, mode, leakWindow)
}

// leakFiller is how many dots follow the secret shown last, so that the window
// begins halfway through it.
func leakFiller(secret string) int { return leakWindow - len(secret)/2 - 1 }

// artifacts are what a run or a replay wrote, by name.
type artifacts map[string]string

// check fails t for each artifact that shows secret.
func (a artifacts) check(t *testing.T, secret string) {
	t.Helper()
	for name, text := range a {
		if where := leakcheck.Find(text, secret); where != "" {
			t.Errorf("secret %q: the %s shows %s:\n%s", secret, name, where, text)
		}
	}
}

// addReport adds the report, its reason and its three formats.
func (a artifacts) addReport(t *testing.T, prefix string, rep *report.Report) {
	t.Helper()
	a[prefix+"reason"] = rep.Reason
	for _, format := range []string{report.FormatJSON, report.FormatMarkdown, report.FormatHTML} {
		var b bytes.Buffer
		if err := rep.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		a[prefix+"report."+format] = b.String()
	}
}

// leakOptions returns the options that write every artifact, and the artifacts
// to fill in after the run.
func leakOptions(secret string) ([]runner.Option, func(artifacts, string)) {
	var log, notices, mirror syncBuffer
	logger, stop := eventlog.New(zapcore.AddSync(&log), zapcore.DebugLevel, "leaks")
	opts := []runner.Option{
		runner.WithLogger(logger), runner.WithNotices(&notices), runner.WithMirror(&mirror),
		runner.WithEnviron([]string{"CLAI_SECRET=" + secret, "PATH=/usr/bin:/bin"}),
	}
	return opts, func(a artifacts, prefix string) {
		_ = stop()
		a[prefix+"log"], a[prefix+"notices"], a[prefix+"mirror"] = log.String(), notices.String(), mirror.String()
	}
}

// onlcr is output as a terminal passes it on: "\n" becomes "\r\n".
func onlcr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", "\r\n"), "\r\r\n", "\r\n")
}

// leakRecording is what a recording of the secrets fake holds when nothing
// masked it (asciinema's, or clai record's): the block in pieces split at
// random, the terminal's echo of the answer, the secret shown once more.
func leakRecording(r *rand.Rand, way, secret string) *cast.Recording {
	rec := &cast.Recording{Header: cast.Header{Version: 2, Width: leakCols, Height: 24}}
	at := 0.01
	out := func(s string) {
		rec.Events = append(rec.Events, cast.Event{Time: at, Kind: cast.KindOutput, Data: s})
		at += 0.001
	}
	block := onlcr(leakcheck.Block(way, secret, leakCols))
	for len(block) > 0 {
		n := 1 + r.IntN(len(block))
		out(block[:n])
		block = block[n:]
	}
	at = 0.1
	out("noted " + onlcr(leakcheck.Show("crlf", secret)) + "\r\n")
	out("\r\n" + onlcr(leakcheck.Show(way, secret)) + strings.Repeat(".", leakFiller(secret)) + "\r\n")
	rec.Events = append(rec.Events, cast.Event{Time: 1, Kind: cast.KindMarker, Data: "exit 0"})
	return rec
}

// TestSecretsNeverLeakReplay replays many random secrets, shown in every way, in
// stream and screen matching, and checks the log, the notices, the report in
// each format and its reason; and passes the output through the mirror's filter
// in random pieces.
func TestSecretsNeverLeakReplay(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 2))
	for i := range 12 {
		secret := leakcheck.Secret(r)
		for _, way := range leakcheck.Ways() {
			for _, mode := range []string{"stream", "screen"} {
				name := fmt.Sprintf("%d-%s-%s", i, way, mode)
				pb := leakPlaybookFor(t, "fake", way, mode, secret)
				rec := leakRecording(r, way, secret)
				opts, collect := leakOptions(secret)
				rep, err := runner.ReplayRecording(context.Background(), pb, rec, opts...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				a := artifacts{}
				collect(a, "")
				a.addReport(t, "", rep)
				if rep.Outcome != engine.TimedOut {
					t.Errorf("%s: outcome %s (%s), want a timeout", name, rep.Outcome, rep.Reason)
				}
				a.check(t, secret)
			}
		}
	}
}

// TestSecretsNeverLeakMirror passes random secrets, shown in every way and cut
// into random pieces, through the filter of the mirror and the recording.
func TestSecretsNeverLeakMirror(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 3))
	for range 100 {
		secret := leakcheck.Secret(r)
		for _, way := range leakcheck.Ways() {
			var out bytes.Buffer
			red := redact.New(&out, []string{secret})
			for _, ev := range leakRecording(r, way, secret).Events {
				if ev.Kind == cast.KindOutput {
					if _, err := red.Write([]byte(ev.Data)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := red.Flush(); err != nil {
				t.Fatal(err)
			}
			artifacts{way + " mirror": out.String()}.check(t, secret)
		}
	}
}

// TestSecretsNeverLeakMixed passes random secrets through the mirror's filter
// as a terminal delivers them when a program shows a secret while the terminal
// still echoes it: the two mixed in random pieces, then cut into random reads.
func TestSecretsNeverLeakMixed(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 5))
	for range 200 {
		secret := leakcheck.Secret(r)
		echo := onlcr("noted " + secret + strings.Repeat(".", 40) + "\n")
		show := onlcr("\n" + leakcheck.Show("split", secret) + strings.Repeat(".", 40) + "\n")
		var mixed strings.Builder
		for echo != "" || show != "" {
			from := &echo
			if echo == "" || show != "" && r.IntN(2) == 0 {
				from = &show
			}
			n := min(1+r.IntN(6), len(*from))
			mixed.WriteString((*from)[:n])
			*from = (*from)[n:]
		}
		var out bytes.Buffer
		red := redact.New(&out, []string{secret})
		for text := mixed.String(); text != ""; {
			n := min(1+r.IntN(12), len(text))
			if _, err := red.Write([]byte(text[:n])); err != nil {
				t.Fatal(err)
			}
			text = text[n:]
		}
		if err := red.Flush(); err != nil {
			t.Fatal(err)
		}
		artifacts{"mixed mirror": out.String()}.check(t, secret)
	}
}

// TestSecretsNeverLeakLive runs the secrets fake in a terminal for each way, in
// stream and screen matching, recording the run, and replays the recording:
// neither writes the secret anywhere, the recording included.
func TestSecretsNeverLeakLive(t *testing.T) {
	t.Parallel()
	fake := testprog.Build(t, "secrets")
	r := rand.New(rand.NewPCG(11, 4))
	for _, way := range leakcheck.Ways() {
		for _, mode := range []string{"stream", "screen"} {
			secret := leakcheck.Secret(r)
			t.Run(way+"-"+mode, func(t *testing.T) {
				t.Parallel()
				pb := leakPlaybookFor(t, fake, way, mode, secret)
				var recording syncBuffer
				w, err := cast.NewWriter(&recording, cast.Header{Width: leakCols, Height: 24, Timestamp: time.Now().Unix()})
				if err != nil {
					t.Fatal(err)
				}
				opts, collect := leakOptions(secret)
				rep := run(t, pb, append(opts, runner.WithRecording(w))...)
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				a := artifacts{"recording": recording.String()}
				collect(a, "")
				a.addReport(t, "", rep)
				if rep.Outcome != engine.TimedOut || !hasEvent(rep, "send") {
					t.Errorf("outcome %s (%s), want an answer, then a timeout", rep.Outcome, rep.Reason)
				}
				rec, err := cast.Parse(strings.NewReader(recording.String()))
				if err != nil {
					t.Fatal(err)
				}
				opts, collect = leakOptions(secret)
				replayed, err := runner.ReplayRecording(context.Background(), pb, rec, opts...)
				if err != nil {
					t.Fatal(err)
				}
				collect(a, "replay ")
				a.addReport(t, "replay ", replayed)
				a.check(t, secret)
			})
		}
	}
}

func hasEvent(rep *report.Report, name engine.EventKind) bool {
	for _, e := range rep.Timeline {
		if e.Event == name {
			return true
		}
	}
	return false
}
