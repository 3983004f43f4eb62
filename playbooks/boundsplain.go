package playbooks

import ()

// scanPlain reads a plain scalar in block context from offset i, to the end of
// the line, a comment, or ": " when it is a key. It returns where it stopped
// (the colon of a key) and whether it is a key.
func scanPlain(src []byte, i, end int) (int, bool) {
	for ; i < end; i++ {
		switch src[i] {
		case ':':
			if isBlank(src, i+1, end) {
				return i, true
			}
		case '#':
			if src[i-1] == ' ' || src[i-1] == '\t' {
				return i, false
			}
		}
	}
	return i, false
}

// scanQuoted reads a quoted scalar from its opening quote at offset i, over as
// many lines as it takes, and returns the offset after its closing quote. A
// document marker at the start of a line ends it there, as it ends it for the
// parser.
func (s *boundsScanner) scanQuoted(i int) int {
	q := s.src[i]
	s.startText()
	for i++; i < len(s.src) && s.exceeded == nil; i++ {
		switch c := s.src[i]; {
		case c == '\n':
			if isMarker(s.src[i+1:]) {
				return i
			}
			s.line++
			s.lineStart = i + 1
		case c == '\\' && q == '"':
			if i+1 < len(s.src) && s.src[i+1] != '\n' {
				i++
			}
		case c == q:
			if q == '\'' && i+1 < len(s.src) && s.src[i+1] == '\'' {
				i++ // '' is a quote
				continue
			}
			return i + 1
		default:
			s.textByte(i, len(s.src))
		}
	}
	return i
}

// scanFlow reads a flow collection from its opening bracket at offset i, over as
// many lines as it takes, counting its nodes, keys and depth, and returns the
// offset after its closing bracket.
func (s *boundsScanner) scanFlow(i int) int {
	base := len(s.flow)
	s.openFlow(i)
	i++
	for i < len(s.src) && len(s.flow) > base && s.exceeded == nil {
		c := s.src[i]
		switch {
		case c == '\n':
			if isMarker(s.src[i+1:]) {
				s.flow = s.flow[:base] // a document marker ends it, for the parser too
				return i
			}
			s.line++
			s.lineStart = i + 1
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' && (s.src[i-1] == ' ' || s.src[i-1] == '\t' || s.src[i-1] == '\n'):
			for i < len(s.src) && s.src[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			s.flowEntry(i)
			s.countNode(i)
			s.openFlow(i)
			i++
		case c == ']' || c == '}':
			s.flow = s.flow[:len(s.flow)-1]
			i++
		case c == ',':
			s.flow[len(s.flow)-1].entryStart = true
			i++
		case c == ':' && (i+1 >= len(s.src) || isFlowBreak(s.src[i+1])):
			i++ // a value follows
		case c == '?' && (i+1 >= len(s.src) || isFlowBreak(s.src[i+1])):
			i++ // an explicit key
		case c == '&' || c == '!':
			i = skipFlowToken(s.src, i)
		case c == '"' || c == '\'':
			s.flowEntry(i)
			s.countNode(i)
			i = s.scanQuoted(i)
		default:
			s.flowEntry(i)
			s.countNode(i)
			j := skipFlowPlain(s.src, i)
			s.startText()
			s.text(i, j)
			i = j
		}
	}
	return i
}

func (s *boundsScanner) openFlow(i int) {
	s.flow = append(s.flow, flowLevel{mapping: s.src[i] == '{', entryStart: true})
	s.checkDepth(i)
}

// flowEntry notes a node at offset i in the innermost flow collection: the first
// node of an entry of a mapping is a key.
func (s *boundsScanner) flowEntry(i int) {
	f := &s.flow[len(s.flow)-1]
	if !f.entryStart {
		return
	}
	f.entryStart = false
	if f.mapping {
		s.countKey(i, &f.keys)
	}
}

// skipFlowPlain skips a plain scalar in flow context: it ends at a flow
// indicator, ": ", " #" or the end of the line.
func skipFlowPlain(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch c := src[i]; c {
		case ',', '[', ']', '{', '}', '\n', '\r':
			return i
		case ':':
			if i+1 >= len(src) || isFlowBreak(src[i+1]) {
				return i
			}
		case '#':
			if src[i-1] == ' ' || src[i-1] == '\t' {
				return i
			}
		}
	}
	return i
}

// skipFlowToken skips an anchor or a tag in flow context.
func skipFlowToken(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r', '\n', ',', '[', ']', '{', '}':
			return i
		}
	}
	return i
}

// isFlowBreak reports whether c ends a plain scalar after a colon in flow
// context.
func isFlowBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', '[', ']', '{', '}':
		return true
	}
	return false
}

// skipToken skips an anchor or a tag in block context, up to a blank.
func skipToken(src []byte, i, end int) int {
	for i < end && src[i] != ' ' && src[i] != '\t' && src[i] != '\r' {
		i++
	}
	return i
}

func skipSpace(src []byte, i, end int) int {
	for i < end && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// isBlank reports whether offset i of the line ending at end is a blank or the
// line's end.
func isBlank(src []byte, i, end int) bool {
	return i >= end || src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n'
}
