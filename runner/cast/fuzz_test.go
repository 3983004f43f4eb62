package cast

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzParse reads any bytes as a recording: the answer is an error that names
// the line at fault, or a header and events within the bounds (sizes, times
// that never go back and never pass MaxTime). Read a byte at a time, event by
// event, the same bytes give the same answer; and a recording read is written
// back by the Writer and read again unchanged (times to the microsecond the
// format keeps). The seeds are the recordings the tests replay.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("../../testdata/casts/*.cast")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		"", "\n\n", "\uFEFF" + `{"version": 2, "width": 80, "height": 24}` + "\n[0.5, \"o\", \"hi\\r\\n\"]\n",
		`{"version": 2, "width": 0, "height": 0, "env": {}, "theme": {"fg": "#fff"}}` + "\n\n[1, \"r\", \"100x40\"]\n[1, \"m\", \"\"]\n[2, \"x\", \"?\"]",
		"{\n  \"version\": 1,\n  \"stdout\": [[0.1, \"a\"]]\n}\n",
		`{"version": 3, "term": {"cols": 80, "rows": 24}}`,
		`{"version": 2, "width": 80, "height": 24}` + "\n[2, \"o\", \"a\"]\n[1, \"o\", \"b\"]\n",
		`{"version": 2, "width": 80, "height": 24}` + "\n[1e400, \"o\", \"\\ud800\\u0000\"]\n",
		`{"version": 2, "width": -1, "height": 1001, "timestamp": 1e20}`,
		`[0, "o", "a"]`, "null", `{"version": "2"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Parse(bytes.NewReader(data))
		stream, streamErr := readByteAtATime(data)
		if errString(err) != errString(streamErr) {
			t.Fatalf("whole: %v; a byte at a time: %v", err, streamErr)
		}
		if err != nil {
			checkParseError(t, err, data)
			return
		}
		if !slices.Equal(rec.Events, stream) {
			t.Fatalf("whole: %v; a byte at a time: %v", rec.Events, stream)
		}
		checkRecording(t, rec)
		if rec.Header.Width > 0 && rec.Header.Height > 0 {
			checkWrittenBack(t, rec)
		}
	})
}

// readByteAtATime reads the recording in data one byte per read, one event at
// a time.
func readByteAtATime(data []byte) ([]Event, error) {
	r, err := NewReader(iotest.OneByteReader(bytes.NewReader(data)))
	if err != nil {
		return nil, err
	}
	var events []Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return nil, err
		}
		events = append(events, ev)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkParseError fails t unless err says it is of a recording, and names a
// line of data when it is about one.
func checkParseError(t *testing.T, err error, data []byte) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "cast: ") {
		t.Fatalf("%q: the error %q does not say it is of a recording", data, err)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		return
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; pe.Line < 1 || pe.Line > lines {
		t.Fatalf("%q: the error %q names a line outside the %d of the recording", data, err, lines)
	}
}

// checkRecording fails t unless the recording keeps the bounds Parse promises.
func checkRecording(t *testing.T, rec *Recording) {
	t.Helper()
	h := rec.Header
	if h.Version != Version || h.Width < 0 || h.Height < 0 || h.Width > MaxSize || h.Height > MaxSize {
		t.Fatalf("header %+v: outside the bounds", h)
	}
	last := 0.0
	for _, ev := range rec.Events {
		switch {
		case math.IsNaN(ev.Time) || ev.Time < last || ev.Time > MaxTime:
			t.Fatalf("event %v: its time is not between the last (%v) and %v", ev, last, float64(MaxTime))
		case ev.Kind == "":
			t.Fatalf("event %v: no code", ev)
		}
		if _, _, ok := ev.Size(); ev.Kind == KindResize && !ok {
			t.Fatalf("event %v: a resize without a size", ev)
		}
		last = ev.Time
	}
}

// checkWrittenBack writes rec with a Writer, reads it again and fails t unless
// it reads the same: the header, and each event's code and data, its time to
// the microsecond.
func checkWrittenBack(t *testing.T, rec *Recording) {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, rec.Header)
	if err != nil {
		t.Fatalf("header %+v: %v", rec.Header, err)
	}
	for _, ev := range rec.Events {
		if err := w.Event(ev); err != nil {
			t.Fatalf("event %v: %v", ev, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(&out)
	if err != nil {
		t.Fatalf("the recording written back does not read: %v\n%s", err, out.Bytes())
	}
	h1, _ := json.Marshal(rec.Header)
	h2, _ := json.Marshal(again.Header)
	if !bytes.Equal(h1, h2) {
		t.Fatalf("header written back reads %s, was %s", h2, h1)
	}
	if len(again.Events) != len(rec.Events) {
		t.Fatalf("%d events written back read as %d", len(rec.Events), len(again.Events))
	}
	for i, ev := range rec.Events {
		got := again.Events[i]
		if got.Kind != ev.Kind || got.Data != ev.Data || math.Abs(got.Time-ev.Time) > 1e-6 {
			t.Fatalf("event %d written back reads %v, was %v", i, got, ev)
		}
	}
}
