package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"

	"github.com/clai-sh/clai/internal/bounded"
)

// Bounds on what a recording may hold. A recording is read a line at a time, so
// memory stays within about one line however long the recording is; a
// recording opened by name is also bounded as a whole (MaxFileSize), since
// replaying it costs time in proportion to its length.
const (
	// MaxFileSize is the most bytes a recording opened by name (OpenReader,
	// Open) may hold: clai lint, clai test and clai run --replay replay it
	// whole, and a longer one would take minutes of CPU. As every event line
	// holds at least ten bytes, it bounds the number of events too.
	MaxFileSize = 8 << 20
	// MaxHeaderSize is the most bytes the header line may hold.
	MaxHeaderSize = 1 << 20
	// MaxEventSize is the most bytes an event line may hold: far more than a
	// terminal writes in one read, even with every byte escaped.
	MaxEventSize = 4 << 20
	// MaxSize is the most columns and rows a recorded terminal may have, in
	// the header and in resize events: the bound of a playbook's spawn.size.
	MaxSize = 1000
	// MaxTime is the latest time an event may have, in seconds (about 31 years):
	// any later time is a broken or hostile file, not a recording.
	MaxTime = 1e9
	// maxTimestamp is the latest start a header may give, the end of year 9999.
	maxTimestamp = 253402300799
)

// Recording is a parsed asciicast file, every event in memory. A recording of
// unknown length is read with a Reader instead.
type Recording struct {
	Header Header
	Events []Event
}

// Duration is the time of the last event, in seconds (0 without events).
func (r *Recording) Duration() float64 {
	if len(r.Events) == 0 {
		return 0
	}
	return r.Events[len(r.Events)-1].Time
}

// All returns the recording's events in order (with no error), as a Reader's All
// does for a recording read as a stream.
func (r *Recording) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for _, e := range r.Events {
			if !yield(e, nil) {
				return
			}
		}
	}
}

// ParseError is a malformed line of a recording. Its message reads
// "cast: line N: …", N counting from 1, or "cast: FILE: line N: …" when the
// recording was opened by name.
type ParseError struct {
	File string
	Line int
	Err  error
}

// Error says what went wrong.
func (e *ParseError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("cast: %s: line %d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("cast: line %d: %v", e.Line, e.Err)
}

// Unwrap returns the error underneath.
func (e *ParseError) Unwrap() error { return e.Err }

// TooLargeError says that a recording opened by name holds more than its
// Limit (MaxFileSize) bytes. Nothing of it is replayed.
type TooLargeError struct {
	File string
	// Size is the file's size, or 0 when it is not known (a pipe, or a file
	// that grew while it was read): it holds more than Limit.
	Size  int64
	Limit int64
}

// Error says what went wrong.
func (e *TooLargeError) Error() string {
	size := "more than " + bounded.Size(e.Limit)
	if e.Size > 0 {
		size = fmt.Sprintf("%.1f MiB (%d bytes)", float64(e.Size)/(1<<20), e.Size)
	}
	return fmt.Sprintf("cast: %s: the recording is %s, over the %s a recording may hold; keep its header line and the events that matter (a recording is one event a line)",
		e.File, size, bounded.Size(e.Limit))
}

// ErrUnsupportedVersion is wrapped by the error for a file of another version
// than 2: asciicast v1 (one JSON object with a "stdout" array) or v3.
var ErrUnsupportedVersion = errors.New("unsupported version")

// errEmpty is the error for a recording without a header line.
var errEmpty = errors.New("empty recording: no header line")

// Open reads and parses the whole recording in the file at path.
func Open(path string) (*Recording, error) {
	r, err := OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return collect(r)
}

// Parse reads a whole asciicast v2 recording: the header on the first line, then
// one event per line. Blank lines are ignored. A malformed header or event, a
// line over its bound (MaxHeaderSize, MaxEventSize), a terminal size over
// MaxSize, a resize event whose data is not COLSxROWS, an event time over
// MaxTime or earlier than the one before it, and a file of another version are
// errors (a *ParseError) that name the line. Unknown header fields and unknown
// event codes are accepted.
func Parse(r io.Reader) (*Recording, error) {
	cr, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	return collect(cr)
}

func collect(r *Reader) (*Recording, error) {
	rec := &Recording{Header: r.Header()}
	for ev, err := range r.All() {
		if err != nil {
			return nil, err
		}
		rec.Events = append(rec.Events, ev)
	}
	return rec, nil
}

// Reader reads a recording one event at a time, as Parse describes, holding one
// line in memory at a time.
type Reader struct {
	br     *bufio.Reader
	file   string
	closer io.Closer
	header Header
	line   int     // lines read so far
	last   float64 // time of the last event
	buf    []byte  // the current line, reused
	err    error   // the first error, returned ever after
}

// NewReader reads the header of the recording in r and returns a Reader for its
// events.
func NewReader(r io.Reader) (*Reader, error) {
	cr := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	if err := cr.readHeader(); err != nil {
		return nil, err
	}
	return cr, nil
}

// OpenReader opens the recording in the file at path and reads its header. Its
// errors name the file. A file of more than MaxFileSize bytes is a
// *TooLargeError at once; one whose size is not known beforehand (a pipe) is
// read up to MaxFileSize bytes, and an event past it is a *TooLargeError.
// The Reader must be closed.
func OpenReader(path string) (*Reader, error) {
	return openReader(path, MaxFileSize)
}

// openReader is OpenReader with a recording of at most limit bytes.
func openReader(path string, limit int64) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cast: %w", err)
	}
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > limit {
		f.Close()
		return nil, &TooLargeError{File: path, Size: info.Size(), Limit: limit}
	}
	capped := &capReader{r: f, left: limit, err: &TooLargeError{File: path, Limit: limit}}
	r := &Reader{br: bufio.NewReaderSize(capped, 64<<10), file: path, closer: f}
	if err := r.readHeader(); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Header is the recording's header.
