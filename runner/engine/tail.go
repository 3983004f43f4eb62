package engine

import "unicode/utf8"

// lastChars returns the end of s, at most n bytes, beginning on a character
// boundary: a cut never leaves the tail of a UTF-8 character. Bytes that are no
// UTF-8 (a lone continuation byte) begin nothing; at most a character's worth
// of them is dropped beyond n.
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for j := 0; j < utf8.UTFMax-1 && i < len(s) && !utf8.RuneStart(s[i]); j++ {
		i++
	}
	return s[i:]
}

// recentKeep is how much of the program's latest output recentOutput keeps: more
// than a message quotes, so that a secret that ends in the quoted part is whole
// when it is masked, before the cut.
const recentKeep = 2 << 10

// recentOutput keeps the latest stripped output of the program, whatever was
// matched and answered since, for the messages that quote the program's last
// output. Its work is linear in what it is given: the bytes move only when the
// buffer, twice what it keeps, is full.
type recentOutput struct {
	buf []byte
}

// add appends text, keeping the newest recentKeep bytes (and at times up to
// twice as many).
func (r *recentOutput) add(text []byte) {
	if r.buf == nil {
		r.buf = make([]byte, 0, 2*recentKeep)
	}
	if len(text) >= recentKeep {
		r.buf = append(r.buf[:0], text[len(text)-recentKeep:]...)
		return
	}
	if len(r.buf)+len(text) > cap(r.buf) {
		r.buf = r.buf[:copy(r.buf, r.buf[len(r.buf)-recentKeep:])]
	}
	r.buf = append(r.buf, text...)
}

// text returns the kept output.
func (r *recentOutput) text() string { return string(r.buf) }
