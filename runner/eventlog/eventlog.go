// Package eventlog writes a run's event log: JSON lines, one per event, byte for
// byte as zap's JSON encoder writes them, formatted with less work, off the
// answer's path (see docs/reports.md). New makes the log's logger; a Sink
// turns each of the engine's events into its line, with the fields, the level
// and the time the log gives it.
package eventlog

import (
	"slices"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// bufferSize is how much of the log is held before it is written: a write
// of 32 KiB every 200 or so events costs nothing beside them, and the
// buffer is a run's largest one but for the terminal's reads
// (docs/performance.md#memory).
const bufferSize = 32 << 10

// New returns the logger of a run's event log: one JSON line per event,
// with "ts" in RFC 3339 with nanoseconds, buffered and flushed every second.
// stop flushes what is buffered; call it when the run has ended.
func New(w zapcore.WriteSyncer, level zapcore.Level, playbook string) (logger *zap.Logger, stop func() error) {
	times := new(timeEncoder)
	// Buffered: a busy run logs thousands of events, and a write each would slow
	// every answer. bufferSize, not zap's 256 KiB: a run that logs fast fills
	// the buffer within its flush interval, and every page of it stays in the
	// run's memory.
	out := &zapcore.BufferedWriteSyncer{WS: w, Size: bufferSize, FlushInterval: time.Second}
	core := newLineCore(zapcore.NewJSONEncoder(logEncoderConfig(times)), out, level, times)
	logger = zap.New(core).With(zap.String("playbook", playbook))
	return logger, func() error {
		_ = logger.Sync()
		return out.Stop()
	}
}

// logEncoderConfig is zap's production JSON encoding, keyed as the event log is:
// no message key (the event field names each line), "ts" for the time.
func logEncoderConfig(times *timeEncoder) zapcore.EncoderConfig {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey, enc.MessageKey = "ts", ""
	enc.EncodeTime = times.encode
	return enc
}

// lineCore is zap's JSON core for the event log, with its most common lines
// written directly: an entry whose fields, and the logger's, are all strings and
// integers (every event line) is encoded here, byte for byte as zap's JSON encoder
// would, without building an encoder for it; anything else goes to zap's core.
type lineCore struct {
	zapcore.LevelEnabler
	next  zapcore.Core
	out   zapcore.WriteSyncer
	times *timeEncoder
	// context is the logger's own fields, encoded (`,"playbook":"w2"`); plain
	// is false when one of them is not a string or an integer.
	context []byte
	plain   bool
}

func newLineCore(enc zapcore.Encoder, out zapcore.WriteSyncer, level zapcore.LevelEnabler, times *timeEncoder) *lineCore {
	return &lineCore{LevelEnabler: level, next: zapcore.NewCore(enc, out, level), out: out, times: times, plain: true}
}

func (c *lineCore) With(fields []zapcore.Field) zapcore.Core {
	clone := *c
	clone.next = c.next.With(fields)
	context, plain := appendFields(slices.Clip(c.context), fields)
	clone.context, clone.plain = context, c.plain && plain
	return &clone
}

func (c *lineCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c *lineCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	if !c.plain || ent.LoggerName != "" || ent.Caller.Defined || ent.Stack != "" {
		return c.next.Write(ent, fields)
	}
	line := linePool.Get()
	defer line.Free()
	b := append(line.Bytes(), `{"level":"`...)
	b = append(b, ent.Level.String()...)
	b = append(b, '"')
	if !ent.Time.IsZero() {
		b = append(b, `,"ts":"`...)
		b = c.times.append(b, ent.Time)
		b = append(b, '"')
	}
	b = append(b, c.context...)
	b, plain := appendFields(b, fields)
	if !plain {
		return c.next.Write(ent, fields)
	}
	b = append(b, "}\n"...)
	_, err := c.out.Write(b)
	if ent.Level > zapcore.ErrorLevel {
		// As zap's core does: a line that ends the program is on disk first.
		_ = c.Sync()
	}
	return err
}

func (c *lineCore) Sync() error { return c.next.Sync() }

// linePool holds the buffers lines are encoded in.
var linePool = buffer.NewPool()

// appendFields appends ,"key":value for each field to dst; plain is false if a
// field is not a string or an integer (then dst is incomplete).
func appendFields(dst []byte, fields []zapcore.Field) (_ []byte, plain bool) {
	for _, f := range fields {
		dst = append(dst, ',')
		dst = appendJSONString(dst, f.Key)
		dst = append(dst, ':')
		switch f.Type {
		case zapcore.StringType:
			dst = appendJSONString(dst, f.String)
		case zapcore.Int64Type:
			dst = strconv.AppendInt(dst, f.Integer, 10)
		default:
			return dst, false
		}
	}
	return dst, true
}

// appendJSONString appends s as a JSON string, escaped as zap's JSON encoder
// escapes it: quotes, backslashes and control characters, and invalid UTF-8 as
// U+FFFD. (Unlike a recording's strings, see runner/cast, \b and \f are written
// as \u0008 and \u000c: the lines must be zap's, byte for byte.)
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(append(dst, s[last:i]...), `\ufffd`...)
			i++
			last = i
			continue
		}
		if c >= 0x20 && c != '\\' && c != '"' {
			i++
			continue
		}
		dst = append(dst, s[last:i]...)
		switch c {
		case '\\', '"':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, `\u00`...)
			dst = append(dst, hex[c>>4], hex[c&0xF])
		}
		i++
		last = i
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"')
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
	var b [len("-2006-01-02T15:04:05.999999999-07:00")]byte
	enc.AppendString(string(te.append(b[:0], t)))
}

// append appends t to dst, as t.Format(time.RFC3339Nano) would.
func (te *timeEncoder) append(dst []byte, t time.Time) []byte {
	sec := te.last.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		s := t.Format(time.RFC3339)
		n := len("2006-01-02T15:04:05")
		if len(s) < n || s[4] != '-' {
			// A year outside 0000–9999: no shortcut.
			return t.AppendFormat(dst, time.RFC3339Nano)
		}
		sec = &secondText{unix: t.Unix(), loc: t.Location(), date: s[:n], zone: s[n:]}
		te.last.Store(sec)
	}
	dst = append(dst, sec.date...)
	if ns := t.Nanosecond(); ns != 0 {
		// Nine digits, without the trailing zeros.
		at := len(dst)
		dst = strconv.AppendInt(dst, int64(1e9+ns), 10)
		dst[at] = '.'
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
	}
	return append(dst, sec.zone...)
}
