package eventlog

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// TestTimeEncoder checks the log's "ts" against time.RFC3339Nano, whose text it
// must be, in several zones, whole seconds and trimmed fractions included.
func TestTimeEncoder(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", -7*3600), time.FixedZone("", 5*3600+45*60)}
	if l, err := time.LoadLocation("Europe/Paris"); err == nil {
		zones = append(zones, l)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var te timeEncoder
	base := time.Date(2026, 3, 29, 0, 59, 58, 0, time.UTC) // a DST change in Paris
	for i := range 20000 {
		tt := base.Add(time.Duration(r.Int64N(int64(3 * time.Second))))
		switch i % 4 {
		case 0:
			tt = tt.Truncate(time.Second)
		case 1:
			tt = tt.Truncate(time.Millisecond)
		}
		tt = tt.In(zones[i%len(zones)])
		var got stringArray
		te.encode(tt, &got)
		if want := tt.Format(time.RFC3339Nano); len(got) != 1 || got[0] != want {
			t.Fatalf("encode(%v) = %q, want %q", tt, got, want)
		}
	}
	for _, tt := range []time.Time{time.Date(12345, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(-5, 1, 2, 3, 4, 5, 600, time.UTC)} {
		var got stringArray
		te.encode(tt, &got)
		if want := tt.Format(time.RFC3339Nano); len(got) != 1 || got[0] != want {
			t.Errorf("encode(%v) = %q, want %q", tt, got, want)
		}
	}
}

// stringArray collects what an encoder appends.
type stringArray []string

func (a *stringArray) AppendString(s string) { *a = append(*a, s) }

func (a *stringArray) AppendBool(bool)                            {}
func (a *stringArray) AppendByteString([]byte)                    {}
func (a *stringArray) AppendComplex128(complex128)                {}
func (a *stringArray) AppendComplex64(complex64)                  {}
func (a *stringArray) AppendFloat64(float64)                      {}
func (a *stringArray) AppendFloat32(float32)                      {}
func (a *stringArray) AppendInt(int)                              {}
func (a *stringArray) AppendInt64(int64)                          {}
func (a *stringArray) AppendInt32(int32)                          {}
func (a *stringArray) AppendInt16(int16)                          {}
func (a *stringArray) AppendInt8(int8)                            {}
func (a *stringArray) AppendUint(uint)                            {}
func (a *stringArray) AppendUint64(uint64)                        {}
func (a *stringArray) AppendUint32(uint32)                        {}
func (a *stringArray) AppendUint16(uint16)                        {}
func (a *stringArray) AppendUint8(uint8)                          {}
func (a *stringArray) AppendUintptr(uintptr)                      {}
func (a *stringArray) AppendDuration(time.Duration)               {}
func (a *stringArray) AppendTime(time.Time)                       {}
func (a *stringArray) AppendArray(zapcore.ArrayMarshaler) error   { return nil }
func (a *stringArray) AppendObject(zapcore.ObjectMarshaler) error { return nil }
func (a *stringArray) AppendReflected(any) error                  { return nil }

// TestLineCoreWritesAsZap writes the same entries through the event log's core
// and through zap's own JSON core: every line must be the same, byte for byte,
// whether the core encodes it itself (strings and integers) or hands it to zap.
func TestLineCoreWritesAsZap(t *testing.T) {
	var times timeEncoder
	var ours, theirs bytes.Buffer
	enc := zapcore.NewJSONEncoder(logEncoderConfig(&times))
	fast := zap.New(newLineCore(enc, zapcore.AddSync(&ours), zap.DebugLevel, &times)).With(zap.String("playbook", "w\"2"))
	plain := zap.New(zapcore.NewCore(enc, zapcore.AddSync(&theirs), zap.DebugLevel)).With(zap.String("playbook", "w\"2"))
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "é", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\xff", "\xe2\x82", "日本", "Enter code 12 [3]: ", "<&>"}
	text := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	levels := []zapcore.Level{zap.DebugLevel, zap.InfoLevel, zap.WarnLevel, zap.ErrorLevel}
	for i := range 5000 {
		var fields []zap.Field
		for range r.IntN(6) {
			switch r.IntN(5) {
			case 0:
				fields = append(fields, zap.Int64(text(), r.Int64N(1e6)-5e5))
			case 1:
				fields = append(fields, zap.Int(text(), r.IntN(100)))
			case 2:
				if i%10 == 0 {
					// Not a string or an integer: zap's core writes the line.
					fields = append(fields, zap.Bool(text(), true), zap.Error(errors.New(text())))
					continue
				}
				fallthrough
			default:
				fields = append(fields, zap.String(text(), text()))
			}
		}
		at := time.Date(2026, 11, 26, 7, 0, 0, r.IntN(2e9), time.UTC)
		if i%50 == 0 {
			at = time.Time{}
		}
		level := levels[r.IntN(len(levels))]
		for _, l := range []*zap.Logger{fast, plain} {
			if ce := l.Check(level, ""); ce != nil {
				ce.Time = at
				ce.Write(fields...)
			}
		}
		if ours.String() != theirs.String() {
			t.Fatalf("line %d:\nours   %q\nzap's  %q", i, ours.String(), theirs.String())
		}
		ours.Reset()
		theirs.Reset()
	}
}

// countingSyncer counts the bytes written to it.
type countingSyncer struct{ n atomic.Int64 }

func (c *countingSyncer) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }
func (c *countingSyncer) Sync() error                 { return nil }

// TestBufferBounded: the log holds at most bufferSize bytes before it writes
// them, however fast the run logs: more would stay in the run's memory.
func TestBufferBounded(t *testing.T) {
	out := &countingSyncer{}
	log, stop := New(out, zapcore.InfoLevel, "bounded")
	for i := range 2000 { // about 300 KiB of lines
		log.Info("output", zap.String("text", strings.Repeat("x", 100)), zap.Int("i", i))
	}
	written := out.n.Load()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	total := out.n.Load()
	if total < 2000*100 {
		t.Fatalf("the log wrote %d bytes of 2000 lines", total)
	}
	if held := total - written; held > bufferSize {
		t.Errorf("the log held %d bytes unwritten, want at most %d", held, bufferSize)
	}
}
