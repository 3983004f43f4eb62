// Package redact hides secret values wherever clai would show them: in the
// output it mirrors and records, which it filters as streams, and in the texts
// of events, the log and the report (see docs/playbook.md, "secret").
package redact

import (
	"bytes"
	"encoding/binary"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clai-sh/clai/internal/glyph"
)

// Mask replaces a secret wherever it would be shown.
const Mask = "******"

// shortSecret is the length below which a secret is masked only where it stands
// alone: masking every "x" of a one-letter secret would spell it out.
const shortSecret = 4

// minPiece is the length from which a piece of a secret is masked wherever it
// is in a text of an event: an excerpt that begins halfway through a secret
// must not show its second half, nor a screen that lost a character of it the
// rest.
const minPiece = 8

// Redactor hides secret values in text: in the mirrored and recorded output,
// which it filters as streams, and in the texts of events.
//
// A secret is found as a terminal shows it: escape sequences (a colour per
// character), carriage returns, line feeds (a line wrapped at the margin, or
// the echo of a multi-line secret) and blanks between its characters are looked
// through. Each occurrence is replaced by one mask, the escape sequences and
// line breaks inside it kept, so that colours and lines survive. The secrets'
// JSON-, Go- and HTML-escaped forms are hidden too, for text a program escaped
// before clai saw it. In a text of an event (String) any piece of a secret of
// minPiece bytes or more is masked as well.
//
// The Redactors a run makes with Filter share their secrets: one added later
// (typed at a password prompt) is hidden by all of them from then on.
type Redactor struct {
	set *secretSet
	w   io.Writer
	// pending is held back: it could be the start of a secret that the next
	// write completes, or an escape sequence not yet ended.
	pending []byte
	scan    projection
}

// secretSet is the secrets of a run, as the forms in which they are looked for.
type secretSet struct {
	forms   []secretForm
	values  map[string]bool
	longest int
	// pieces holds every minPiece bytes in a row of the forms; maybe has the
	// bit of each piece's hash set, to tell most other text at a glance.
	pieces map[uint64]struct{}
	maybe  [pieceBits / 64]uint64
	// starts holds every run of fewer than minPiece bytes of the forms
	// long enough to have pieces: what a stream holds back
	// at its end, as the start of a piece the next write may complete.
	starts map[uint64]struct{}
}

// pieceBits is the size of secretSet.maybe in bits, 1<<pieceShift.
const (
	pieceShift = 14
	pieceBits  = 1 << pieceShift
)

// pieceHash is the bit of secretSet.maybe for piece k (Fibonacci hashing).
func pieceHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> (64 - pieceShift) }

// secretForm is one way a secret can appear: the secret itself or an escaped
// form of it, with what a terminal does not show taken out.
type secretForm struct {
	text []byte
	// short is set for a secret masked only where it stands alone.
	short bool
}

// New returns a Redactor that writes to w what passes through it, with every secret masked.
func New(w io.Writer, secrets []string) *Redactor {
	r := &Redactor{set: &secretSet{values: map[string]bool{}, pieces: map[uint64]struct{}{}, starts: map[uint64]struct{}{}}, w: w}
	for _, s := range secrets {
		r.Add(s)
	}
	return r
}

// Filter returns a Redactor that writes to w and masks the secrets r masks,
// including those added to either later.
func (r *Redactor) Filter(w io.Writer) *Redactor {
	return &Redactor{set: r.set, w: w}
}

// Add makes value a secret from now on. An empty value, or one a terminal does
// not show at all (blanks), is ignored.
func (r *Redactor) Add(value string) {
	set := r.set
	if value == "" || set.values[value] {
		return
	}
	set.values[value] = true
	short := len(shownForm(value)) < shortSecret
	for _, f := range escapedForms(value) {
		text := shownForm(f)
		if len(text) == 0 || slices.ContainsFunc(set.forms, func(g secretForm) bool { return bytes.Equal(g.text, text) }) {
			continue
		}
		set.forms = append(set.forms, secretForm{text: text, short: short})
		set.longest = max(set.longest, len(text))
		for i := 0; i+minPiece <= len(text); i++ {
			k := piece(text[i:])
			set.pieces[k] = struct{}{}
			h := pieceHash(k)
			set.maybe[h/64] |= 1 << (h % 64)
		}
		if len(text) >= minPiece {
			for i := range text {
				for n := 1; n < minPiece && i+n <= len(text); n++ {
					set.starts[startKey(text[i:i+n])] = struct{}{}
				}
			}
		}
	}
}