func (r *Reader) Header() Header { return r.header }

// Close closes the file OpenReader opened; it does nothing for NewReader's.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	for {
		line, eof, err := r.readLine(MaxEventSize, "event")
		if err != nil {
			r.err = err
			return Event{}, err
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			ev, err := r.event(trimmed)
			if err != nil {
				r.err = r.lineError(err)
				return Event{}, r.err
			}
			return ev, nil
		}
		if eof {
			r.err = io.EOF
			return Event{}, io.EOF
		}
	}
}

// All returns the events still to read, in order. The sequence ends after the
// last event, or with the first error, which it yields with a zero Event.
func (r *Reader) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// readHeader reads up to the first line that is not blank and parses it.
func (r *Reader) readHeader() error {
	for {
		line, eof, err := r.readLine(MaxHeaderSize, "header")
		if err != nil {
			return err
		}
		if r.line == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF")) // a byte order mark
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			h, err := parseHeader(trimmed, r.br)
			if err != nil {
				return r.lineError(err)
			}
			r.header = h
			return nil
		}
		if eof {
			if r.file != "" {
				return fmt.Errorf("cast: %s: %w", r.file, errEmpty)
			}
			return fmt.Errorf("cast: %w", errEmpty)
		}
	}
}

// readLine reads the next line, without its newline, into r.buf. It reports
// whether the input ended with it. A line longer than limit is an error naming
// what the line was to hold, and nothing of it is kept beyond the limit.
func (r *Reader) readLine(limit int, what string) (line []byte, eof bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(r.buf)+len(chunk) > limit+1 || (len(r.buf)+len(chunk) > limit && !bytes.HasSuffix(chunk, []byte("\n"))) {
			r.line++
			return nil, false, r.lineError(fmt.Errorf("%s: larger than %s", what, bounded.Size(int64(limit))))
		}
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			r.line++
			return r.buf[:len(r.buf)-1], false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(r.buf) > 0 {
				r.line++
			}
			return r.buf, true, nil
		default:
			var tl *TooLargeError
			if errors.As(err, &tl) {
				return nil, false, tl
			}
			return nil, false, r.readError(err)
		}
	}
}

