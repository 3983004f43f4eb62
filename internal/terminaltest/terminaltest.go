// Package terminaltest is a person at a terminal, for the tests of runs that
// are given one: the other end of a pseudo-terminal, what the program shows
// there, and the keys the person types.
package terminaltest

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Person is the person at a terminal: what it shows, and what they type.
type Person struct {
	t    testing.TB
	ptmx *os.File

	mu   sync.Mutex
	seen bytes.Buffer
}

// Open opens a terminal of rows×cols and returns the person at it and the
// terminal's end for the run (runner.Terminal{In: tty, Out: tty}); both
// close when the test ends.
func Open(t testing.TB, rows, cols uint16) (*Person, *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ptmx.Close(); _ = tty.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	p := &Person{t: t, ptmx: ptmx}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			p.mu.Lock()
			p.seen.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p, tty
}

// Seen is all the terminal has shown so far.
func (p *Person) Seen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen.String()
}

// WaitUntil waits until done holds; the deadline only catches a hang.
func (p *Person) WaitUntil(what string, done func() bool) {
	p.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !done(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("never saw %s; the terminal shows:\n%q", what, p.Seen())
		}
	}
}

// WaitFor waits until the terminal has shown s n times.
func (p *Person) WaitFor(s string, n int) {
	p.t.Helper()
	p.WaitUntil(strings.Repeat(s, n), func() bool { return strings.Count(p.Seen(), s) >= n })
}

// Types types keys at the terminal.
func (p *Person) Types(keys string) {
	p.t.Helper()
	if _, err := p.ptmx.Write([]byte(keys)); err != nil {
		p.t.Fatal(err)
	}
}