// startKey is b, fewer than minPiece bytes, as a number: its bytes and its length.
func startKey(b []byte) uint64 {
	var k uint64
	for i, c := range b {
		k |= uint64(c) << (8 * i)
	}
	return k | uint64(len(b))<<56
}

// escapedForms returns value and the forms other programs write it in: JSON
// (with and without its HTML escapes), a Go quoted string and HTML.
func escapedForms(value string) []string {
	quoted := strconv.Quote(value)
	return []string{
		value,
		jsonEscape(value, false),
		jsonEscape(value, true),
		quoted[1 : len(quoted)-1],
		html.EscapeString(value),
		htmlAttrEscaper.Replace(value),
	}
}

// htmlAttrEscaper escapes as html/template does in attributes and text.
var htmlAttrEscaper = strings.NewReplacer(
	"\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", "=", "&#61;", ">", "&gt;",
)

// jsonEscape returns the inside of s as a JSON string; html escapes <, > and &
// as encoding/json does by default.
func jsonEscape(s string, htmlSafe bool) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || htmlSafe && (c == '<' || c == '>' || c == '&') || c == '\u2028' || c == '\u2029':
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[c>>shift&0xf])
			}
		case c == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// shownForm is s without what a terminal does not draw: control characters,
// blanks, and the characters that show as blanks or as nothing (see
// glyph). (A secret's own escape sequences are not looked through.)
func shownForm(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if size > 1 && (glyph.Blank(r) || glyph.Invisible(r)) || size == 1 && blank(s[i]) {
			i += size
			continue
		}
		out = append(out, s[i:i+size]...)
		i += size
	}
	return out
}

// shownAsBlank reports whether b begins with a character that shows as a blank
// or as nothing (see glyph).
func shownAsBlank(b []byte) bool {
	r, size := utf8.DecodeRune(b)
	return size > 1 && (glyph.Blank(r) || glyph.Invisible(r))
}

// blank reports whether c draws nothing: a control character or a space.
func blank(c byte) bool { return c <= ' ' || c == 0x7f }

// String masks the secrets in s, and every piece of one minPiece bytes long or
// more (a cut, or a screen that lost a character, leaves such pieces).
func (r *Redactor) String(s string) string {
	if len(r.set.forms) == 0 || s == "" {
		return s
	}
	if masked, ok := r.mask([]byte(s)); ok {
		return string(masked)
	}
	return s
}

// Bytes masks the secrets in b as String does; it returns b itself when there
// is nothing to mask.
func (r *Redactor) Bytes(b []byte) []byte {
	if len(r.set.forms) == 0 || len(b) == 0 {
		return b
	}
	if masked, ok := r.mask(b); ok {
		return masked
	}
	return b
}

// mask returns text with the secrets masked, and whether there were any.
func (r *Redactor) mask(text []byte) ([]byte, bool) {
	var p projection
	p.project(text)
	spans := r.set.find(&p, text, nil, true)
	if len(spans) == 0 {
		return nil, false
	}
	return p.mask(nil, text, spans, len(text)), true
}

