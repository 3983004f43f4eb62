package eventlog

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/engine"
)

// reportsDoc is the page that documents the log's fields and levels.
const reportsDoc = "../../docs/reports.md"

// logSection is the text of docs/reports.md's section on log events: its
// paragraph of field names and its table.
func logSection(t *testing.T) (fields string, rows [][]string) {
	t.Helper()
	f, err := os.Open(reportsDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in bool
	var para strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "### Log events":
			in = true
		case !in:
		case strings.HasPrefix(line, "#"):
			return para.String(), rows
		case strings.HasPrefix(line, "| ---"):
		case strings.HasPrefix(line, "|"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			if cells[0] != "event" {
				rows = append(rows, cells)
			}
		case len(rows) == 0:
			para.WriteString(line + " ")
		}
	}
	if !in {
		t.Fatalf("%s has no section on log events", reportsDoc)
	}
	return para.String(), rows
}

var (
	code  = regexp.MustCompile("`([^`]+)`")
	aside = regexp.MustCompile(`\([^)]*\)`)
)

// codes are the names in backquotes in s.
func codes(s string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// line is one event's line as the sink writes it to a JSON event log.
func line(t *testing.T, e engine.Event, level zapcore.Level) map[string]any {
	t.Helper()
	var out strings.Builder
	logger, stop := New(zapcore.AddSync(&out), level, "doc")
	NewSink(logger, nil, true).Event(time.Unix(1_700_000_000, 0), &e)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out.String()), &m); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	return m
}

// TestSinkWritesTheDocumentedLevels: each event of docs/reports.md's table
// of log events is written at the level the table gives it, and not below.
func TestSinkWritesTheDocumentedLevels(t *testing.T) {
	t.Parallel()
	_, rows := logSection(t)
	if len(rows) == 0 {
		t.Fatal("no table of log events")
	}
	for _, row := range rows {
		var want zapcore.Level
		if err := want.Set(row[1]); err != nil {
			t.Fatalf("row %q: level %q: %v", row[0], row[1], err)
		}
		for _, name := range codes(row[0]) {
			e := engine.Event{Name: engine.EventKind(name), State: engine.Running}
			if got := line(t, e, want); got == nil || got["level"] != want.String() {
				t.Errorf("event %q: line %v, want level %s (docs/reports.md)", name, got, want)
			}
			if want > zapcore.DebugLevel {
				if got := line(t, e, want+1); got != nil {
					t.Errorf("event %q written at level %s, above the table's %s", name, got["level"], want)
				}
			}
		}
	}
}

// TestSinkWritesTheDocumentedFields: an event with everything set is a line
// with exactly the field names docs/reports.md lists, its texts masked, and
// its time when it happened; an event with nothing set has the fields every
// line has.
func TestSinkWritesTheDocumentedFields(t *testing.T) {
	t.Parallel()
	para, _ := logSection(t)
	// What is in parentheses says more of a field (the events a screen
	// comes with): it names none.
	documented := codes(aside.ReplaceAllString(para, ""))
	slices.Sort(documented)
	full := engine.Event{At: 1500 * time.Millisecond, Name: engine.EventAnswer, State: engine.Running, From: engine.Prompting,
		Rule: "r", Step: "s", Excerpt: "pw hunter2", Sent: "hunter2⏎", Reason: "why hunter2", Bytes: 3, Screen: "hunter2",
		Question: &ask.Question{ID: "q1"}, Channel: "cli", By: "alice"}
	var out strings.Builder
	logger, stop := New(zapcore.AddSync(&out), zap.DebugLevel, "doc")
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	NewSink(logger, func(s string) string { return strings.ReplaceAll(s, "hunter2", "***") }, true).Event(start, &full)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, documented) {
		t.Errorf("a full line has the fields %q, docs/reports.md lists %q", keys, documented)
	}
	if strings.Contains(out.String(), "hunter2") {
		t.Errorf("a secret in the line: %s", out.String())
	}
	if got["ts"] != "2026-01-02T03:04:06.5Z" || got["elapsed_ms"] != 1500.0 {
		t.Errorf("ts %v, elapsed_ms %v: want when the event happened", got["ts"], got["elapsed_ms"])
	}
	bare := line(t, engine.Event{Name: engine.EventStart}, zap.InfoLevel)
	keys = keys[:0]
	for k := range bare {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"elapsed_ms", "event", "level", "playbook", "state", "ts"}; !slices.Equal(keys, want) {
		t.Errorf("a bare line has the fields %q, want %q", keys, want)
	}
}

// failing is a writer that fails every write.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }
func (failing) Sync() error               { return nil }

// A line that cannot be written is said once, as an error event, through the
// logger.
func TestSinkSaysOnceThatTheLogFails(t *testing.T) {
	t.Parallel()
	var said strings.Builder
	warned := 0
	logger := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), failing{}, zap.InfoLevel))
	s := NewSink(logger, nil, false)
	// What the sink says goes to a logger that works.
	s.logger = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()),
		zapcore.AddSync(writerFunc(func(p []byte) { warned++; said.Write(p) })), zap.InfoLevel))
	for range 3 {
		s.Event(time.Now(), &engine.Event{Name: engine.EventStart})
	}
	if warned != 1 || !strings.Contains(said.String(), `"event":"error"`) || !strings.Contains(said.String(), "disk full") {
		t.Fatalf("said %d times: %s", warned, said.String())
	}
}

// writerFunc is a writer that hands each write to f.
type writerFunc func(p []byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// BenchmarkLog measures logging one send event as clai run does: JSON through a
// buffered writer (here to io.Discard). W2 logs one such line a round trip.
func BenchmarkLog(b *testing.B) {
	l, stop := New(zapcore.AddSync(io.Discard), zap.InfoLevel, "w2")
	defer stop()
	s := NewSink(l, func(s string) string { return s }, true)
	start := time.Now()
	ev := engine.Event{Name: engine.EventSend, State: engine.Running, At: time.Millisecond, Rule: "code", Excerpt: "Enter code 8919 [1]: ", Sent: "8919\r"}
	b.ReportAllocs()
	for b.Loop() {
		s.Event(start, &ev)
	}
}
