package pty

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner/driver"
)

// waitLimit bounds how long a test waits for a ReadWait to end: it detects a
// hang, it does not synchronise anything.
const waitLimit = 30 * time.Second

// within returns what ch brings, and fails the test with hang if nothing comes
// within waitLimit.
func within[T any](t *testing.T, ch <-chan T, hang string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatal(hang)
	}
	var none T // not reached: t.Fatal ends the test
	return none
}

// TestCloseEndsReadWait holds the terminal open from outside the program's
// session, as a daemon that detached itself would, so that ending the session
// does not end the read: Close itself must.
func TestCloseEndsReadWait(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), Options{Argv: []string{testprog.Build(t, "silent")}})
	if err != nil {
		t.Fatal(err)
	}
	holder, err := unix.Open(p.name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("hold the terminal: %v", err)
	}
	defer unix.Close(holder)
	ended := make(chan error, 1)
	go func() {
		buf := make([]byte, 1024)
		for {
			if _, err := p.ReadWait(buf); err != nil {
				ended <- err
				return
			}
		}
	}()
	// Close once the read is waiting in the kernel.
	for !p.waiting.Load() {
		time.Sleep(time.Millisecond)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := within(t, ended, "ReadWait still waits after Close"); !errors.Is(err, io.EOF) {
		t.Errorf("ReadWait after Close = %v, want io.EOF", err)
	}
}

// TestReadWaitBesideWrites writes while a ReadWait waits on the same
// descriptor: every answer must come back through the waiting read.
func TestReadWaitBesideWrites(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), Options{Argv: []string{testprog.Build(t, "echo")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 1024)
		for {
			n, err := p.ReadWait(buf)
			all = append(all, buf[:n]...)
			if err != nil {
				out <- all
				return
			}
		}
	}()
	const lines = 200
	for i := range lines {
		if _, err := p.Write([]byte("line" + string(rune('a'+i%26)) + "\r")); err != nil {
			t.Fatalf("Write %d: %v", i, err)
		}
	}
	if _, err := p.Write([]byte("quit\r")); err != nil {
		t.Fatal(err)
	}
	all := within(t, out, "ReadWait did not reach the end of output")
	if got := bytes.Count(all, []byte("LINE")); got != lines {
		t.Errorf("%d answers, want %d; output ends %q", got, lines, all[max(len(all)-200, 0):])
	}
	if !strings.Contains(string(all), "bye") {
		t.Errorf("no bye: %q", all[max(len(all)-200, 0):])
	}
}

// TestWriteWaitingForRoom fills the input of a program that reads nothing: the
// write that finds no room waits, and fails with ErrEnded once the program
// ends, whether it exits by itself (with the terminal then closed, or still
// held open from outside its session) or Close ends it. The kernel alone does
// not always wake a writer whose terminal closes: endWrites must.
func TestWriteWaitingForRoom(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"exit", "exit, held", "Close"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			argv := []string{testprog.Build(t, "silent")}
			if how != "Close" {
				argv = append(argv, "-for", "300ms")
			}
			p, err := Start(context.Background(), Options{Argv: argv})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if how == "exit, held" {
				holder, err := unix.Open(p.name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
				if err != nil {
					t.Fatalf("hold the terminal: %v", err)
				}
				defer unix.Close(holder)
			}
			wrote := make(chan error, 1)
			go func() {
				_, err := p.Write(bytes.Repeat([]byte("x\r"), 1<<19))
				wrote <- err
			}()
			if how == "Close" {
				// Close once the write waits for room (it cannot be seen
				// from outside: a moment is enough, and the test passes
				// either way the race goes).
				time.Sleep(50 * time.Millisecond)
				if err := p.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
			}
			if err := within(t, wrote, "Write still waits after the program ended"); !errors.Is(err, driver.ErrEnded) {
				t.Errorf("Write = %v, want ErrEnded", err)
			}
		})
	}
}

// TestByteWakeIsNotOutput wakes a ReadWait with a byte written to the
// terminal, the wake of last resort where the threads cannot be interrupted:
// the byte ends the read, and is never returned as the program's output.
func TestByteWakeIsNotOutput(t *testing.T) {
	t.Parallel()
	p, err := Start(context.Background(), Options{Argv: []string{testprog.Build(t, "silent")}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	type result struct {
		out []byte
		err error
	}
	ended := make(chan result, 1)
	go func() {
		buf := make([]byte, 1024)
		n, err := p.ReadWait(buf)
		ended <- result{buf[:n], err}
	}()
	// Whether the reader waits in the kernel yet or comes later, the byte is
	// there for it to read.
	p.wakeByByte()
	if r := within(t, ended, "ReadWait still waits after the byte"); len(r.out) != 0 || !errors.Is(r.err, io.EOF) {
		t.Errorf("ReadWait woken by a byte = %q, %v; want io.EOF", r.out, r.err)
	}
}
