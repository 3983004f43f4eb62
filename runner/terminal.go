package runner

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// Terminal is the terminal of the person running clai: raw mode while the program
// runs, keystrokes passed through, size changes followed.
type Terminal struct {
	In  *os.File
	Out *os.File
	// rows and cols are the size Size last read (0 before), so that Resized
	// sees a change made before it listened for one.
	rows, cols uint16
}

// OpenTerminal returns the terminal when both stdin and stdout are one, else nil:
// the run is headless and stdin is never read.
func OpenTerminal(in, out *os.File) *Terminal {
	if in == nil || out == nil || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return nil
	}
	return &Terminal{In: in, Out: out}
}

// Size returns the terminal size, or 0, 0 when it cannot be read.
func (t *Terminal) Size() (rows, cols uint16) {
	w, h, err := term.GetSize(int(t.Out.Fd()))
	if err != nil || w <= 0 || h <= 0 {
		return 0, 0
	}
	t.rows, t.cols = uint16(h), uint16(w)
	return t.rows, t.cols
}

// Raw puts the terminal in raw mode and returns the function that restores it.
func (t *Terminal) Raw() (restore func(), err error) {
	state, err := term.MakeRaw(int(t.In.Fd()))
	if err != nil {
		return nil, err
	}
	return func() { _ = term.Restore(int(t.In.Fd()), state) }, nil
}

// Input returns the person's keystrokes. The reading goroutine ends at the first
// keystroke after ctx is done, or at the end of input.
func (t *Terminal) Input(ctx context.Context) <-chan []byte {
	ch := make(chan []byte)
	go func() {
		defer close(ch)
		buf := make([]byte, 4096)
		for {
			n, err := t.In.Read(buf)
			if n > 0 {
				data := append([]byte(nil), buf[:n]...)
				select {
				case ch <- data:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// Resized signals each change of the terminal size until ctx is done, and at
// once if the size changed since Size last read it: the SIGWINCH of a change made
// before Resized listened went unheard.
func (t *Terminal) Resized(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGWINCH)
	if rows, cols := t.rows, t.cols; rows > 0 {
		if r, c := t.Size(); r != rows || c != cols {
			ch <- struct{}{}
		}
	}
	go func() {
		defer signal.Stop(sig)
		defer close(ch)
		for {
			select {
			case <-sig:
				select {
				case ch <- struct{}{}:
				default:
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}
