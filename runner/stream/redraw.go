package stream

// Redraw is a row passed on again (see Stripper.Redraws): its text starts at
// at in the output and is n bytes long; its first head and last tail bytes are
// as they were in the version passed on before.
type Redraw struct {
	at, n, head, tail int
}

// sameEnds compares the version of a row passed on before with the new one.
func sameEnds(at int, old, row []byte) Redraw {
	r := Redraw{at: at, n: len(row)}
	most := min(len(old), len(row))
	for r.head < most && old[r.head] == row[r.head] {
		r.head++
	}
	for r.tail < most-r.head && old[len(old)-1-r.tail] == row[len(row)-1-r.tail] {
		r.tail++
	}
	return r
}

// unchanged reports whether the bytes from start to end of the output lie in a
// part of the redrawn row that did not change, with a byte on either side, so
// that whatever matched them there matched the version before as well.
func (r Redraw) unchanged(start, end int) bool {
	start, end = start-r.at, end-r.at
	if start < 0 || end > r.n {
		return false
	}
	return end < r.head || start > r.n-r.tail
}

// Unchanged reports whether the bytes of text from start to end lie in the
// unchanged part of one of the redrawn rows, or that and the newline that
// ends the row (the version before ended the same way). Text is the output
// the rows were passed on in, as the Append and Settle calls that passed them
// on returned it: whatever matched there matched the version before as well.
func Unchanged(redrawn []Redraw, text []byte, start, end int) bool {
	for _, r := range redrawn {
		e := end
		if rowEnd := r.at + r.n; e == rowEnd+1 && text[rowEnd] == '\n' {
			e = rowEnd
		}
		if r.unchanged(start, e) {
			return true
		}
	}
	return false
}
