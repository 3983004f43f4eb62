package pty

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The program's last words, read by a ReadWait that was waiting in the kernel
// when the program wrote them and exited, are returned, however late the
// reader comes to look at them: here it is held between its read and its
// return (its goroutine not scheduled on a busy machine) while the linger
// watch finds the terminal quiet past the linger period, with nothing left
// in it, a descendant still holding it open, and ends the output.
func TestReadWaitKeepsLastWordsReadBeforeTheLingerEnds(t *testing.T) {
	t.Parallel()
	clock := newFakeNow(time.Unix(1000, 0))
	p, err := Start(t.Context(), Options{
		Argv:   []string{"sh", "-c", "stty -echo; printf go; read x; printf 'last words'"},
		Linger: lingerPeriod, now: clock.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	holder, err := unix.Open(p.name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("hold the terminal: %v", err)
	}
	t.Cleanup(func() { _ = unix.Close(holder) })
	var got []byte
	for string(got) != "go" {
		out, err := readWait(t, p)
		if err != nil {
			t.Fatalf("ReadWait before the answer: %v (read %q)", err, got)
		}
		got = append(got, out...)
	}

	returned, release := make(chan struct{}), make(chan struct{})
	p.afterRead = func() {
		returned <- struct{}{}
		<-release
	}
	type result struct {
		out string
		err error
	}
	last := make(chan result, 1)
	go func() {
		buf := make([]byte, 1024)
		n, err := p.ReadWait(buf)
		last <- result{string(buf[:n]), err}
	}()
	if _, err := p.Write([]byte("\r")); err != nil {
		t.Fatalf("answer: %v", err)
	}
	within(t, returned, "the read of the last words did not return")
	within(t, p.Done(), "the program did not end")
	clock.advance(3 * lingerPeriod)
	p.lingerDue() // the linger watch, while the reader is held
	close(release)
	r := within(t, last, "ReadWait still waits")
	if r.out != "last words" || r.err != nil {
		t.Fatalf("ReadWait = %q, %v; want %q, nil: the last words were lost", r.out, r.err, "last words")
	}
	p.afterRead = nil
	if out, err := readWait(t, p); out != "" || !errors.Is(err, io.EOF) {
		t.Errorf("ReadWait after the last words = %q, %v; want io.EOF", out, err)
	}
}

// TestLastWordsUnderLoad runs many short programs that print their last words
// and exit as soon as they are answered, while busy goroutines keep every
// processor taken and the linger is short, so that the reader is often late to
// look at what its read brought: not one ending may be lost, whether the
// terminal ends with the program or a descendant keeps it open past the
// linger. CLAI_STRESS=1 runs it long (2,000 programs each way, a few minutes):
//
//	CLAI_STRESS=1 go test -race -run LastWordsUnderLoad ./runner/driver/pty/
func TestLastWordsUnderLoad(t *testing.T) {
	runs := 10
	if os.Getenv("CLAI_STRESS") != "" {
		runs = 2000
	}
	stop := make(chan struct{})
	var busy sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		busy.Add(1)
		go func() {
			defer busy.Done()
			for x := 0; ; x++ {
				select {
				case <-stop:
					return
				default:
				}
				for range 10000 {
					x ^= x << 1
				}
			}
		}()
	}
	defer busy.Wait()
	defer close(stop)
	for _, tc := range []struct{ name, script string }{
		{"ends with the program", "stty -echo; printf go; read x; printf 'last words'"},
		{"held by a descendant", "stty -echo; sleep 600 & printf go; read x; printf 'last words'"},
	} {
		lost := 0
		for i := range runs {
			if out := lastWords(t, tc.script); !strings.HasSuffix(out, "last words") {
				lost++
				t.Logf("%s, run %d: output %q", tc.name, i, out)
			}
		}
		if lost > 0 {
			t.Errorf("%s: %d of %d endings lost", tc.name, lost, runs)
		}
	}
}

// lastWords runs script in sh, answers it once it said go, and returns all it
// read by ReadWait up to io.EOF.
func lastWords(t *testing.T, script string) string {
	t.Helper()
	p, err := Start(t.Context(), Options{Argv: []string{"sh", "-c", script}, Linger: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var out []byte
	buf := make([]byte, 1024)
	answered := false
	for {
		n, err := p.ReadWait(buf)
		out = append(out, buf[:n]...)
		if !answered && strings.HasSuffix(string(out), "go") {
			answered = true
			if _, err := p.Write([]byte("\r")); err != nil {
				t.Fatalf("answer: %v", err)
			}
		}
		if errors.Is(err, io.EOF) {
			return string(out)
		}
		if err != nil {
			t.Fatalf("ReadWait: %v", err)
		}
	}
}
