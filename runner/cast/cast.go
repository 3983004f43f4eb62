// Package cast reads and writes terminal sessions in the asciicast v2 format
// (https://docs.asciinema.org/manual/asciicast/v2/), the format of asciinema,
// of `clai record` and of `clai run --replay`.
//
// A file is newline-delimited JSON: a header object on the first line, then
// one event per line, each a three-element array [time, code, data]: time in
// seconds since the start of the recording, code "o" (output of the program),
// "i" (input that reached it), "r" (terminal resized, data "COLSxROWS") or
// "m" (marker, data a label), and data a JSON string.
//
// JSON strings carry text, not bytes: like asciinema, output and input are
// decoded as UTF-8 and bytes that are not valid UTF-8 become U+FFFD, so such
// bytes do not survive a round trip (everything else does, byte for byte).
package cast

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Version is the asciicast version this package reads and writes.
const Version = 2

// Event codes.
const (
	KindOutput = "o" // output of the program
	KindInput  = "i" // input that reached the program
	KindResize = "r" // terminal resized; Data is "COLSxROWS"
	KindMarker = "m" // a marker; Data is its label
)

// Header is the first line of a recording. Empty fields are omitted, except
// version, width and height, which the format requires.
type Header struct {
	Version int `json:"version"`
	// Width and Height are the initial terminal size in columns and rows.
	// Parse accepts 0 (asciinema writes 0x0 when its terminal reports no
	// size); readers then choose a size themselves.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Timestamp is when the recording started, in Unix seconds.
	Timestamp int64 `json:"timestamp,omitempty"`
	// Duration is the length of the recording in seconds.
	Duration float64 `json:"duration,omitempty"`
	// IdleTimeLimit caps pauses on playback, in seconds.
	IdleTimeLimit float64 `json:"idle_time_limit,omitempty"`
	// Command is the command that was recorded.
	Command string `json:"command,omitempty"`
	Title   string `json:"title,omitempty"`
	// Env holds environment variables of the recording, usually SHELL and
	// TERM.
	Env   map[string]string `json:"env,omitempty"`
	Theme *Theme            `json:"theme,omitempty"`
}

// Theme is the colour theme of the recorded terminal.
type Theme struct {
	// Fg and Bg are the foreground and background colours, "#rrggbb".
	Fg string `json:"fg"`
	Bg string `json:"bg"`
	// Palette is 8 or 16 colours, "#rrggbb" separated by colons.
	Palette string `json:"palette"`
}

// Event is one line after the header. Its JSON form is the array
// [time, code, data].
type Event struct {
	// Time is when the event happened, in seconds since the start.
	Time float64
	// Kind is the event code: KindOutput, KindInput, KindResize or
	// KindMarker (others may appear in files from newer writers).
	Kind string
	Data string
}

// At returns the event's time as a duration since the start.
func (e Event) At() time.Duration {
	return time.Duration(math.Round(e.Time * float64(time.Second)))
}

// Size returns the terminal size of a resize event.
func (e Event) Size() (cols, rows int, ok bool) {
	if e.Kind != KindResize {
		return 0, 0, false
	}
	cols, rows, err := parseSize(e.Data)
	return cols, rows, err == nil
}

// parseSize parses "COLSxROWS", both positive and at most MaxSize.
func parseSize(s string) (cols, rows int, err error) {
	c, r, found := strings.Cut(s, "x")
	if !found {
		return 0, 0, fmt.Errorf("resize event %q: want COLSxROWS", s)
	}
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	switch {
	case err1 != nil || err2 != nil || cols <= 0 || rows <= 0:
		return 0, 0, fmt.Errorf("resize event %q: want COLSxROWS", s)
	case cols > MaxSize || rows > MaxSize:
		return 0, 0, fmt.Errorf("resize event %q: over %dx%d", s, MaxSize, MaxSize)
	}
	return cols, rows, nil
}

// MarshalJSON writes the event as [time, "code", "data"], the time with
// microsecond precision. Data that is not valid UTF-8 is decoded as the
// Writer does (invalid bytes become U+FFFD).
func (e Event) MarshalJSON() ([]byte, error) {
	if math.IsNaN(e.Time) || math.IsInf(e.Time, 0) || e.Time < 0 {
		return nil, fmt.Errorf("cast: event time %v: want a number >= 0", e.Time)
	}
	return appendEvent(nil, e.At(), e.Kind, []byte(e.Data)), nil
}

// UnmarshalJSON reads the array [time, "code", "data"].
func (e *Event) UnmarshalJSON(b []byte) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("event: want [time, code, data]: %w", err)
	}
	if len(parts) != 3 {
		return fmt.Errorf("event: want [time, code, data], got an array of %d", len(parts))
	}
	var ev Event
	if err := json.Unmarshal(parts[0], &ev.Time); err != nil {
		return fmt.Errorf("event time %s: not a number", parts[0])
	}
	if ev.Time < 0 {
		return fmt.Errorf("event time %s: negative", parts[0])
	}
	if ev.Time > MaxTime {
		return fmt.Errorf("event time %s: over %s seconds", parts[0], formatSeconds(MaxTime))
	}
	if err := json.Unmarshal(parts[1], &ev.Kind); err != nil {
		return fmt.Errorf("event code %s: not a string", parts[1])
	}
	if ev.Kind == "" {
		return fmt.Errorf("event code: empty")
	}
	if err := json.Unmarshal(parts[2], &ev.Data); err != nil {
		return fmt.Errorf("event data %.40s: not a string", parts[2])
	}
	if ev.Kind == KindResize {
		if _, _, err := parseSize(ev.Data); err != nil {
			return err
		}
	}
	*e = ev
	return nil
}

// appendEvent appends the JSON line of one event, without the newline.
func appendEvent(b []byte, t time.Duration, kind string, data []byte) []byte {
	b = append(b, '[')
	b = appendTime(b, t)
	b = append(b, ", "...)
	b = appendString(b, []byte(kind))
	b = append(b, ", "...)
	b = appendString(b, data)
	return append(b, ']')
}

// appendTime appends t in seconds with six decimals, as asciinema writes it.
func appendTime(b []byte, t time.Duration) []byte {
	us := max(int64(t+time.Microsecond/2)/int64(time.Microsecond), 0)
	b = strconv.AppendInt(b, us/1e6, 10)
	b = append(b, '.')
	frac := us % 1e6
	for d := int64(1e5); d > 1 && frac < d; d /= 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, frac, 10)
}

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, everything else (non-ASCII text too) as is. Bytes that
// are not valid UTF-8 become U+FFFD.
func appendString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	if !utf8.Valid(s) {
		s, _ = decodeUTF8(nil, s, true)
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
