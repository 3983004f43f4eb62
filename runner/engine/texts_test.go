package engine

import (
	"bytes"
	"strconv"
	"testing"
)

// TestTextsKeepTheirBytes makes strings of a reused buffer across several
// chunks and checks that none changes when the buffer and the chunks move on.
func TestTextsKeepTheirBytes(t *testing.T) {
	t.Parallel()
	var tx texts
	var buf []byte
	var made, want []string
	for i := range 5000 {
		buf = append(buf[:0], "answer "...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		if i%997 == 0 {
			// Now and then a text too long to share a chunk.
			buf = append(buf, bytes.Repeat([]byte{'x'}, textOwn)...)
		}
		made = append(made, tx.string(buf))
		want = append(want, string(buf))
	}
	if tx.string(nil) != "" {
		t.Error(`string(nil) != ""`)
	}
	for i := range made {
		if made[i] != want[i] {
			t.Fatalf("text %d is %q, want %q", i, made[i], want[i])
		}
	}
}
