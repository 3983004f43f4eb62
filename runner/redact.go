package runner

import (
	"bytes"
	"io"
)

// mask replaces a secret wherever it would be shown.
const mask = "******"

// Redactor hides secret values in text: in the mirrored output, which it filters as
// a stream, and in excerpts of events.
type Redactor struct {
	secrets [][]byte
	w       io.Writer
	pending []byte
}

// NewRedactor writes to w what passes through it, with every secret masked.
func NewRedactor(w io.Writer, secrets []string) *Redactor {
	r := &Redactor{w: w}
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, []byte(s))
		}
	}
	return r
}

// shortSecret is the length below which a secret is masked only where it stands
// alone: masking every "x" of a one-letter secret would spell it out.
const shortSecret = 4

// String masks the secrets in s.
func (r *Redactor) String(s string) string {
	for _, sec := range r.secrets {
		s = string(maskAll([]byte(s), sec))
	}
	return s
}

// maskAll replaces the occurrences of sec in b; a short secret only where no
// letter or digit touches it.
func maskAll(b, sec []byte) []byte {
	if len(sec) >= shortSecret {
		return bytes.ReplaceAll(b, sec, []byte(mask))
	}
	var out []byte
	from := 0
	for {
		i := bytes.Index(b[from:], sec)
		if i < 0 {
			return append(out, b[from:]...)
		}
		start, end := from+i, from+i+len(sec)
		alone := (start == 0 || !isWordByte(b[start-1])) && (end == len(b) || !isWordByte(b[end]))
		out = append(out, b[from:start]...)
		if alone {
			out = append(out, mask...)
		} else {
			out = append(out, sec...)
		}
		from = end
	}
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Write masks and writes p. The end of p is held back while it could be the start
// of a secret that the next write completes.
func (r *Redactor) Write(p []byte) (int, error) {
	if r.w == io.Discard {
		// Nothing is shown: there is nothing to mask.
		return len(p), nil
	}
	if len(r.secrets) == 0 {
		return r.w.Write(p)
	}
	buf := append(r.pending, p...)
	for _, sec := range r.secrets {
		buf = maskAll(buf, sec)
	}
	hold := 0
	for _, sec := range r.secrets {
		for k := min(len(sec)-1, len(buf)); k > hold; k-- {
			if bytes.HasSuffix(buf, sec[:k]) {
				hold = k
				break
			}
		}
	}
	r.pending = append(r.pending[:0], buf[len(buf)-hold:]...)
	if _, err := r.w.Write(buf[:len(buf)-hold]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what was held back.
func (r *Redactor) Flush() error {
	if len(r.pending) == 0 {
		return nil
	}
	_, err := r.w.Write(r.pending)
	r.pending = r.pending[:0]
	return err
}
