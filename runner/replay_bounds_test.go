package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner"
	"github.com/clai-sh/clai/runner/cast"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/playtest"
)

// endlessSession is a recording that never ends: a header, then output events,
// the dangerous one at event danger, and output again forever after it.
type endlessSession struct {
	danger, n int
	line      []byte
}

func (s *endlessSession) Read(p []byte) (int, error) {
	if len(s.line) == 0 {
		switch s.n++; {
		case s.n == 1:
			s.line = []byte(`{"version": 2, "width": 80, "height": 24}` + "\n")
		case s.n == s.danger:
			s.line = fmt.Appendf(nil, "[%d, \"o\", \"about to run rm -rf / now\\r\\n\"]\n", s.n)
		default:
			s.line = fmt.Appendf(nil, "[%d, \"o\", \"working %d\\r\\n\"]\n", s.n, s.n)
		}
	}
	n := copy(p, s.line)
	s.line = s.line[n:]
	return n, nil
}

// A replay reads the recording as it goes: a recording with no end is replayed
// until the run ends, here at its danger rule, instead of being read whole first.
func TestReplayReaderStreams(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: stream
spawn: {command: [x]}
danger:
  - {name: wipe, match: "rm -rf /", action: abort}
`)
	src := &endlessSession{danger: 5000}
	r, err := cast.NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runner.Replay(t.Context(), pb, r)
	if err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, rep, engine.Aborted, 3)
	if src.n > 5000+2000 {
		t.Errorf("read %d events, the run ended at event 5000", src.n)
	}
}

// A malformed line met during a replay ends it with that line's error.
func TestReplayReaderLineError(t *testing.T) {
	t.Parallel()
	pb := playbook(t, `
version: 1
name: broken
spawn: {command: [x]}
`)
	r, err := cast.NewReader(strings.NewReader(`{"version": 2, "width": 80, "height": 24}` + "\n" + `[0.5, "o", "hi"]` + "\n" + `[0.6, "r", "100000x24"]` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runner.Replay(t.Context(), pb, r)
	if want := `cast: line 3: resize event "100000x24": over 1000x1000`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}

// A playbook test whose cast: names a recording over the bounds fails with the
// recording's error, in stream and screen mode, instead of crashing.
func TestPlaybookTestCastBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	casts := map[string]string{
		"huge.cast":   `{"version":2,"width":100000,"height":100000}` + "\n" + `[0.1,"o","Name: "]` + "\n",
		"resize.cast": `{"version":2,"width":80,"height":24}` + "\n" + `[0.1,"r","80x100000"]` + "\n",
		"late.cast":   `{"version":2,"width":80,"height":24}` + "\n" + `[1e300,"o","Name: "]` + "\n",
	}
	for name, src := range casts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"huge.cast":   "line 1: header: terminal size 100000x100000: over 1000x1000",
		"resize.cast": `line 2: resize event "80x100000": over 1000x1000`,
		"late.cast":   "line 2: event time 1e300: over 1000000000 seconds",
	}
	for _, mode := range []string{"stream", "screen"} {
		for name, msg := range want {
			src := fmt.Sprintf(`version: 1
name: cast-bounds
spawn: {command: [x]}
settings: {match: %s}
steps:
  - {expect: "Name:", line: demo}
tests:
  - {name: replay, cast: %s, expect: {state: running}}
`, mode, name)
			pb, findings := playbooks.Parse(filepath.Join(dir, "pb.yaml"), []byte(src))
			if pb == nil {
				t.Fatal(findings)
			}
			res := playtest.RunTests(t.Context(), pb)
			if len(res) != 1 || len(res[0].Failures) != 1 || !strings.HasSuffix(res[0].Failures[0], filepath.Join(dir, name)+": "+msg) {
				t.Errorf("%s, %s: %+v", mode, name, res)
			}
		}
	}
}

// A recording's terminal is bounded as a playbook's is.
func TestCastSizeBoundIsSpawnSizeBound(t *testing.T) {
	t.Parallel()
	if cast.MaxSize != playbooks.MaxTermSize {
		t.Fatalf("cast.MaxSize %d, playbooks.MaxTermSize %d", cast.MaxSize, playbooks.MaxTermSize)
	}
}
