package engine_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/exitcode"
)

// An excerpt is cut on a character boundary, wherever its 200 bytes begin in
// text of two-, three- and four-byte characters.
func TestExcerptCutsOnACharacterBoundary(t *testing.T) {
	t.Parallel()
	for _, char := range []string{"é", "€", "😀"} {
		for pad := range 4 {
			s := newSim(t, header+"steps:\n  - {expect: {regex: 'start.*-end'}, line: ok}\n", engine.Config{})
			text := "start" + strings.Repeat(char, 300/len(char)) + strings.Repeat("x", pad) + "-end"
			s.out(10*time.Millisecond, text+"\n")
			s.wantSent("ok\r")
			found := false
			for _, e := range s.events {
				if e.Excerpt == "" {
					continue
				}
				found = true
				cut := strings.TrimPrefix(e.Excerpt, "…")
				if !utf8.ValidString(e.Excerpt) || !strings.HasSuffix(text, cut) || len(cut) < 200-3 {
					t.Errorf("%s, pad %d: %s event's excerpt %q is not the text's end cut on a character", char, pad, e.Name, e.Excerpt)
				}
			}
			if !found {
				t.Fatalf("no event has an excerpt\n%s", s.timeline())
			}
		}
	}
}

// The messages of a timeout and of a program that ended quote the program's
// last output, also the output a match consumed, its secrets masked.
func TestLastOutputSurvivesAMatch(t *testing.T) {
	t.Parallel()
	const secret = "hunter2-very-secret"
	const yaml = header + `steps:
  - {expect: "Name:", line: bob}
  - {expect: never, timeout: 1s}
`
	redact := redact.New(nil, []string{secret}).String
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, yaml, engine.Config{Redact: redact})
		s.out(10*time.Millisecond, "token "+secret+"\nWelcome to setup\nName: ")
		s.wantSent("bob\r")
		s.advance(2 * time.Second)
		s.wantResult(engine.TimedOut, exitcode.Timeout)
		if !strings.Contains(s.result.Reason, `last output: "`) || !strings.Contains(s.result.Reason, `Welcome to setup\nName: "`) {
			t.Errorf("reason %q does not quote the last output", s.result.Reason)
		}
		if strings.Contains(s.result.Reason, "hunter2") {
			t.Errorf("reason %q shows the secret", s.result.Reason)
		}
	})
	t.Run("the program ended", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, yaml, engine.Config{})
		s.out(10*time.Millisecond, "Name: ")
		s.wantSent("bob\r")
		s.exit(10*time.Millisecond, 0)
		s.wantResult(engine.Failed, exitcode.Failed)
		if !strings.Contains(s.result.Reason, `last output: "Name: "`) {
			t.Errorf("reason %q does not quote the last output", s.result.Reason)
		}
	})
	t.Run("cut on a character", func(t *testing.T) {
		t.Parallel()
		s := newSim(t, yaml, engine.Config{})
		s.out(10*time.Millisecond, "x"+strings.Repeat("€", 400)+"\nName: ")
		s.advance(2 * time.Second)
		s.wantResult(engine.TimedOut, exitcode.Timeout)
		if strings.Contains(s.result.Reason, `\x`) || !strings.Contains(s.result.Reason, `€€\nName: "`) {
			t.Errorf("reason %q quotes a cut character or not the end", s.result.Reason)
		}
	})
}
