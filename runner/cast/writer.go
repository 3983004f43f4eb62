package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// ErrClosed is returned by the methods of a Writer after Close.
var ErrClosed = errors.New("cast: writer closed")

// Writer writes a recording, one event per line, through a buffer. Its
// methods may be called from several goroutines; each event is one whole
// line.
//
// Times are durations since the start of the recording. An event is never
// written before the previous one: a time earlier than the last written (two
// goroutines that took the time and then raced for the writer) is written as
// the last one.
//
// Output and input are decoded as UTF-8 the way asciinema decodes them: a
// character split between two calls is written whole with the second; bytes
// that are not valid UTF-8 are written as U+FFFD. The first error of the
// underlying writer is kept and returned by every later call.
type Writer struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	line []byte
	text []byte
	last time.Duration
	// pending holds, per stream (output, input), the start of a character
	// whose end has not come yet, and when it came.
	pending   [2][]byte
	pendingAt [2]time.Duration
	err       error
	closed    bool
}

// NewWriter writes the header to w and returns a Writer for the events.
// h.Version zero means 2; any other version than 2 is an error, and so are a
// width or height below 1. Close the Writer to flush it; w itself is not
// closed.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Version == 0 {
		h.Version = Version
	}
	if h.Version != Version {
		return nil, fmt.Errorf("cast: cannot write version %d, only %d", h.Version, Version)
	}
	if h.Width < 1 || h.Height < 1 {
		return nil, fmt.Errorf("cast: terminal size %dx%d: want at least 1x1", h.Width, h.Height)
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil { // one line, with its newline
		return nil, fmt.Errorf("cast: header: %w", err)
	}
	cw := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	if _, err := cw.bw.Write(head.Bytes()); err != nil {
		return nil, fmt.Errorf("cast: write header: %w", err)
	}
	// The header goes out at once: the file is a valid, empty recording.
	if err := cw.bw.Flush(); err != nil {
		return nil, fmt.Errorf("cast: write header: %w", err)
	}
	return cw, nil
}

// Output records data the program wrote, at time t.
func (w *Writer) Output(t time.Duration, data []byte) error {
	return w.stream(0, KindOutput, t, data)
}

// Input records data that reached the program's input (keys typed), at t.
func (w *Writer) Input(t time.Duration, data []byte) error {
	return w.stream(1, KindInput, t, data)
}

// Resize records that the terminal became cols columns by rows rows, at t.
func (w *Writer) Resize(t time.Duration, cols, rows int) error {
	if cols < 1 || rows < 1 {
		return fmt.Errorf("cast: resize to %dx%d: want at least 1x1", cols, rows)
	}
	return w.event(KindResize, t, fmt.Appendf(nil, "%dx%d", cols, rows))
}

// Marker records a marker with label (possibly empty) at t.
func (w *Writer) Marker(t time.Duration, label string) error {
	return w.event(KindMarker, t, []byte(label))
}

// Event records e as it is (its Kind is not checked), decoding e.Data as
// UTF-8 at once (nothing is carried over to a later event).
func (w *Writer) Event(e Event) error {
	if e.Time < 0 {
		return fmt.Errorf("cast: event time %v: negative", e.Time)
	}
	return w.event(e.Kind, e.At(), []byte(e.Data))
}

func (w *Writer) stream(i int, kind string, t time.Duration, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	src := data
	if len(w.pending[i]) > 0 {
		src = append(w.pending[i], data...)
		t = max(t, w.pendingAt[i])
	}
	var n int
	w.text, n = decodeUTF8(w.text[:0], src, false)
	if n > 0 {
		if len(w.pending[i]) == 0 {
			w.pendingAt[i] = t
		}
		w.pending[i] = append(w.pending[i][:0], src[len(src)-n:]...)
	} else {
		w.pending[i] = w.pending[i][:0]
	}
	if len(w.text) == 0 {
		return nil // nothing whole yet
	}
	return w.writeLocked(kind, t, w.text)
}

func (w *Writer) event(kind string, t time.Duration, data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.writeLocked(kind, t, data)
}

func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return ErrClosed
	}
	return nil
}

// writeLocked writes one event line; data is made valid UTF-8 if it is not.
func (w *Writer) writeLocked(kind string, t time.Duration, data []byte) error {
	t = max(t, w.last, 0)
	w.last = t
	w.line = appendEvent(w.line[:0], t, kind, data)
	w.line = append(w.line, '\n')
	if _, err := w.bw.Write(w.line); err != nil {
		w.err = fmt.Errorf("cast: write: %w", err)
		return w.err
	}
	return nil
}

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if err := w.bw.Flush(); err != nil {
		w.err = fmt.Errorf("cast: write: %w", err)
		return w.err
	}
	return nil
}

// Close writes a character left incomplete at the end of output or input as
// U+FFFD, flushes the buffer and returns the first error the Writer met.
// Later calls return ErrClosed; Close itself is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	for i, kind := range []string{KindOutput, KindInput} {
		if len(w.pending[i]) > 0 {
			if err := w.writeLocked(kind, w.pendingAt[i], []byte("\uFFFD")); err != nil {
				return err
			}
			w.pending[i] = nil
		}
	}
	return w.flushLocked()
}
