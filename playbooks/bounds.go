package playbooks

import (
	"bytes"
	"fmt"

	"github.com/clai-sh/clai/playbooks/diag"
)

// Bounds of a playbook file, checked before the YAML parser sees it: the parser's
// time and memory grow with the square of the nesting depth, of the number of keys
// of a block mapping and of the number of documents, so a small hostile file could
// take minutes and gigabytes. Each bound is far above any real playbook (the
// largest preset is 30 KB, nests 5 levels and holds under 400 values), and a file
// within all of them parses in well under a second.
const (
	// MaxFileSize is the most bytes a playbook file may hold.
	MaxFileSize = 1 << 20
	// MaxDepth is the deepest a playbook may nest collections, block (by
	// indentation) and flow ([…], {…}) alike.
	MaxDepth = 64
	// MaxNodes is the most values a playbook may hold: scalars, keys, list
	// entries, aliases and flow collections.
	MaxNodes = 20_000
	// MaxKeys is the most keys one mapping may hold, and the most YAML
	// documents one file may hold.
	MaxKeys = 1_000
)

// In a file that is not valid YAML the parser can read text as structure where a
// YAML reader reads a scalar (a stray indicator, a marker inside a quoted scalar,
// a block scalar header with junk after it). So the text of each scalar, and the
// lines of a block scalar, are held to the same bounds as structure: brackets
// nested at most MaxDepth deep, at most MaxDepth "- " on a line, and at most
// MaxKeys lines holding ": ". No real text comes near them.

// checkBounds scans src for the bounds above, in one pass and in memory that does
// not grow with the input, and returns the first bound it exceeds as a finding at
// its place, or false.
func checkBounds(file string, src []byte) (diag.Diagnostic, bool) {
	if len(src) > MaxFileSize {
		return FileTooLarge(file), true
	}
	s := &boundsScanner{src: src, line: 1}
	s.scan()
	if s.exceeded == nil {
		return diag.Diagnostic{}, false
	}
	e := s.exceeded
	return diag.Diagnostic{Pos: Pos{File: file, Line: e.line, Col: e.col}, Severity: diag.Error, Rule: "limits", Message: e.message, Hint: e.hint}, true
}

// maxFileSizeText is MaxFileSize as messages say it (as bounded.Size says
// it: a test holds them equal).
const maxFileSizeText = "1 MiB"

// FileTooLarge is the finding for a playbook or config file over
// MaxFileSize, which is not read.
func FileTooLarge(file string) diag.Diagnostic {
	return diag.Diagnostic{
		Pos: Pos{File: file, Line: 1, Col: 1}, Severity: diag.Error, Rule: "limits",
		Message: "the file is larger than " + maxFileSizeText + ", the most a playbook may hold",
		Hint:    "a playbook is a short file: keep long texts and recordings in files of their own",
	}
}

// boundExceeded is the first bound a scan found exceeded, and where.
type boundExceeded struct {
	line, col     int
	message, hint string
}

// blockLevel is an open block collection: the column of its entries, and the
// keys counted so far when it is a mapping.
type blockLevel struct {
	indent int
	keys   int
}

// flowLevel is an open flow collection.
type flowLevel struct {
	mapping bool
	keys    int
	// entryStart is true until the current entry's first node is seen.
	entryStart bool
}

// boundsScanner reads YAML as far as its structure goes: it tells comments,
// quoted and block scalars, flow collections, properties, aliases and documents
// apart, so that none of them is miscounted, and it counts nesting, values and
// keys. It visits every byte a bounded number of times, and its stacks never hold
// more than MaxDepth+1 levels: the scan stops at the first bound exceeded.
type boundsScanner struct {
	src       []byte
	pos       int // next byte
	line      int // line of pos, from 1
	lineStart int // offset of the line's first byte

	block []blockLevel
	flow  []flowLevel
	nodes int
	docs  int
	// deepest is the greatest depth seen.
	deepest int
	// textDepth is how deep the brackets of the current text (a scalar, the
	// lines of a block scalar) nest, textKeys how many of its lines hold a
	// colon and a space, and textKeyLine the last line counted.
	textDepth, textKeys, textKeyLine int
	// textDashes is how many "- " the current line of the text holds, and
	// textDashLine that line.
	textDashes, textDashLine int

	// A plain scalar ended the last line: more indented lines continue it.
	plainOpen   bool
	plainParent int
	// A block scalar (| or >) is open: lines indented at least contentIndent
	// (or, while it is 0, more than parent) are its text.
	blockScalar   bool
	scalarParent  int
	contentIndent int

	exceeded *boundExceeded
}

func (s *boundsScanner) scan() {
	for s.pos < len(s.src) && s.exceeded == nil {
		s.scanLine()
	}
}

// col is the column of offset i on the current line, from 1.
func (s *boundsScanner) col(i int) int { return i - s.lineStart + 1 }

// exceed records a bound exceeded at offset i of the current line.
func (s *boundsScanner) exceed(i int, hint, format string, args ...any) {
	if s.exceeded == nil {
		s.exceeded = &boundExceeded{line: s.line, col: s.col(i), message: fmt.Sprintf(format, args...), hint: hint}
	}
}

