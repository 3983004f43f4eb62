package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Recording is a parsed asciicast file.
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

// ParseError is a malformed line of a recording. Its message reads
// "cast: line N: …", N counting from 1.
type ParseError struct {
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("cast: line %d: %v", e.Line, e.Err) }

func (e *ParseError) Unwrap() error { return e.Err }

// ErrUnsupportedVersion is wrapped by the error for a file of another version
// than 2: asciicast v1 (one JSON object with a "stdout" array) or v3.
var ErrUnsupportedVersion = errors.New("unsupported version")

// Open reads and parses the recording in the file at path.
func Open(path string) (*Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cast: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Parse reads an asciicast v2 recording: the header on the first line, then
// one event per line. Blank lines are ignored. A malformed header or event, a
// resize event whose data is not COLSxROWS, an event earlier than the one
// before it, and a file of another version are errors (a *ParseError) that
// name the line. Unknown header fields and unknown event codes are accepted.
func Parse(r io.Reader) (*Recording, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	rec := &Recording{}
	lineNo := 0
	haveHeader := false
	last := 0.0
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("cast: read: %w", err)
		}
		eof := err != nil
		if len(line) > 0 || !eof {
			lineNo++
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\uFEFF")) // a byte order mark
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if !haveHeader {
				h, perr := parseHeader(trimmed, br)
				if perr != nil {
					return nil, &ParseError{Line: lineNo, Err: perr}
				}
				rec.Header = h
				haveHeader = true
			} else {
				var ev Event
				if err := json.Unmarshal(trimmed, &ev); err != nil {
					return nil, &ParseError{Line: lineNo, Err: eventError(trimmed, err)}
				}
				if ev.Time < last {
					return nil, &ParseError{Line: lineNo, Err: fmt.Errorf(
						"time %s is before the previous event's %s: times must not go backwards",
						formatSeconds(ev.Time), formatSeconds(last))}
				}
				last = ev.Time
				rec.Events = append(rec.Events, ev)
			}
		}
		if eof {
			break
		}
	}
	if !haveHeader {
		return nil, errors.New("cast: empty recording: no header line")
	}
	return rec, nil
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
// the rest of the input is tried too, to recognise a version 1 file written as
// one indented JSON object.
func parseHeader(line []byte, rest io.Reader) (Header, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		if line[0] == '{' {
			var whole struct {
				Version json.RawMessage `json:"version"`
			}
			dec := json.NewDecoder(io.MultiReader(bytes.NewReader(line), bytes.NewReader([]byte("\n")), rest))
			if dec.Decode(&whole) == nil && whole.Version != nil {
				return Header{}, versionError(whole.Version)
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
	// asciinema writes 0x0 when its own terminal reports no size.
	if h.Width < 0 || h.Height < 0 {
		return Header{}, fmt.Errorf("header: terminal size %dx%d: negative", h.Width, h.Height)
	}
	return h, nil
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
