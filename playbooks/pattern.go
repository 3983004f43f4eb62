package playbooks

import (
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/pattern"
)

// matcher decodes a pattern or a list of patterns, and says where it is
// written; allowEOF admits the eof keyword.
func (d *decoder) matcher(n ast.Node, what string, allowEOF bool) (*pattern.Matcher, Pos) {
	at := d.pos(n)
	items := []ast.Node{n}
	if _, isSeq := d.resolve(n).(*ast.SequenceNode); isSeq {
		items, _ = d.seq(n, what)
		if len(items) == 0 {
			d.errorAt(n, "schema", "give at least one pattern", "%s is an empty list", what)
			return nil, at
		}
	}
	m := &pattern.Matcher{}
	for _, item := range items {
		if p := d.pattern(item, what, allowEOF); p != nil {
			m.Patterns = append(m.Patterns, p)
		}
	}
	if len(m.Patterns) != len(items) {
		return nil, at
	}
	return m, at
}

// pattern decodes one pattern: "text", eof, {regex: …} or {literal: …}.
func (d *decoder) pattern(n ast.Node, what string, allowEOF bool) *pattern.Pattern {
	kind, source := pattern.Literal, ""
	switch v := d.resolve(n).(type) {
	case *ast.StringNode, *ast.LiteralNode:
		text, _ := d.str(v, what)
		if text == "eof" {
			if !allowEOF {
				d.errorAt(v, "schema", `a rule reacts to text; to match the word write {literal: "eof"}`, "%s cannot be eof", what)
				return nil
			}
			return pattern.NewEOF()
		}
		source = text
		if allowEOF && strings.EqualFold(text, "eof") {
			d.report(d.pos(v), diag.Warning, "keyword", `write eof in lower case for the end of output, or {literal: "`+text+`"} for the text`, "%s is the text %q, not the end of output", what, text)
		}
	case *ast.MappingNode, *ast.MappingValueNode:
		present, ok := d.fields(v, what, []string{"regex", "literal"}, func(key string, value ast.Node) {
			source, _ = d.str(value, sub(what, key))
			if key == "regex" {
				kind = pattern.Regex
			}
		})
		if !ok || len(present) == 0 {
			if ok {
				d.errorAt(v, "schema", `write {regex: '…'} or {literal: "…"}`, "%s is an empty mapping", what)
			}
			return nil
		}
		if len(present) > 1 {
			d.errorAt(v, "schema", "keep one of them", "%s has both regex and literal", what)
			return nil
		}
	case *ast.SequenceNode:
		d.errorAt(v, "schema", "flatten the list: a list of patterns already means any of them", "%s cannot nest a list in a list", what)
		return nil
	default:
		d.typeError(v, what, `a pattern ("text", {regex: '…'} or eof)`)
		return nil
	}
	if source == "" {
		d.errorAt(n, "schema", "write the text to wait for", "%s is empty, which would match anything", what)
		return nil
	}
	if kind == pattern.Literal {
		return pattern.NewLiteral(source)
	}
	re, err := regexp.Compile(source)
	if err != nil {
		d.regexError(d.resolve(n), what, source, err)
		return nil
	}
	if re.MatchString("") {
		d.errorAt(n, "regex", "make at least one part of it required, e.g. + instead of *", "%s matches the empty text, so it would match anything", what)
		return nil
	}
	return pattern.NewRegex(re)
}

// regexError reports a regex that does not compile, explaining PCRE-only syntax.
func (d *decoder) regexError(n ast.Node, what, src string, err error) {
	if construct, hint := pcreOnly(src); construct != "" {
		d.errorAt(n, "pcre", hint, "%s uses %s, which Go's RE2 does not support", what, construct)
		return
	}
	msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
	d.errorAt(n, "regex", "fix the expression; test it with RE2 syntax (https://github.com/google/re2/wiki/Syntax)", "%s does not compile: %s", what, msg)
}

// pcreOnly finds the first construct in src that PCRE supports and RE2 does not, and
// says how to write it in RE2.
func pcreOnly(src string) (construct, hint string) {
	const whenHint = "match the text itself and put the condition in when:, e.g. when: 'not (match.text contains \"--force\")'"
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		rest := src[i:]
		switch {
		case c == '\\' && i+1 < len(src):
			e := src[i+1]
			i++
			switch {
			case e == 'Q':
				if end := strings.Index(src[i:], `\E`); end >= 0 {
					i += end + 1
				} else {
					i = len(src)
				}
			case inClass:
			case e >= '1' && e <= '9':
				return "the backreference \\" + string(e), "RE2 has no backreferences: capture both parts and compare them in when:, e.g. when: 'match.groups[1] == match.groups[2]'"
			case e == 'k' || e == 'g':
				return "the backreference \\" + string(e), "RE2 has no backreferences: capture both parts and compare them in when:, e.g. when: 'match.groups[1] == match.groups[2]'"
			case e == 'Z':
				return `\Z`, `write \z for the end of the text, or \n?\z to allow one final newline as PCRE's \Z does`
			case e == 'G':
				return `\G`, `RE2 has no \G; anchor with ^ or \A`
			case e == 'h':
				return `\h`, `write [ \t] for horizontal white space`
			case e == 'R':
				return `\R`, `write (?:\r\n|\n|\r) for a line break`
			case e == 'K':
				return `\K`, "put the part you want in a named group and use match.NAME"
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if strings.HasPrefix(rest, "[]") || strings.HasPrefix(rest, "[^]") {
				i += strings.Index(rest, "]")
			}
		case strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!"):
			return "the lookahead " + rest[:3] + "…)", "RE2 has no lookaround: " + whenHint
		case strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!"):
			return "the lookbehind " + rest[:4] + "…)", "RE2 has no lookaround: " + whenHint
		case strings.HasPrefix(rest, "(?>"):
			return "the atomic group (?>…)", "RE2 never backtracks, so a plain group (?:…) does the same"
		case strings.HasPrefix(rest, "(?#"):
			return "the comment group (?#…)", "move the comment into a YAML comment"
		case strings.HasPrefix(rest, "(?'"):
			return "the quoted group name (?'name'…)", "write (?P<name>…)"
		case strings.HasPrefix(rest, "(?|"), strings.HasPrefix(rest, "(?("), strings.HasPrefix(rest, "(?R"),
			len(rest) > 2 && strings.HasPrefix(rest, "(?") && rest[2] >= '0' && rest[2] <= '9':
			return "a conditional, recursion or branch-reset group", "RE2 does not support it: split the pattern into several patterns (a list means any of them)"
		case (c == '*' || c == '+' || c == '?' || c == '}') && i+1 < len(src) && src[i+1] == '+' && i > 0 && src[i-1] != '\\' && !(c == '?' && src[i-1] == '('):
			return "the possessive quantifier " + src[i:i+2], "RE2 never backtracks, so the plain quantifier does the same: drop the second +"
		}
	}
	return "", ""
}
