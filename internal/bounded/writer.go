package bounded

import "bytes"

// Writer keeps the first bytes written to it, up to its limit, and drops
// the rest: what a program says on its output, kept to be quoted, however
// much it writes. Every write is reported whole, so that the program is
// never stopped by a short write.
type Writer struct {
	buf  bytes.Buffer
	left int
}

// NewWriter keeps limit bytes at most.
func NewWriter(limit int) *Writer { return &Writer{left: limit} }

// Write keeps what fits of p.
func (w *Writer) Write(p []byte) (int, error) {
	keep := min(len(p), w.left)
	w.buf.Write(p[:keep])
	w.left -= keep
	return len(p), nil
}

// String is what was kept.
func (w *Writer) String() string { return w.buf.String() }
