package runner

import (
	"strconv"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewLogger returns the logger of a run's event log: one JSON line per event,
// with "ts" in RFC 3339 with nanoseconds, buffered and flushed every second.
// stop flushes what is buffered; call it when the run has ended.
func NewLogger(w zapcore.WriteSyncer, level zapcore.Level, playbook string) (logger *zap.Logger, stop func() error) {
	enc := zap.NewProductionEncoderConfig()
	// The event field names each line.
	enc.TimeKey, enc.MessageKey = "ts", ""
	enc.EncodeTime = new(timeEncoder).encode
	// Buffered: a busy run logs thousands of events, and a write each would slow
	// every answer.
	out := &zapcore.BufferedWriteSyncer{WS: w, FlushInterval: time.Second}
	logger = zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), out, level)).With(zap.String("playbook", playbook))
	return logger, func() error {
		_ = logger.Sync()
		return out.Stop()
	}
}

// timeEncoder writes times as time.RFC3339Nano does, in the time's own zone, but
// formats the date, the clock and the zone once a second rather than every line.
type timeEncoder struct {
	last atomic.Pointer[secondText]
}

// secondText is the text of one second in one zone: "2006-01-02T15:04:05" and
// "Z" or "-07:00".
type secondText struct {
	unix       int64
	loc        *time.Location
	date, zone string
}

func (te *timeEncoder) encode(t time.Time, enc zapcore.PrimitiveArrayEncoder) {
	sec := te.last.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		s := t.Format(time.RFC3339)
		n := len("2006-01-02T15:04:05")
		if len(s) < n || s[4] != '-' {
			// A year outside 0000–9999: no shortcut.
			enc.AppendString(t.Format(time.RFC3339Nano))
			return
		}
		sec = &secondText{unix: t.Unix(), loc: t.Location(), date: s[:n], zone: s[n:]}
		te.last.Store(sec)
	}
	var b [len("2006-01-02T15:04:05.999999999-07:00")]byte
	out := append(b[:0], sec.date...)
	if ns := t.Nanosecond(); ns != 0 {
		// Nine digits, without the trailing zeros.
		frac := strconv.AppendInt(b[len(out):len(out)], int64(1e9+ns), 10)
		frac[0] = '.'
		for frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		out = out[:len(out)+len(frac)]
	}
	out = append(out, sec.zone...)
	enc.AppendString(string(out))
}
