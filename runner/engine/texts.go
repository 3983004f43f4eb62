package engine

import "unsafe"

// texts turns bytes into strings by copying them into large chunks of memory
// that it never writes again, instead of allocating each string: a prompt's
// matched text and its answer become strings on every round trip, and an
// allocation costs more than the copy. A string keeps its chunk alive.
type texts struct{ chunk []byte }

// textChunk is the size of a chunk; textOwn is the length from which a string
// gets memory of its own.
const (
	textChunk = 8 << 10
	textOwn   = 1 << 10
)

// string returns the text of b as a string.
func (t *texts) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) >= textOwn {
		return string(b)
	}
	if cap(t.chunk)-len(t.chunk) < len(b) {
		t.chunk = make([]byte, 0, textChunk)
	}
	start := len(t.chunk)
	t.chunk = append(t.chunk, b...)
	// The bytes up to len(t.chunk) are never written again: appends only
	// write past them.
	return unsafe.String(&t.chunk[start], len(b))
}
