package runner

import (
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/clai-sh/clai/internal/redact"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/engine"
	"github.com/clai-sh/clai/runner/eventlog"
	"github.com/clai-sh/clai/runner/report"
)

// BenchmarkLog measures logging one send event as clai run does: JSON through a
// buffered writer (here to io.Discard). W2 logs one such line a round trip.
func BenchmarkLog(b *testing.B) {
	l, stop := eventlog.New(zapcore.AddSync(io.Discard), zap.InfoLevel, "w2")
	defer stop()
	redact := redact.New(io.Discard, nil)
	rec := report.NewBuilder(&playbooks.Playbook{}, report.Config{})
	rec.SetStart(time.Now())
	s := newSession(options{logger: l, clock: systemClock{}}, nil, rec, redact)
	ev := engine.Event{Name: engine.EventSend, State: engine.Running, At: time.Millisecond, Rule: "code", Excerpt: "Enter code 8919 [1]: ", Sent: "8919\r"}
	b.ReportAllocs()
	for b.Loop() {
		s.log(ev)
	}
}
