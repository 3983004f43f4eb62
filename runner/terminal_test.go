package runner

import (
	"testing"
	"time"

	"github.com/creack/pty"
)

// A size change made after clai read the size and before it listened for
// SIGWINCH sent its signal to nobody: Resized reports it at once.
func TestResizedSeesAChangeMadeBeforeItListened(t *testing.T) {
	t.Parallel()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	term := &Terminal{In: tty, Out: tty}
	if rows, cols := term.Size(); rows != 24 || cols != 80 {
		t.Fatalf("size %dx%d, want 24x80", rows, cols)
	}
	// The terminal is not this process's controlling terminal: the change
	// sends it no SIGWINCH, as for a change before clai listened.
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 33, Cols: 101}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-term.Resized(t.Context()):
	case <-time.After(10 * time.Second):
		t.Fatal("the change made before Resized listened was never reported")
	}
	if rows, cols := term.Size(); rows != 33 || cols != 101 {
		t.Fatalf("size %dx%d, want 33x101", rows, cols)
	}
}