// lineEnd is the offset of the newline after offset i, or len(src).
func (s *boundsScanner) lineEnd(i int) int {
	if n := bytes.IndexByte(s.src[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(s.src)
}

// nextLine moves past the newline at end (or to the end of the input).
func (s *boundsScanner) nextLine(end int) {
	if end < len(s.src) {
		end++
		s.line++
		s.lineStart = end
	}
	s.pos = end
}

// scanLine reads one line in block context.
func (s *boundsScanner) scanLine() {
	end := s.lineEnd(s.pos)
	i := s.pos
	for i < end && s.src[i] == ' ' {
		i++
	}
	indent := i - s.pos // spaces only: a tab is never indentation
	i = skipSpace(s.src, i, end)
	blank := i == end || s.src[i] == '\r'
	if s.col(i) == 1 && isMarker(s.src[i:end]) {
		s.blockScalar, s.plainOpen = false, false
		s.block = s.block[:0]
		if s.src[i] == '-' {
			s.countDocument(i)
		}
		s.scanNodes(i+3, end)
		return
	}
	if s.blockScalar {
		if blank || s.inBlockScalar(indent) {
			s.text(i, end)
			s.nextLine(end)
			return
		}
		s.blockScalar = false
	}
	if blank || s.src[i] == '#' {
		s.nextLine(end)
		return
	}
	if s.plainOpen && indent > s.plainParent {
		s.countNode(i) // more of the plain scalar, counted so its lines stay bounded
		s.text(i, end)
		s.nextLine(end)
		return
	}
	s.plainOpen = false
	if s.col(i) == 1 && s.src[i] == '%' {
		s.startText() // a directive: text, as far as the parser reads it so
		s.text(i, end)
		s.nextLine(end)
		return
	}
	if s.docs == 0 {
		s.countDocument(i)
	}
	for len(s.block) > 0 && s.block[len(s.block)-1].indent > indent {
		s.block = s.block[:len(s.block)-1]
	}
	s.scanNodes(i, end)
}

// inBlockScalar reports whether a line indented by indent belongs to the open
// block scalar, and settles its indentation on its first line.
func (s *boundsScanner) inBlockScalar(indent int) bool {
	if s.contentIndent == 0 {
		if indent <= s.scalarParent {
			return false
		}
		s.contentIndent = indent
	}
	return indent >= s.contentIndent
}

// isMarker reports whether a line starts with a document marker, "---" or
// "...". The parser takes them for markers whatever follows, and so does the scan.
func isMarker(line []byte) bool {
	return len(line) >= 3 && (string(line[:3]) == "---" || string(line[:3]) == "...")
}

func (s *boundsScanner) countDocument(i int) {
	s.docs++
	if s.docs > MaxKeys {
		s.exceed(i, "a playbook is one YAML document", "the file holds more than %d YAML documents", MaxKeys)
	}
}

// parentIndent is the indentation of the innermost open block collection, -1 at
// the top of a document: a scalar's more indented lines belong to it.
func (s *boundsScanner) parentIndent() int {
	if len(s.block) == 0 {
		return -1
	}
	return s.block[len(s.block)-1].indent
}

// countNode counts a value starting at offset i.
func (s *boundsScanner) countNode(i int) {
	s.nodes++
	if s.nodes > MaxNodes {
		s.exceed(i, "split the playbook, or move long lists into files a step can read", "the playbook holds more than %d values", MaxNodes)
	}
}

// startText starts the count of a new text.
func (s *boundsScanner) startText() {
	s.textDepth, s.textKeys, s.textKeyLine, s.textDashes, s.textDashLine = 0, 0, 0, 0, 0
}

// text checks text from offset i to end: a parser that misreads it (in a file
// that is not valid YAML) takes its brackets and runs of "- " for collections and
// its lines with ": " for keys, so these are bounded as MaxDepth and MaxKeys bound
// them.
func (s *boundsScanner) text(i, end int) {
	for ; i < end && s.exceeded == nil; i++ {
		s.textByte(i, end)
	}
}

// textByte checks the byte at offset i of a text whose line ends at end.
func (s *boundsScanner) textByte(i, end int) {
	const hint = "close the brackets, or keep this text in a file of its own"
	switch s.src[i] {
	case '[', '{':
		s.textDepth++
		if s.textDepth > MaxDepth {
			s.exceed(i, hint, "the brackets of this text nest more than %d levels deep", MaxDepth)
		}
	case ']', '}':
		s.textDepth = max(s.textDepth-1, 0)
	case '-':
		if !isBlank(s.src, i+1, end) {
			return
		}
		if s.textDashLine != s.line {
			s.textDashLine, s.textDashes = s.line, 0
		}
		s.textDashes++
		if s.textDashes > MaxDepth {
			s.exceed(i, hint, "a line of this text holds more than %d list marks", MaxDepth)
		}
	case ':':
		if isBlank(s.src, i+1, end) && s.textKeyLine != s.line {
			s.textKeyLine = s.line
			s.textKeys++
			if s.textKeys > MaxKeys {
				s.exceed(i, "keep this text in a file of its own", "this text holds more than %d lines that read as keys", MaxKeys)
			}
		}
	}
}

// checkDepth checks the nesting depth after a collection opened at offset i.
func (s *boundsScanner) checkDepth(i int) {
	s.deepest = max(s.deepest, len(s.block)+len(s.flow))
	if s.deepest > MaxDepth {
		s.exceed(i, "flatten this part of the playbook", "the playbook nests more than %d levels deep here", MaxDepth)
	}
}

func (s *boundsScanner) countKey(i int, keys *int) {
	*keys++
	if *keys > MaxKeys {
		s.exceed(i, "split this mapping, or move its entries into a file of their own", "this mapping holds more than %d keys", MaxKeys)
	}
}

// blockKey counts a block mapping key at offset i: the first key of a new
// mapping opens a level.
func (s *boundsScanner) blockKey(i int) {
	indent := s.col(i) - 1
	if n := len(s.block); n > 0 && s.block[n-1].indent == indent {
		s.countKey(i, &s.block[n-1].keys)
		return
	}
	s.block = append(s.block, blockLevel{indent: indent, keys: 1})
	s.checkDepth(i)
}

// blockEntry counts a block sequence entry ("- ") at offset i.
func (s *boundsScanner) blockEntry(i int) {
	indent := s.col(i) - 1
	if n := len(s.block); n == 0 || s.block[n-1].indent < indent {
		s.block = append(s.block, blockLevel{indent: indent})
		s.checkDepth(i)
	}
	s.countNode(i)
}

// scanNodes reads the nodes of a line in block context from offset i to end (the
// newline): entries, keys and values, and whatever flow collection or quoted
// scalar starts there and goes on over the lines after.
func (s *boundsScanner) scanNodes(i, end int) {
	for s.exceeded == nil {
		i = skipSpace(s.src, i, end)
		if i >= end || s.src[i] == '\r' || s.src[i] == '#' && (i == s.lineStart || isBlank(s.src, i-1, end)) {
			s.nextLine(end)
			return
		}
		c := s.src[i]
		switch {
		case (c == '-' || c == '?') && isBlank(s.src, i+1, end):
			if c == '-' {
				s.blockEntry(i)
			} else {
				s.blockKey(i)
			}
			i++
		case c == ':' && isBlank(s.src, i+1, end):
			i++ // the value of an explicit key
		case c == '&' || c == '!':
			i = skipToken(s.src, i, end) // an anchor or a tag
		case c == '*':
			s.countNode(i) // an alias
			i = skipToken(s.src, i, end)
		case c == ']' || c == '}' || c == ',' || c == '@' || c == '`' || c == '%':
			i++ // out of place, or reserved: an error the parser reports, and no scalar
		case c == '|' || c == '>':
			s.countNode(i)
			if j, ok := s.openBlockScalar(i, end); !ok {
				i = j // what follows is read as the parser reads it: structure
				continue
			}
			s.nextLine(end)
			return
		case c == '[' || c == '{' || c == '"' || c == '\'':
			s.countNode(i)
			start, startLine := i, s.line
			if c == '[' || c == '{' {
				i = s.scanFlow(i)
			} else {
				i = s.scanQuoted(i)
			}
			if s.exceeded != nil {
				return
			}
			if s.line != startLine {
				end = s.lineEnd(i) // the line it ended on
			}
			if j := skipSpace(s.src, i, end); j < end && s.src[j] == ':' && isBlank(s.src, j+1, end) {
				if s.line == startLine {
					s.blockKey(start)
				}
				i = j + 1
			}
		default:
			s.countNode(i)
			j, key := scanPlain(s.src, i, end)
			s.startText()
			s.text(i, j)
			if !key {
				s.plainOpen, s.plainParent = true, s.parentIndent()
				s.nextLine(end)
				return
			}
			s.blockKey(i)
			i = j + 1
		}
	}
}

// openBlockScalar opens the block scalar whose header (| or > and its indicators)
// is at offset i. A header followed by anything but a comment opens nothing: the
// parser reads what follows as structure, and so does the scan, from the offset
// returned.
func (s *boundsScanner) openBlockScalar(i, end int) (int, bool) {
	// A block scalar at the top of a document may go on at column 1, but the
	// parser does not take it so: the scan counts such lines as structure.
	parent, content := max(s.parentIndent(), 0), 0
	j := i + 1
	for ; j < end; j++ {
		if c := s.src[j]; c >= '1' && c <= '9' {
			content = parent + int(c-'0')
		} else if c != '+' && c != '-' {
			break
		}
	}
	if j = skipSpace(s.src, j, end); j < end && s.src[j] != '\r' && (s.src[j] != '#' || s.src[j-1] != ' ' && s.src[j-1] != '\t') {
		return j, false
	}
	s.blockScalar, s.scalarParent, s.contentIndent = true, parent, content
	s.startText()
	return end, true
}
