package runner

import (
	"io"
	"os"

	"golang.org/x/term"
)

// lineEnd passes the program's output on to a terminal and notes whether it
// stopped mid-line there, so that clai's own messages on that terminal start on
// a line of their own.
type lineEnd struct {
	w   io.Writer
	eol string
	// midLine is set while the last character shown is not the end of a line.
	midLine bool
}

// newLineEnd wraps the writer of the mirrored output when it shows on a
// terminal (raw: clai's terminal, in raw mode, which needs "\r\n" to begin a
// line); elsewhere it returns nil and the output is passed on as it is.
func newLineEnd(w io.Writer, raw bool) *lineEnd {
	if raw {
		return &lineEnd{w: w, eol: "\r\n"}
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &lineEnd{w: w, eol: "\n"}
	}
	return nil
}

func (l *lineEnd) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if shown := trimTrailingCSI(p[:n]); len(shown) > 0 {
		l.midLine = shown[len(shown)-1] != '\n'
	}
	return n, err
}

// fresh ends the line the output stopped in, if it did, so that what is written
// next to the terminal starts on a line of its own.
func (l *lineEnd) fresh() {
	if l.midLine {
		_, _ = io.WriteString(l.w, l.eol)
		l.midLine = false
	}
}

// trimTrailingCSI drops the control sequences (ESC [ … final) p ends with: a
// colour reset or a cursor shown after a newline leaves the cursor where it was.
func trimTrailingCSI(p []byte) []byte {
	for {
		i := len(p) - 1
		if i < 0 || p[i] < 0x40 || p[i] > 0x7e {
			return p
		}
		i--
		for i >= 0 && p[i] >= 0x20 && p[i] <= 0x3f {
			i--
		}
		if i < 1 || p[i] != '[' || p[i-1] != 0x1b {
			return p
		}
		p = p[:i-1]
	}
}