// Write masks and writes p. The end of p is held back while it could be the
// start of a secret, or of a piece of one, that the next write completes, up
// to maxHold: a secret shown in pieces, or mixed with other output (its echo
// and its display interleaved), is masked as in String.
func (r *Redactor) Write(p []byte) (int, error) {
	if r.w == io.Discard {
		// Nothing is shown: there is nothing to mask.
		return len(p), nil
	}
	if len(r.set.forms) == 0 && len(r.pending) == 0 {
		return r.w.Write(p)
	}
	buf := append(r.pending, p...)
	sc := &r.scan
	sc.project(buf)
	spans := r.set.find(sc, buf, nil, true)
	cut := min(sc.partial, len(buf))
	hold := len(sc.shown)
	if n := len(spans); n > 0 && spans[n-1].end == len(sc.shown) {
		// What reaches the end may go on in the next write.
		hold = spans[n-1].start
	} else {
		done := 0
		if n > 0 {
			done = spans[n-1].end
		}
		hold -= r.set.openEnd(sc.shown[done:])
	}
	if hold < len(sc.shown) {
		cut = min(cut, sc.at[hold])
	}
	if len(buf)-cut > r.maxHold() {
		// Too long to wait for: written now, masked as far as it is known.
		cut = len(buf)
	} else {
		spans = slices.DeleteFunc(spans, func(s secretSpan) bool { return sc.at[s.start] >= cut })
	}
	out := sc.mask(sc.out[:0], buf[:cut], spans, cut)
	sc.out = out
	// pending reuses buf's memory: copy what is held to its front.
	r.pending = append(buf[:0], buf[cut:]...)
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// maxHold is the most Write holds back: the longest secret with room for a
// colour around each of its characters.
func (r *Redactor) maxHold() int { return 4<<10 + 16*r.set.longest }

// Holding reports whether Write holds back the end of what it was given.
func (r *Redactor) Holding() bool { return len(r.pending) > 0 }

// Flush writes what was held back, with a secret's start masked if it is long
// enough to be recognised.
func (r *Redactor) Flush() error {
	if len(r.pending) == 0 {
		return nil
	}
	sc := &r.scan
	sc.project(r.pending)
	spans := r.set.find(sc, r.pending, nil, true)
	out := sc.mask(sc.out[:0], r.pending, spans, len(r.pending))
	r.pending = r.pending[:0]
	_, err := r.w.Write(out)
	return err
}

// secretSpan is an occurrence of a secret in the shown text: shown[start:end].
type secretSpan struct{ start, end int }

// find appends to spans the occurrences of the secrets in the shown text of p
// (the projection of text), merged and in order; with pieces, also every piece
// of one minPiece bytes long or more.
func (set *secretSet) find(p *projection, text []byte, spans []secretSpan, pieces bool) []secretSpan {
	shown := p.shown
	for _, f := range set.forms {
		for from := 0; from < len(shown); {
			i := bytes.Index(shown[from:], f.text)
			if i < 0 {
				break
			}
			s := secretSpan{from + i, from + i + len(f.text)}
			if !f.short || p.alone(text, s) {
				spans = append(spans, s)
			}
			from = s.end
		}
	}
	if pieces {
		run := secretSpan{-1, -1}
		for i := 0; i+minPiece <= len(shown); i++ {
			k := piece(shown[i:])
			if h := pieceHash(k); set.maybe[h/64]&(1<<(h%64)) == 0 {
				continue
			}
			if _, ok := set.pieces[k]; !ok {
				continue
			}
			if run.end < i {
				if run.start >= 0 {
					spans = append(spans, run)
				}
				run.start = i
			}
			run.end = i + minPiece
		}
		if run.start >= 0 {
			spans = append(spans, run)
		}
	}
	return mergeSpans(spans)
}

// openEnd is the length of the longest end of shown that begins a secret
// without completing it, or is a run of fewer than minPiece bytes of one that
// has pieces; 0 if none.
func (set *secretSet) openEnd(shown []byte) int {
	best := 0
	for _, f := range set.forms {
		if k := overlap(shown, f.text, len(f.text)-1); k > best {
			best = k
		}
	}
	for n := min(minPiece-1, len(shown)); n > best; n-- {
		if _, ok := set.starts[startKey(shown[len(shown)-n:])]; ok {
			return n
		}
	}
	return best
}

// piece is the first minPiece bytes of b as a number.
func piece(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// overlap is the length of the longest end of a that b begins with, at most limit.
func overlap(a, b []byte, limit int) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	last := a[len(a)-1]
	for k := min(len(a), len(b), limit); k > 0; k-- {
		if b[k-1] == last && bytes.Equal(a[len(a)-k:], b[:k]) {
			return k
		}
	}
	return 0
}

// alone reports whether no letter or digit touches the span s of text's
// projection p: a blank, or the end of the text, separates it from any.
func (p *projection) alone(text []byte, s secretSpan) bool {
	return p.apart(text, s.start-1, s.start) && p.apart(text, s.end-1, s.end)
}

// apart reports whether the shown bytes i and j (next to each other) are not
// parts of one word.
func (p *projection) apart(text []byte, i, j int) bool {
	if i < 0 || j >= len(p.shown) {
		return true
	}
	if !isWordByte(p.shown[i]) || !isWordByte(p.shown[j]) {
		return true
	}
	return slices.ContainsFunc(text[p.at[i]+1:p.at[j]], func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' })
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(spans []secretSpan) []secretSpan {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b secretSpan) int { return a.start - b.start })
	out := spans[:1]
	for _, s := range spans[1:] {
		if last := &out[len(out)-1]; s.start <= last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}

// projection is a text as a terminal shows it: the bytes it draws, without
// escape sequences, control characters and blanks, and where each one is in
// the text.
type projection struct {
	shown []byte
	at    []int
	// spaces is where the text has spaces and tabs outside escape sequences.
	spaces []int
	// partial is where an escape sequence the text ends in begins, or the
	// text's length.
	partial int
	out     []byte
}

// The states of the escape sequence parser of project.
const (
	inText = iota
	inEscape
	inEscapeInter
	inCSI
	inString
	inStringEscape
)

// project reads text as a terminal would (ECMA-48: CSI, OSC, DCS, SOS, PM and
// APC strings, CAN and SUB abort a sequence).
func (p *projection) project(text []byte) {
	if cap(p.shown) < len(text) {
		p.shown, p.at = make([]byte, 0, len(text)), make([]int, 0, len(text))
	}
	p.shown, p.at, p.spaces = p.shown[:0], p.at[:0], p.spaces[:0]
	state, begin, skip := inText, 0, 0
	for i, c := range text {
		if skip > 0 {
			// The rest of a character that shows as a blank or as nothing.
			skip--
			continue
		}
		if c == 0x18 || c == 0x1a {
			state = inText
			continue
		}
		switch state {
		case inText:
			switch {
			case c == 0x1b:
				state, begin = inEscape, i
			case c == ' ' || c == '\t':
				p.spaces = append(p.spaces, i)
			case c >= 0xc2 && shownAsBlank(text[i:]):
				// A no-break space, a zero-width space …: as a space.
				_, size := utf8.DecodeRune(text[i:])
				for k := range size {
					p.spaces = append(p.spaces, i+k)
				}
				skip = size - 1
			case !blank(c):
				p.shown = append(p.shown, c)
				p.at = append(p.at, i)
			}
		case inEscape:
			switch {
			case c == '[':
				state = inCSI
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				state = inString
			case c == 0x1b:
				begin = i
			case c >= 0x20 && c <= 0x2f:
				state = inEscapeInter
			default:
				state = inText
			}
		case inEscapeInter:
			if c >= 0x30 && c <= 0x7e {
				state = inText
			}
		case inCSI:
			switch {
			case c == 0x1b:
				state, begin = inEscape, i
			case c >= 0x40 && c <= 0x7e:
				state = inText
			}
		case inString:
			switch c {
			case 0x07:
				state = inText
			case 0x1b:
				state = inStringEscape
			}
		case inStringEscape:
			switch c {
			case '\\':
				state = inText
			case 0x1b:
			default:
				// Another sequence begins: the string ended.
				state, begin = inEscape, i-1
				if c == '[' {
					state = inCSI
				}
			}
		}
	}
	p.partial = len(text)
	if state != inText {
		p.partial = begin
	}
}

// mask appends text[:end] to dst with each span of the shown text replaced by
// one mask: the drawn bytes and spaces of a span are dropped, the escape
// sequences and line breaks among them kept.
func (p *projection) mask(dst, text []byte, spans []secretSpan, end int) []byte {
	from, space := 0, 0
	for _, s := range spans {
		first := p.at[s.start]
		dst = append(dst, text[from:first]...)
		dst = append(dst, Mask...)
		for i := s.start + 1; i < s.end; i++ {
			for j := p.at[i-1] + 1; j < p.at[i]; j++ {
				for space < len(p.spaces) && p.spaces[space] < j {
					space++
				}
				if space < len(p.spaces) && p.spaces[space] == j {
					continue
				}
				dst = append(dst, text[j])
			}
		}
		from = p.at[s.end-1] + 1
	}
	return append(dst, text[from:end]...)
}
