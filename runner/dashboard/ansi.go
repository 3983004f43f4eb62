package dashboard

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// maxScreenBytes bounds the screen text a page is sent: a screen of a few
// hundred rows and columns with colours stays well below it; more is cut.
const maxScreenBytes = 256 << 10

// style is the look of a run of text: its colours and attributes as SGR
// sequences set them.
type style struct {
	fg, bg                   colour
	bold, faint, italic      bool
	underline, reverse       bool
	strike, hidden, blinking bool
}

// colour is a terminal colour: none, one of the 16 of the palette (index
// 0–15), or a direct RGB value (from the 256-colour table or 24-bit).
type colour struct {
	set     bool
	palette int // 0–15 when rgb is false
	rgb     bool
	r, g, b uint8
}

// screenHTML renders a screen with its colours, as escape sequences a
// terminal draws (SGR only; any other sequence is dropped), as HTML: the text
// escaped, each run of one look a span with classes for its attributes and
// the 16 palette colours, and data-fg/data-bg for other colours, which the
// page applies (its Content-Security-Policy forbids inline styles). Nothing of
// the input reaches the page unescaped.
func screenHTML(ansi string) string {
	if len(ansi) > maxScreenBytes {
		ansi = ansi[:maxScreenBytes]
	}
	var b strings.Builder
	var cur style
	var run strings.Builder
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if attrs := cur.attrs(); attrs != "" {
			b.WriteString("<span" + attrs + ">")
			b.WriteString(html.EscapeString(run.String()))
			b.WriteString("</span>")
		} else {
			b.WriteString(html.EscapeString(run.String()))
		}
		run.Reset()
	}
	for i := 0; i < len(ansi); {
		c := ansi[i]
		if c != 0x1b {
			if c == '\r' || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				i++ // control characters draw nothing
				continue
			}
			run.WriteByte(c)
			i++
			continue
		}
		params, final, n := escape(ansi[i:])
		i += n
		if final == 'm' {
			next := cur
			next.apply(params)
			if next != cur {
				flush()
				cur = next
			}
		}
	}
	flush()
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// escape reads the escape sequence at the start of s: for a CSI sequence
// its parameters and final byte; it returns how many bytes the sequence
// takes (at least 1).
func escape(s string) (params string, final byte, n int) {
	if len(s) < 2 {
		return "", 0, len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if c := s[j]; c >= 0x40 && c <= 0x7e {
				return s[2:j], c, j + 1
			}
		}
		return "", 0, len(s)
	case ']', 'P', '_', '^', 'X':
		// A string runs to BEL or ST.
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return "", 0, j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return "", 0, j + 2
			}
		}
		return "", 0, len(s)
	default:
		// ESC, intermediate bytes, a final byte (ESC ( B, ESC 7).
		j := 1
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		return "", 0, min(j+1, len(s))
	}
}

// apply changes st as the SGR parameters params do.
func (st *style) apply(params string) {
	if params == "" {
		*st = style{}
		return
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	for i := 0; i < len(ps); i++ {
		p, err := strconv.Atoi(ps[i])
		if err != nil {
			continue
		}
		switch {
		case p == 0:
			*st = style{}
		case p == 1:
			st.bold = true
		case p == 2:
			st.faint = true
		case p == 3:
			st.italic = true
		case p == 4:
			st.underline = true
		case p == 5 || p == 6:
			st.blinking = true
		case p == 7:
			st.reverse = true
		case p == 8:
			st.hidden = true
		case p == 9:
			st.strike = true
		case p == 22:
			st.bold, st.faint = false, false
		case p == 23:
			st.italic = false
		case p == 24:
			st.underline = false
		case p == 25:
			st.blinking = false
		case p == 27:
			st.reverse = false
		case p == 28:
			st.hidden = false
		case p == 29:
			st.strike = false
		case p >= 30 && p <= 37:
			st.fg = colour{set: true, palette: p - 30}
		case p >= 90 && p <= 97:
			st.fg = colour{set: true, palette: p - 90 + 8}
		case p == 39:
			st.fg = colour{}
		case p >= 40 && p <= 47:
			st.bg = colour{set: true, palette: p - 40}
		case p >= 100 && p <= 107:
			st.bg = colour{set: true, palette: p - 100 + 8}
		case p == 49:
			st.bg = colour{}
		case p == 38 || p == 48:
			c, used, ok := extended(ps[i+1:])
			i += used
			switch {
			case !ok:
			case p == 38:
				st.fg = c
			default:
				st.bg = c
			}
		}
	}
}

// extended reads the colour of "38;5;N" or "38;2;R;G;B" (ps follows the 38
// or 48), how many parameters it used, and whether it is a colour.
func extended(ps []string) (c colour, used int, ok bool) {
	num := func(i int) int {
		if i >= len(ps) {
			return -1
		}
		n, err := strconv.Atoi(ps[i])
		if err != nil {
			return -1
		}
		return n
	}
	switch num(0) {
	case 5:
		n := num(1)
		if n < 0 || n > 255 {
			return colour{}, min(2, len(ps)), false
		}
		return indexed(n), 2, true
	case 2:
		// "38:2::R:G:B" has a colour-space id; the split above drops the
		// empty field, so both forms read as 2;R;G;B.
		r, g, b := num(1), num(2), num(3)
		if r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255 {
			return colour{}, min(4, len(ps)), false
		}
		return colour{set: true, rgb: true, r: uint8(r), g: uint8(g), b: uint8(b)}, 4, true
	}
	return colour{}, min(1, len(ps)), false
}

// indexed is colour n of the 256-colour table.
func indexed(n int) colour {
	switch {
	case n < 16:
		return colour{set: true, palette: n}
	case n < 232:
		n -= 16
		level := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + 40*v)
		}
		return colour{set: true, rgb: true, r: level(n / 36), g: level(n / 6 % 6), b: level(n % 6)}
	default:
		v := uint8(8 + 10*(n-232))
		return colour{set: true, rgb: true, r: v, g: v, b: v}
	}
}

// attrs is the HTML attributes of a span of style st, with a leading space,
// or "" for the default look.
func (st style) attrs() string {
	var class []string
	fg, bg := st.fg, st.bg
	if st.reverse {
		fg, bg = bg, fg
		class = append(class, "rv") // the page swaps the default colours
	}
	var data string
	if fg.set {
		if fg.rgb {
			data += fmt.Sprintf(` data-fg="#%02x%02x%02x"`, fg.r, fg.g, fg.b)
		} else {
			class = append(class, "f"+strconv.Itoa(fg.palette))
		}
	}
	if bg.set {
		if bg.rgb {
			data += fmt.Sprintf(` data-bg="#%02x%02x%02x"`, bg.r, bg.g, bg.b)
		} else {
			class = append(class, "b"+strconv.Itoa(bg.palette))
		}
	}
	for _, a := range []struct {
		on   bool
		name string
	}{{st.bold, "bo"}, {st.faint, "fa"}, {st.italic, "it"}, {st.underline, "ul"}, {st.strike, "st"}, {st.hidden, "hi"}, {st.blinking, "bl"}} {
		if a.on {
			class = append(class, a.name)
		}
	}
	if len(class) == 0 {
		return data
	}
	return ` class="` + strings.Join(class, " ") + `"` + data
}
