package cast

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const smallHeader = `{"version": 2, "width": 80, "height": 24}` + "\n"

// recordingOfSize writes a valid recording of exactly size bytes: the header,
// then output events, the last one padded to fit.
func recordingOfSize(t *testing.T, size int) string {
	t.Helper()
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(smallHeader)
	for i := 0; ; i++ {
		line := fmt.Sprintf("[%d, \"o\", \"line %d\\r\\n\"]\n", i, i)
		if left := size - b.Len(); left < 2*len(line)+16 {
			pad := left - len(fmt.Sprintf("[%d, \"o\", \"\"]\n", i))
			fmt.Fprintf(&b, "[%d, \"o\", \"%s\"]\n", i, strings.Repeat("x", pad))
			break
		}
		b.WriteString(line)
	}
	if b.Len() != size {
		t.Fatalf("wrote %d bytes, want %d", b.Len(), size)
	}
	path := filepath.Join(t.TempDir(), "exact.cast")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A recording file over MaxFileSize is refused before a byte of it is
// replayed, with an error that names the file, its size and the bound.
func TestOpenReaderRefusesTooLargeFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.cast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(smallHeader); err != nil {
		t.Fatal(err)
	}
	// 28 MiB, sparse: only its size is looked at.
	if err := f.Truncate(28 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, open := range map[string]func(string) error{
		"OpenReader": func(p string) error { r, err := OpenReader(p); r.closeIfOpen(); return err },
		"Open":       func(p string) error { _, err := Open(p); return err },
	} {
		err := open(path)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != 28<<20 || tl.Limit != MaxFileSize {
			t.Fatalf("%s: got %v, want a *TooLargeError of 28 MiB", name, err)
		}
		want := "cast: " + path + ": the recording is 28.0 MiB (29360128 bytes), over the 8 MiB a recording may hold"
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %q, want it to start with %q", name, err, want)
		}
	}
}

// closeIfOpen closes r unless it is nil.
func (r *Reader) closeIfOpen() {
	if r != nil {
		r.Close()
	}
}

// testLimit is the bound the tests below read with: MaxFileSize's code path,
// at a size quick to read under the race detector.
const testLimit = 256 << 10

// A recording of exactly the bound is read whole; one byte more, in a file
// that grew after it was opened, is a *TooLargeError.
func TestOpenReaderTakesFileAtTheBound(t *testing.T) {
	t.Parallel()
	path := recordingOfSize(t, testLimit)
	r, err := openReader(path, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	n, err := drain(r)
	if err != nil || n < 1000 {
		t.Fatalf("read %d events, then %v", n, err)
	}
	r, err = openReader(path, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var tl *TooLargeError
	if n, err := drain(r); !errors.As(err, &tl) || tl.Size != 0 {
		t.Fatalf("a file grown past the bound: read %d events, then %v; want a *TooLargeError", n, err)
	}
}

// drain reads r's events to the end and returns how many there were, and the
// error that ended them (nil at the end).
func drain(r *Reader) (int, error) {
	var n int
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// A recording whose size is not known beforehand (a pipe) is read up to the
// bound: the event past them is a *TooLargeError, and nothing
// more is read.
func TestOpenReaderCapsPipe(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	src := &events{}
	written := make(chan int64, 1)
	go func() {
		// Twice the bound, or until the reader has gone.
		n, _ := io.Copy(pw, io.LimitReader(src, 2*testLimit))
		pw.Close()
		written <- n
	}()
	path := fmt.Sprintf("/dev/fd/%d", pr.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s here: %v", path, err)
	}
	r, err := openReader(path, testLimit)
	if err != nil {
		t.Fatal(err)
	}
	n, err := drain(r)
	r.Close()
	pr.Close()
	<-written
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 0 || tl.File != path {
		t.Fatalf("after %d events: got %v, want a *TooLargeError", n, err)
	}
	if want := "cast: " + path + ": the recording is more than 256 KiB, over the 256 KiB a recording may hold"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %q, want it to start with %q", err, want)
	}
	if n < 5000 {
		t.Errorf("read only %d events before the bound", n)
	}
}