// capReader reads r up to left bytes; a byte past them is err.
type capReader struct {
	r    io.Reader
	left int64
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a recording of exactly the limit from a
		// longer one.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n > 0 {
			return 0, c.err
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// event parses an event line and checks its time against the one before.
func (r *Reader) event(line []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return Event{}, eventError(line, err)
	}
	if ev.Time < r.last {
		return Event{}, fmt.Errorf("time %s is before the previous event's %s: times must not go backwards",
			formatSeconds(ev.Time), formatSeconds(r.last))
	}
	r.last = ev.Time
	return ev, nil
}

func (r *Reader) lineError(err error) error {
	return &ParseError{File: r.file, Line: r.line, Err: err}
}

func (r *Reader) readError(err error) error {
	if r.file != "" {
		return fmt.Errorf("cast: %s: read: %w", r.file, err)
	}
	return fmt.Errorf("cast: read: %w", err)
}

// eventError explains why an event line did not parse.
func eventError(line []byte, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Errorf("event: invalid JSON: %v", syn)
	}
	if len(line) > 0 && line[0] == '{' {
		return errors.New("event: want [time, code, data], got a JSON object (a second header?)")
	}
	return err
}

// parseHeader parses the header line. When it is not valid JSON on its own,
// what follows is tried too (up to MaxHeaderSize), to recognise a version 1 file
// written as one indented JSON object.
func parseHeader(line []byte, rest io.Reader) (Header, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		if line[0] == '{' {
			whole := io.MultiReader(bytes.NewReader(line), bytes.NewReader([]byte("\n")), rest)
			if v, ok := topLevelVersion(io.LimitReader(whole, MaxHeaderSize)); ok {
				return Header{}, versionError(v)
			}
		}
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return Header{}, fmt.Errorf("header: invalid JSON: %v", syn)
		}
		return Header{}, fmt.Errorf("header: want a JSON object: %v", err)
	}
	if fields == nil {
		return Header{}, errors.New("header: want a JSON object, got null")
	}
	v, ok := fields["version"]
	if !ok {
		return Header{}, errors.New("header has no version: not an asciicast file")
	}
	if string(v) != "2" {
		return Header{}, versionError(v)
	}
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return Header{}, fmt.Errorf("header: %s: want %s, got a JSON %s", ute.Field, jsonKind(ute.Type.Kind().String()), ute.Value)
		}
		return Header{}, fmt.Errorf("header: %v", err)
	}
	return h, checkHeader(h)
}

// checkHeader checks the numbers of a header against their bounds. asciinema
// writes 0x0 when its own terminal reports no size, so 0 is accepted.
func checkHeader(h Header) error {
	switch {
	case h.Width < 0 || h.Height < 0:
		return fmt.Errorf("header: terminal size %dx%d: negative", h.Width, h.Height)
	case h.Width > MaxSize || h.Height > MaxSize:
		return fmt.Errorf("header: terminal size %dx%d: over %dx%d", h.Width, h.Height, MaxSize, MaxSize)
	case h.Timestamp < -maxTimestamp || h.Timestamp > maxTimestamp:
		return fmt.Errorf("header: timestamp %d: not a time of the years 1 to 9999", h.Timestamp)
	}
	return nil
}

// topLevelVersion reads the value of "version" in the JSON object r holds, value
// by value, so a large object is not held in memory at once.
func topLevelVersion(r io.Reader) (json.RawMessage, bool) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if key == "version" {
			return v, true
		}
	}
	return nil, false
}

func versionError(v json.RawMessage) error {
	var n float64
	if json.Unmarshal(v, &n) != nil {
		return fmt.Errorf("header: version %s: want a number", v)
	}
	hint := ""
	switch n {
	case 1:
		hint = " (asciicast v1, a single JSON object)"
	case 3:
		hint = " (asciicast v3, from asciinema 3: `asciinema convert` can turn it into v2)"
	}
	return fmt.Errorf("%w %s%s: clai reads asciicast v2 only", ErrUnsupportedVersion, v, hint)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "float64":
		return "a number"
	case "string":
		return "a string"
	case "map", "struct", "ptr":
		return "an object"
	}
	return goKind
}

// formatSeconds writes seconds as the file does.
func formatSeconds(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }
