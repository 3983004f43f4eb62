package cast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func write(t *testing.T, h Header, fn func(w *Writer)) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	fn(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func parse(t *testing.T, s string) *Recording {
	t.Helper()
	rec, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatalf("%v\n%s", err, s)
	}
	return rec
}

func TestRoundTrip(t *testing.T) {
	h := Header{
		Width: 120, Height: 40, Timestamp: 1795642541, Duration: 2.5, IdleTimeLimit: 1,
		Command: "sh -c 'echo <hi> & bye'", Title: "demo \"quoted\"",
		Env:   map[string]string{"SHELL": "/bin/bash", "TERM": "xterm-256color"},
		Theme: &Theme{Fg: "#d0d0d0", Bg: "#212121", Palette: "#000000:#ffffff"},
	}
	outputs := []string{
		"plain",
		"\x1b[1;31mHello\x1b[0m\r\n",
		"quote \" backslash \\ tab \t nul \x00 del \x7f bell \a",
		"unicode ❯\u00a0é 日本 🎉 \u2028 \u2029",
		"<html> & </html>",
		"",
	}
	text := write(t, h, func(w *Writer) {
		for i, o := range outputs {
			if err := w.Output(time.Duration(i)*time.Second+1234567*time.Nanosecond, []byte(o)); err != nil {
				t.Fatal(err)
			}
		}
		_ = w.Input(7*time.Second, []byte("y\r\x03"))
		_ = w.Resize(8*time.Second, 100, 30)
		_ = w.Marker(9*time.Second, "step 1")
		_ = w.Marker(9*time.Second, "")
	})
	rec := parse(t, text)
	h.Version = 2
	if !reflect.DeepEqual(rec.Header, h) {
		t.Errorf("header:\n got %+v\nwant %+v", rec.Header, h)
	}
	var want []Event
	for i, o := range outputs {
		if o != "" { // an empty output is no event
			sec, _ := strconv.ParseFloat(fmt.Sprintf("%d.001235", i), 64)
			want = append(want, Event{Time: sec, Kind: "o", Data: o})
		}
	}
	want = append(want,
		Event{7, "i", "y\r\x03"},
		Event{8, "r", "100x30"},
		Event{9, "m", "step 1"},
		Event{9, "m", ""},
	)
	if !reflect.DeepEqual(rec.Events, want) {
		t.Errorf("events:\n got %s\nwant %s", js(rec.Events), js(want))
	}
	if cols, rows, ok := rec.Events[len(want)-3].Size(); !ok || cols != 100 || rows != 30 {
		t.Errorf("Size() = %d, %d, %v", cols, rows, ok)
	}
	if rec.Duration() != 9 {
		t.Errorf("Duration() = %v", rec.Duration())
	}
}

// The lines are written as asciinema writes them.
func TestWriterFormat(t *testing.T) {
	text := write(t, Header{Width: 80, Height: 24, Timestamp: 1504467315, Title: "<Demo>", Env: map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/zsh"}}, func(w *Writer) {
		_ = w.Output(248848*time.Microsecond, []byte("\x1b[1;31mHello \x1b[32mWorld!\x1b[0m\n"))
		_ = w.Output(1001376*time.Microsecond, []byte("That was ok\rThis is better."))
		_ = w.Marker(1500*time.Millisecond, "")
		_ = w.Resize(4050*time.Millisecond, 80, 24)
		_ = w.Output(6541828*time.Microsecond+400, []byte("Bye!"))
		_ = w.Output(12*time.Second, []byte("é"))
	})
	want := `{"version":2,"width":80,"height":24,"timestamp":1504467315,"title":"<Demo>","env":{"SHELL":"/bin/zsh","TERM":"xterm-256color"}}
[0.248848, "o", "\u001b[1;31mHello \u001b[32mWorld!\u001b[0m\n"]
[1.001376, "o", "That was ok\rThis is better."]
[1.500000, "m", ""]
[4.050000, "r", "80x24"]
[6.541828, "o", "Bye!"]
[12.000000, "o", "é"]
`
	if text != want {
		t.Errorf("got:\n%s\nwant:\n%s", text, want)
	}
}

