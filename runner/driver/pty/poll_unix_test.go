//go:build unix

package pty

import (
	"errors"
	"math"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestPollMillis(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		timeout time.Duration
		want    int
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Nanosecond, 1}, // never 0: that would only look, and the caller would spin
		{time.Millisecond, 1},
		{time.Millisecond + time.Nanosecond, 2},
		{1500 * time.Microsecond, 2},
		{50 * time.Millisecond, 50},
		{math.MaxInt32 * time.Millisecond, math.MaxInt32},
		{math.MaxInt64, math.MaxInt32}, // a deadline far off: not negative, which is forever
	} {
		if got := pollMillis(tc.timeout); got != tc.want {
			t.Errorf("pollMillis(%v) = %d, want %d", tc.timeout, got, tc.want)
		}
	}
}

func TestPollReadable(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := int(r.Fd())
	ready := func(timeout time.Duration) int {
		t.Helper()
		for {
			// A signal to this thread (a child of a test beside this one
			// ended) ends a poll with EINTR, which its callers wait again
			// after, as here.
			n, err := pollReadable(fd, timeout)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				t.Fatalf("pollReadable(%v): %v", timeout, err)
			}
			return n
		}
	}
	if n := ready(0); n != 0 {
		t.Errorf("empty pipe: %d ready, want 0", n)
	}
	if n := ready(time.Nanosecond); n != 0 {
		t.Errorf("empty pipe, waited: %d ready, want 0", n)
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if n := ready(time.Hour); n != 1 {
		t.Errorf("pipe with data: %d ready, want 1", n)
	}
	buf := make([]byte, 1)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := ready(time.Hour); n != 1 {
		t.Errorf("pipe closed by its writer: %d ready, want 1 (its end)", n)
	}
}
