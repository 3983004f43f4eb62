package runner

import (
	"io"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// BenchmarkLog measures logging one send event as clai run does: JSON through a
// buffered writer (here to io.Discard). W2 logs one such line a round trip.
func BenchmarkLog(b *testing.B) {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey, enc.MessageKey = "ts", ""
	enc.EncodeTime = zapcore.RFC3339NanoTimeEncoder
	out := &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(io.Discard), FlushInterval: time.Second}
	defer out.Stop()
	l := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), out, zap.InfoLevel)).With(zap.String("playbook", "w2"))
	s := &session{o: options{logger: l}, redact: NewRedactor(io.Discard, nil)}
	ev := Event{Name: "send", State: Running, At: time.Millisecond, Rule: "code", Excerpt: "Enter code 8919 [1]: ", Sent: "8919\r"}
	b.ReportAllocs()
	for b.Loop() {
		s.log(ev)
	}
}
