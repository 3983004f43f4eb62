package stream

// The parameters of control sequences, read as they arrive, and of SGR.

// maxParam bounds a parameter's value: no line is longer.
const maxParam = 1 << 16

// csiParams holds what a control sequence's parameters say, read as they arrive:
// the first two parameters (no sequence this package carries out needs more),
// whether a given one is present, and what makes the sequence one to ignore.
type csiParams struct {
	vals [2]int
	// index is the parameter being read; sub is set inside a sub-parameter.
	index        int
	sub          bool
	seen         bool
	private      byte
	intermediate bool
	invalid      bool
	// listed holds the parameters 1 to 63 seen in full, for SM, RM and DECSET;
	// alt the alternate screen's modes.
	listed uint64
	alt    uint8
	// sgr reads the parameters as those of SGR, for its conceal attribute.
	sgr sgrParams
	cur int
}

// The alternate screen's modes: with the cursor saved and restored, and without.
const (
	alt1047 = 1 << iota
	alt1049
)

// reset forgets the parameters of the last sequence; it costs nothing when no
// parameter was read.
func (p *csiParams) reset() {
	if p.seen {
		*p = csiParams{}
	}
}

func (p *csiParams) noteAlt() {
	switch p.cur {
	case 1047:
		p.alt |= alt1047
	case 1049:
		p.alt |= alt1049
	}
}

func (p *csiParams) feed(b []byte) {
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if p.intermediate {
				p.invalid = true
			}
			if !p.sub {
				p.cur = min(p.cur*10+int(c-'0'), maxParam)
				if p.index < len(p.vals) {
					p.vals[p.index] = p.cur
				}
			}
		case c == ';':
			if p.intermediate {
				p.invalid = true
			}
			p.endParam()
		case c == ':':
			p.sub = true
		case c >= 0x3c && c <= 0x3f:
			if p.seen {
				p.invalid = true
			}
			p.private = c
		default: // 0x20 to 0x2f
			p.intermediate = true
		}
		p.seen = true
	}
}

func (p *csiParams) endParam() {
	p.noteAlt()
	p.sgr.param(p.cur, p.sub)
	if p.cur > 0 && p.cur < 64 {
		p.listed |= 1 << p.cur
	}
	p.index++
	p.cur, p.sub = 0, false
}

// value returns parameter k, 0 when it is missing.
func (p *csiParams) value(k int) int {
	return p.vals[k]
}

// count returns parameter k as a count: 1 when it is missing or 0.
func (p *csiParams) count(k int) int {
	return max(p.vals[k], 1)
}

// has reports whether one of the parameters is v (1 to 63).
func (p *csiParams) has(v int) bool {
	return p.listed&(1<<v) != 0 || p.cur == v
}

// sgrParams follows SGR's parameters for what they do to the conceal attribute:
// 8 sets it, 28 and 0 (or no parameter) clear it, and the colour numbers after
// 38, 48 and 58 (`38;5;N`, `38;2;R;G;B`) are passed over, not read as attributes.
type sgrParams struct {
	// conceal is 1 when the parameters so far set it, -1 when they clear it.
	conceal int8
	// colour is set after 38, 48 or 58: the next parameter says how many
	// colour numbers follow (5: one, 2: three); skip counts those left.
	colour bool
	skip   int8
}

// param reads one parameter; sub says it had sub-parameters (38:2:R:G:B holds
// its colour in them).
func (g *sgrParams) param(v int, sub bool) {
	switch {
	case g.colour:
		g.colour = false
		switch v {
		case 5:
			g.skip = 1
		case 2:
			g.skip = 3
		}
	case g.skip > 0:
		g.skip--
	case v == 0 || v == 28:
		g.conceal = -1
	case v == 8:
		g.conceal = 1
	case (v == 38 || v == 48 || v == 58) && !sub:
		g.colour = true
	}
}