func TestEventJSON(t *testing.T) {
	b, err := json.Marshal([]Event{{Time: 0.0074899, Kind: "o", Data: "a\"\\\x1b\xff"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[0.007490,"o","a\"\\\u001b` + "\uFFFD" + `"]]`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var evs []Event
	if err := json.Unmarshal([]byte(`[[1.5, "i", "x"], [2, "r", "10x5"]]`), &evs); err != nil {
		t.Fatal(err)
	}
	if want := []Event{{1.5, "i", "x"}, {2, "r", "10x5"}}; !reflect.DeepEqual(evs, want) {
		t.Errorf("got %v", evs)
	}
	if _, err := json.Marshal(Event{Time: -1, Kind: "o"}); err == nil {
		t.Error("a negative time was marshalled")
	}
}

// Bytes that are not UTF-8 become U+FFFD as asciinema (Python's and Rust's
// lossy decoders) makes them; a character split between two reads stays whole.
func TestWriterUTF8(t *testing.T) {
	text := write(t, Header{Width: 80, Height: 24}, func(w *Writer) {
		_ = w.Output(1*time.Second, []byte("a\xffb"))          // invalid byte
		_ = w.Output(2*time.Second, []byte("x\xe2\x82y"))      // truncated sequence: one U+FFFD
		_ = w.Output(3*time.Second, []byte("\xed\xa0\x80"))    // a surrogate: three
		_ = w.Output(4*time.Second, []byte("caf\xc3"))         // é split in two
		_ = w.Output(5*time.Second, []byte("\xa9!"))           //
		_ = w.Output(6*time.Second, []byte("\xf0\x9f"))        // 🎉 in three parts
		_ = w.Input(6500*time.Millisecond, []byte("\xe6\x97")) // input has its own stream
		_ = w.Output(7*time.Second, []byte("\x8e"))
		_ = w.Output(8*time.Second, []byte("\x89 end\xe2\x9d")) // ❯ cut short by the end
		_ = w.Input(9*time.Second, []byte("\xa5"))
	})
	want := []Event{
		{1, "o", "a\uFFFDb"},
		{2, "o", "x\uFFFDy"},
		{3, "o", "\uFFFD\uFFFD\uFFFD"},
		{4, "o", "caf"},
		{5, "o", "é!"},
		{8, "o", "🎉 end"},
		{9, "i", "日"},
		{9, "o", "\uFFFD"}, // written at Close, at its time (8) raised to the last one's
	}
	if got := parse(t, text).Events; !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s\n%s", js(got), js(want), text)
	}
}

// An event is never written before the previous one, whoever calls first.
func TestWriterTimesNeverGoBack(t *testing.T) {
	text := write(t, Header{Width: 80, Height: 24}, func(w *Writer) {
		_ = w.Output(2*time.Second, []byte("a"))
		_ = w.Input(time.Second, []byte("b"))
		_ = w.Event(Event{Time: 3, Kind: "x", Data: "custom"})
	})
	want := []Event{{2, "o", "a"}, {2, "i", "b"}, {3, "x", "custom"}}
	if got := parse(t, text).Events; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestWriterConcurrent(t *testing.T) {
	const goroutines, each = 8, 300
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				data := fmt.Sprintf("g%d-%d ❯ \x1b[0m\r\n", g, i)
				var err error
				switch i % 4 {
				case 0:
					err = w.Output(time.Since(start), []byte(data))
				case 1:
					err = w.Input(time.Since(start), []byte(data))
				case 2:
					err = w.Marker(time.Since(start), data)
				case 3:
					err = w.Resize(time.Since(start), g+1, i+1)
					if i%40 == 3 {
						err = w.Flush()
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec := parse(t, buf.String()) // also checks that times never go back
	if len(rec.Events) != goroutines*each {
		t.Fatalf("%d events, want %d", len(rec.Events), goroutines*each)
	}
	seen := map[string]bool{}
	for _, e := range rec.Events {
		key := e.Kind + e.Data
		if seen[key] {
			t.Errorf("event %q twice", key)
		}
		seen[key] = true
	}
	for g := range goroutines {
		for i := range each {
			data := fmt.Sprintf("g%d-%d ❯ \x1b[0m\r\n", g, i)
			var key string
			switch i % 4 {
			case 0:
				key = "o" + data
			case 1:
				key = "i" + data
			case 2:
				key = "m" + data
			case 3:
				key = fmt.Sprintf("r%dx%d", g+1, i+1)
			}
			if !seen[key] {
				t.Errorf("event %q missing", key)
			}
		}
	}
}

type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("disk full")
	}
	f.after--
	return len(p), nil
}

func TestWriterErrors(t *testing.T) {
	if _, err := NewWriter(io.Discard, Header{Version: 3, Width: 80, Height: 24}); err == nil {
		t.Error("NewWriter wrote version 3")
	}
	if _, err := NewWriter(io.Discard, Header{Width: 0, Height: 24}); err == nil {
		t.Error("NewWriter took a width of 0")
	}
	if _, err := NewWriter(&failingWriter{}, Header{Width: 80, Height: 24}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("header write error: %v", err)
	}
	w, err := NewWriter(&failingWriter{after: 1}, Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Resize(0, 0, 24); err == nil {
		t.Error("Resize took 0 columns")
	}
	_ = w.Output(0, []byte("buffered"))
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush: %v", err)
	}
	if err := w.Output(0, []byte("more")); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("the error is not kept: %v", err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close forgot the error")
	}

	w, err = NewWriter(io.Discard, Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Output(0, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Output after Close: %v", err)
	}
}

// The recordings of real programs (copied from the shared captures) parse, and
// survive being written again.
func TestParseRecordings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "casts", "*.cast"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/casts")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			rec, err := Open(file)
			if err != nil {
				t.Fatal(err)
			}
			h := rec.Header
			if h.Version != 2 || h.Width != 120 || h.Height != 40 || h.Timestamp == 0 || h.Env["TERM"] != "xterm-256color" || h.Title == "" {
				t.Errorf("header %+v", h)
			}
			if len(rec.Events) < 5 {
				t.Fatalf("only %d events", len(rec.Events))
			}
			for _, e := range rec.Events {
				if e.Kind != "o" && e.Kind != "i" {
					t.Errorf("event %v", e)
				}
			}
			again := write(t, h, func(w *Writer) {
				for _, e := range rec.Events {
					if err := w.Event(e); err != nil {
						t.Fatal(err)
					}
				}
			})
			if rec2 := parse(t, again); !reflect.DeepEqual(rec2, rec) {
				t.Errorf("written again, it differs:\n%s", again)
			}
		})
	}
	rec, err := Open(filepath.Join("..", "..", "testdata", "casts", "ssh-keygen-file-prompt.cast"))
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Events[2]; e != (Event{0.650661, "i", "/home/demo01/k"}) {
		t.Errorf("third event %v", e)
	}
	if _, err := Open("no-such.cast"); err == nil || !strings.HasPrefix(err.Error(), "cast: open no-such.cast") {
		t.Errorf("Open of a missing file: %v", err)
	}
}

// What asciinema writes, and some leeway a reader needs: blank lines, CRLF, a
// byte order mark, no final newline, unknown header fields and event codes,
// null env values (asciinema 3.0.1 fixed reading those).
func TestParseLenient(t *testing.T) {
	in := "\uFEFF{\"version\": 2, \"width\": 80, \"height\": 24, \"env\": {\"SHELL\": null, \"TERM\": \"xterm\"}, \"future\": [1]}\r\n" +
		"\r\n" +
		"[0.248848, \"o\", \"hi\"]\r\n" +
		"   \n" +
		"[1e0, \"x\", \"unknown code\"]\n" +
		"[1, \"o\", \"same time\"]\n" +
		"[2.5, \"r\", \"100x30\"]"
	rec := parse(t, in)
	if rec.Header.Width != 80 || rec.Header.Env["TERM"] != "xterm" || rec.Header.Env["SHELL"] != "" {
		t.Errorf("header %+v", rec.Header)
	}
	want := []Event{{0.248848, "o", "hi"}, {1, "x", "unknown code"}, {1, "o", "same time"}, {2.5, "r", "100x30"}}
	if !reflect.DeepEqual(rec.Events, want) {
		t.Errorf("events %v", rec.Events)
	}
	if rec := parse(t, `{"version": 2, "width": 80, "height": 24}`); len(rec.Events) != 0 {
		t.Errorf("events %v", rec.Events)
	}
	// As asciinema 2.2 wrote it, recording in a terminal of no size.
	asciinema := `{"version": 2, "width": 0, "height": 0, "timestamp": 1795659929, "idle_time_limit": 1.0, "env": {"SHELL": "/bin/bash", "TERM": "xterm"}, "title": "T"}
[0.008431, "o", "hi\r\nx"]
`
	rec = parse(t, asciinema)
	if h := rec.Header; h.Width != 0 || h.IdleTimeLimit != 1 || h.Title != "T" || len(rec.Events) != 1 {
		t.Errorf("%+v %v", h, rec.Events)
	}
}

func TestParseErrors(t *testing.T) {
	const head = `{"version": 2, "width": 80, "height": 24}` + "\n"
	tests := []struct{ name, in, want string }{
		{"empty", "", "cast: empty recording: no header line"},
		{"blank", "\n \n", "cast: empty recording: no header line"},
		{"v1", `{"version": 1, "width": 80, "height": 24, "duration": 1, "stdout": [[0.5, "hi"]]}`,
			"cast: line 1: unsupported version 1 (asciicast v1, a single JSON object): clai reads asciicast v2 only"},
		{"v1 indented", "\n{\n  \"version\": 1,\n  \"width\": 80,\n  \"stdout\": [\n    [0.5, \"hi\"]\n  ]\n}\n",
			"cast: line 2: unsupported version 1 (asciicast v1"},
		{"v3", `{"version": 3, "term": {"cols": 80, "rows": 24}, "timestamp": 1}` + "\n[0.1, \"o\", \"x\"]\n",
			"cast: line 1: unsupported version 3 (asciicast v3"},
		{"version string", `{"version": "2", "width": 80, "height": 24}`, `cast: line 1: header: version "2": want a number`},
		{"no version", `{"width": 80, "height": 24}`, "cast: line 1: header has no version: not an asciicast file"},
		{"not JSON", "hello\n", "cast: line 1: header: invalid JSON"},
		{"header array", `[0.1, "o", "x"]`, "cast: line 1: header: want a JSON object"},
		{"header null", `null`, "cast: line 1: header: want a JSON object, got null"},
		{"negative width", `{"version": 2, "width": -80, "height": 24}`, "cast: line 1: header: terminal size -80x24: negative"},
		{"width string", `{"version": 2, "width": "80", "height": 24}`, "cast: line 1: header: width: want a number, got a JSON string"},
		{"env number", `{"version": 2, "width": 80, "height": 24, "env": {"TERM": 1}}`, "cast: line 1: header: env: want a string, got a JSON number"},
		{"broken event", head + `[0.1, "o", "x"` + "\n", "cast: line 2: event: invalid JSON"},
		{"after blank lines", head + "\n\n" + `[0.1, "o"]` + "\n", "cast: line 4: event: want [time, code, data], got an array of 2"},
		{"four elements", head + `[0.1, "o", "x", "y"]`, "cast: line 2: event: want [time, code, data], got an array of 4"},
		{"object", head + `{"version": 2}`, "cast: line 2: event: want [time, code, data], got a JSON object"},
		{"time string", head + `["0.1", "o", "x"]`, `cast: line 2: event time "0.1": not a number`},
		{"negative time", head + `[-0.5, "o", "x"]`, "cast: line 2: event time -0.5: negative"},
		{"code number", head + `[0.1, 1, "x"]`, "cast: line 2: event code 1: not a string"},
		{"empty code", head + `[0.1, "", "x"]`, "cast: line 2: event code: empty"},
		{"data bytes", head + `[0.1, "o", [104, 105]]`, "cast: line 2: event data [104, 105]: not a string"},
		{"bad resize", head + `[0.1, "r", "80-24"]`, `cast: line 2: resize event "80-24": want COLSxROWS`},
		{"huge size", `{"version":2,"width":100000,"height":100000}`, "cast: line 1: header: terminal size 100000x100000: over 1000x1000"},
		{"huge height", `{"version":2,"width":80,"height":1001}`, "cast: line 1: header: terminal size 80x1001: over 1000x1000"},
		{"huge timestamp", `{"version":2,"width":80,"height":24,"timestamp":9223372036854775807}`, "cast: line 1: header: timestamp 9223372036854775807: not a time of the years 1 to 9999"},
		{"huge resize", head + `[0.1, "r", "100000x5"]`, `cast: line 2: resize event "100000x5": over 1000x1000`},
		{"huge time", head + `[1e300, "o", "x"]`, "cast: line 2: event time 1e300: over 1000000000 seconds"},
		{"time out of range", head + `[1e400, "o", "x"]`, "cast: line 2: event time 1e400: not a number"},
		{"long header", `{"version": 2, "title": "` + strings.Repeat("t", MaxHeaderSize) + `"}`, "cast: line 1: header: larger than 1 MiB"},
		{"long event", head + `[0.1, "o", "` + strings.Repeat("x", MaxEventSize) + `"]`, "cast: line 2: event: larger than 4 MiB"},
		{"long blank line", head + strings.Repeat(" ", MaxEventSize+1) + "\n", "cast: line 2: event: larger than 4 MiB"},
		{"backwards", head + "[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"b\"]\n\n[0.3, \"i\", \"c\"]\n[0.3, \"o\", \"d\"]\n[1.25, \"o\", \"e\"]\n[1.2, \"o\", \"f\"]\n",
			"cast: line 8: time 1.2 is before the previous event's 1.25: times must not go backwards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
			var pe *ParseError
			if strings.HasPrefix(tt.want, "cast: line") && !errors.As(err, &pe) {
				t.Errorf("%v is not a *ParseError", err)
			}
			if strings.Contains(tt.want, "unsupported version") && !errors.Is(err, ErrUnsupportedVersion) {
				t.Errorf("%v does not wrap ErrUnsupportedVersion", err)
			}
		})
	}
}

func TestParseReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"version": 2, "width": 80, "height": 24}`+"\n"), iotestErr{})
	if _, err := Parse(r); err == nil || !strings.Contains(err.Error(), "cast: read: boom") {
		t.Errorf("got %v", err)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("boom") }

// js shows events as their JSON lines.
func js(evs []Event) string {
	b, err := json.Marshal(evs)
	if err != nil {
		return fmt.Sprint(evs)
	}
	return string(b)
}

// Lines at their bound still parse, and so do sizes and times at theirs.
func TestParseAtBounds(t *testing.T) {
	t.Parallel()
	pad := func(prefix, suffix string, size int) string {
		return prefix + strings.Repeat("x", size-len(prefix)-len(suffix)) + suffix
	}
	in := pad(`{"version": 2, "width": 1000, "height": 1000, "title": "`, `"}`, MaxHeaderSize) + "\n" +
		pad(`[0.5, "o", "`, `"]`, MaxEventSize) + "\n" +
		`[2.5, "r", "1000x1000"]` + "\n" +
		`[1000000000, "o", "last"]`
	rec := parse(t, in)
	if h := rec.Header; h.Width != 1000 || h.Height != 1000 || len(h.Title) != MaxHeaderSize-len(`{"version": 2, "width": 1000, "height": 1000, "title": ""}`) {
		t.Errorf("header %dx%d, a title of %d", h.Width, h.Height, len(h.Title))
	}
	if len(rec.Events) != 3 || len(rec.Events[0].Data) != MaxEventSize-len(`[0.5, "o", ""]`) || rec.Events[2].Time != MaxTime {
		t.Errorf("%d events", len(rec.Events))
	}
}

// endless is a reader that never ends, every byte c.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// A stream with no newline ever, such as /dev/zero, ends at the line bound of
// the header or of an event, instead of filling memory.
func TestReaderEndlessLine(t *testing.T) {
	t.Parallel()
	if _, err := NewReader(endless(0)); err == nil || err.Error() != "cast: line 1: header: larger than 1 MiB" {
		t.Errorf("endless header: %v", err)
	}
	r, err := NewReader(io.MultiReader(strings.NewReader(`{"version": 2, "width": 80, "height": 24}`+"\n[0.1, \"o\", \"hi\"]\n"), endless('x')))
	if err != nil {
		t.Fatal(err)
	}
	if ev, err := r.Next(); err != nil || ev.Data != "hi" {
		t.Fatalf("first event %v, %v", ev, err)
	}
	if _, err := r.Next(); err == nil || err.Error() != "cast: line 3: event: larger than 4 MiB" {
		t.Errorf("endless event: %v", err)
	}
	if _, err := r.Next(); err == nil || err.Error() != "cast: line 3: event: larger than 4 MiB" {
		t.Errorf("after the error: %v", err)
	}
	if runtime.GOOS == "linux" {
		if _, err := OpenReader("/dev/zero"); err == nil || err.Error() != "cast: /dev/zero: line 1: header: larger than 1 MiB" {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}

// events writes an endless recording, one event a line, and counts the bytes read.
type events struct {
	header bool
	n      int
	read   int
	line   []byte
}

func (e *events) Read(p []byte) (int, error) {
	if len(e.line) == 0 {
		if !e.header {
			e.header = true
			e.line = []byte(`{"version": 2, "width": 80, "height": 24}` + "\n")
		} else {
			e.n++
			e.line = fmt.Appendf(nil, "[%d, \"o\", \"event %d\\r\\n\"]\n", e.n, e.n)
		}
	}
	n := copy(p, e.line)
	e.line = e.line[n:]
	e.read += n
	return n, nil
}

// A Reader reads a recording as it goes: an endless one is read event by event,
// no further ahead than its buffer.
func TestReaderStreams(t *testing.T) {
	t.Parallel()
	src := &events{}
	r, err := NewReader(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 100_000; i++ {
		ev, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("event %d\r\n", i); ev.Data != want || ev.Time != float64(i) {
			t.Fatalf("event %d: %v", i, ev)
		}
	}
	if ahead := src.read - 100_000*len(`[100000, "o", "event 100000\r\n"]`); ahead > 64<<10 {
		t.Errorf("read %d bytes beyond the events returned", ahead)
	}
	if c := cap(r.buf); c > 64<<10 {
		t.Errorf("the line buffer grew to %d bytes", c)
	}
}
