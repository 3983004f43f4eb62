package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/clai-sh/clai/internal/leakcheck"
	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/runner/engine"
)

// The engine masks a secret in a text of the program before it cuts it (an
// excerpt, the window), quotes it (the last output of a timeout, a dry run's
// answer, a danger rule's match) or keeps it (the screen of an event): what
// its events and result hold shows no piece of it, whatever masks them later.
func TestEngineMasksBeforeCuttingOrQuoting(t *testing.T) {
	t.Parallel()
	const secret = `p"a\ss-w0rd-long-tail`
	const ok = "\n  - expect: never\n    timeout: 1s\n  - {expect: Vault, secret: env:CLAI_SECRET}\n"
	cases := []struct {
		name, yaml string
		cfg        engine.Config
		output     string
	}{
		{"an excerpt cut in the secret", `
steps:
  - {expect: {regex: 'start.*-end'}, line: "ok"}` + ok, engine.Config{},
			// The excerpt's 200 bytes begin 8 bytes into the secret.
			"start" + secret + strings.Repeat(".", 200-4-(len(secret)-8)) + "-end\n"},
		{"the quoted last output of a timeout", `
steps:` + ok, engine.Config{}, "token: " + secret + "\n"},
		{"the window's start in the secret", `
settings: {window: 40}
steps:` + ok, engine.Config{}, secret + " and then some more text\n"},
		{"a dry run's quoted answer", `
steps:
  - {expect: {regex: 'msg: (?P<m>\S+)'}, line: "noted {{ match.m }}"}` + ok, engine.Config{DryRun: true}, "msg: " + secret + "\n"},
		{"a danger rule's quoted match", `
danger:
  - {name: drop, match: {regex: 'DROP \S+'}, action: abort}
steps:` + ok, engine.Config{}, "DROP " + secret + "\n"},
		{"a screen that wraps the secret", `
settings: {match: screen, settle: 50ms}
steps:
  - {expect: "Password:", line: "x"}` + ok, engine.Config{Rows: 5, Cols: 20}, "0123456789abcdef" + secret + "\r\nPassword: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.cfg.Redact = redact.New(nil, []string{secret}).String
			s := newSim(t, "version: 1\nname: masks\nspawn: {command: [x]}\n"+c.yaml, c.cfg)
			s.out(10*time.Millisecond, c.output)
			s.advance(3 * time.Second)
			if s.result == nil {
				t.Fatalf("the run did not end\n%s", s.timeline())
			}
			texts := []string{s.result.Reason}
			for _, e := range s.events {
				texts = append(texts, e.Excerpt, e.Sent, e.Reason, e.Screen)
			}
			for _, text := range texts {
				if where := leakcheck.Find(text, secret); where != "" {
					t.Errorf("an event shows %s: %q\n%s", where, text, s.timeline())
				}
			}
		})
	}
}
