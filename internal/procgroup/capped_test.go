package procgroup

import (
	"bytes"
	"io"
	"testing"
)

// A program that floods its stderr keeps only the first bytes of it,
// however exec copies them (io.Copy from a reader that has no WriteTo, as a
// pipe, looks for a ReadFrom).
func TestCappedStaysBounded(t *testing.T) {
	t.Parallel()
	c := &capped{max: 512}
	if _, err := io.Copy(c, io.LimitReader(bytes.NewReader(make([]byte, 8<<20)), 8<<20)); err != nil {
		t.Fatal(err)
	}
	if n := c.buf.Len(); n > 512 {
		t.Fatalf("kept %d bytes of stderr, want at most %d", n, 512)
	}
}
