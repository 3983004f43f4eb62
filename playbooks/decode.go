package playbooks

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// decoder walks a YAML syntax tree and collects every finding instead of stopping at
// the first, so one lint run shows all that is wrong with a file.
type decoder struct {
	file  string
	diags diag.List
	// aliases maps each alias to the node of the anchor it names, as YAML reads
	// them: in document order, the latest definition before the alias.
	aliases map[*ast.AliasNode]ast.Node
	// typos records, per mapping, the known keys that a misspelt key was taken for,
	// so the key is not reported missing as well.
	typos map[ast.Node]map[string]bool
	// varsStruct is the struct of the playbook's variables, built at its first place.
	varsStruct *varsStruct
	// envs are the places' environments built so far (see envFor).
	envs map[string]*Env
	// base is the preset the playbook extends, nil when it extends none;
	// extendsPos is where it says so.
	base       *Playbook
	extendsPos Pos

	// errors counts the error findings so far.
	errors int
	// unsureKeys holds the settings ("timeouts.idle") and whole sections
	// ("settings") whose value did not decode, or whose key was misspelt:
	// the checks that compare them are left out, since the value they would
	// compare is not the one the author meant.
	unsureKeys map[string]bool
	// incomplete holds the steps, rules and danger rules with an error.
	incomplete map[any]bool
	// namesUnsure is set when a step, rule or danger rule may have lost its
	// name to an error, so a reference to a name cannot be checked.
	namesUnsure bool
}

// errorsSince reports whether an error was found since the count was n.
func (d *decoder) errorsSince(n int) bool { return d.errors > n }

// markUnsure records that the value of key (or of a whole section) is not the
// one the author meant.
func (d *decoder) markUnsure(key string) {
	if d.unsureKeys == nil {
		d.unsureKeys = map[string]bool{}
	}
	d.unsureKeys[key] = true
}

// unsure reports whether one of keys, or the section it belongs to, or a key
// within it, did not decode.
func (d *decoder) unsure(keys ...string) bool {
	for marked := range d.unsureKeys {
		for _, k := range keys {
			if marked == k || strings.HasPrefix(marked, k+".") || strings.HasPrefix(k, marked+".") {
				return true
			}
		}
	}
	return false
}

// markIncomplete records that a step, rule or danger rule has an error.
func (d *decoder) markIncomplete(item any) {
	if d.incomplete == nil {
		d.incomplete = map[any]bool{}
	}
	d.incomplete[item] = true
}

// trackedFields decodes the fields of a section as fields does, and marks as
// unsure each key whose value has an error or that a misspelt key was taken
// for, and the whole section when it is not a mapping.
func (d *decoder) trackedFields(n ast.Node, section string, known []string, handle func(key string, value ast.Node)) (map[string]entry, bool) {
	present, ok := d.fields(n, section, known, func(key string, v ast.Node) {
		before := d.errors
		handle(key, v)
		if d.errorsSince(before) {
			d.markUnsure(section + "." + key)
		}
	})
	if !ok {
		d.markUnsure(section)
	}
	for _, k := range known {
		if d.mistyped(n, k) {
			d.markUnsure(section + "." + k)
		}
	}
	return present, ok
}

func (d *decoder) pos(n ast.Node) Pos {
	// A mapping is where its first key is, not where its first colon is.
	switch v := n.(type) {
	case *ast.MappingNode:
		if len(v.Values) > 0 {
			n = v.Values[0].Key
		}
	case *ast.MappingValueNode:
		n = v.Key
	}
	if n == nil || n.GetToken() == nil {
		return Pos{File: d.file, Line: 1, Col: 1}
	}
	p := n.GetToken().Position
	return Pos{File: d.file, Line: p.Line, Col: p.Column}
}

func (d *decoder) report(p Pos, sev diag.Severity, rule, hint, format string, args ...any) {
	if sev == diag.Error {
		d.errors++
	}
	d.diags = append(d.diags, diag.Diagnostic{
		Pos: p, Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...), Hint: hint,
	})
}

func (d *decoder) errorAt(n ast.Node, rule, hint, format string, args ...any) {
	d.report(d.pos(n), diag.Error, rule, hint, format, args...)
}

// linkAliases finds the anchor each alias of the document names, in document
// order, whatever order the sections are decoded in; an alias used before any
// anchor of its name, or inside the value of the anchor it names (a value that
// would hold itself), is reported.
func (d *decoder) linkAliases(doc ast.Node) {
	d.aliases = map[*ast.AliasNode]ast.Node{}
	anchors := map[string]ast.Node{}
	// open holds the anchors whose value is being walked.
	open := map[string]bool{}
	var visit visitFunc
	visit = func(n ast.Node) bool {
		switch v := n.(type) {
		case *ast.AnchorNode:
			name := anchorName(v.Name)
			open[name] = true
			ast.Walk(visit, v.Value)
			delete(open, name)
			anchors[name] = v.Value
			return false
		case *ast.AliasNode:
			name := anchorName(v.Value)
			target, ok := anchors[name]
			switch {
			case open[name]:
				d.errorAt(v, "yaml", "write the value out here, or give the inner part an anchor of its own", "alias *%s is inside the value of &%s, which cannot hold itself", name, name)
			case ok:
				d.aliases[v] = target
			default:
				d.errorAt(v, "yaml", fmt.Sprintf("define &%s before this place: YAML reads anchors in document order", name), "alias *%s names no anchor defined before it", name)
			}
			// What an alias names is decoded where its anchor is.
			return false
		}
		return true
	}
	ast.Walk(visit, doc)
}

// visitFunc is an ast.Visitor that goes into a node's children when it returns true.
type visitFunc func(ast.Node) bool

func (f visitFunc) Visit(n ast.Node) ast.Visitor {
	if f(n) {
		return f
	}
	return nil
}

// resolve follows anchors, aliases and tags to the node that holds the value.
// An alias that names no anchor resolves to itself (linkAliases reported it).
func (d *decoder) resolve(n ast.Node) ast.Node {
	for depth := 0; n != nil && depth < 32; depth++ {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.AliasNode:
			target, ok := d.aliases[v]
			if !ok {
				return n
			}
			n = target
		case *ast.TagNode:
			n = v.Value
		default:
			return n
		}
	}
	return n
}

func anchorName(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	if n == nil {
		return ""
	}
	return n.String()
}

// kindName describes a node's type the way the messages speak of it.
func kindName(n ast.Node) string {
	switch n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode:
		return "an integer"
	case *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "true/false"
	case *ast.NullNode, nil:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	}
	return "an unsupported value"
}

func (d *decoder) typeError(n ast.Node, what, want string) {
	if _, ok := n.(*ast.AliasNode); ok {
		return // an alias that names no anchor, reported once where it is
	}
	hint := fmt.Sprintf("write %s here", want)
	if want == "a string" {
		hint = `quote the value, e.g. "1" or "yes"`
	}
	d.errorAt(n, "schema", hint, "%s must be %s, not %s", what, want, kindName(n))
}

// str decodes a string scalar.
func (d *decoder) str(n ast.Node, what string) (string, bool) {
	switch v := d.resolve(n).(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	}
	d.typeError(d.resolve(n), what, "a string")
	return "", false
}

// MaxNameLength is how many characters a playbook's name may have.
const MaxNameLength = 255

// checkName reports a playbook name that logs, reports and file names cannot
// carry as it is: one with control characters (a NUL, a newline, an escape
// sequence) or longer than MaxNameLength characters.
func (d *decoder) checkName(n ast.Node, name string) {
	if i := strings.IndexFunc(name, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		d.errorAt(d.resolve(n), "schema", "write the name on one line, in letters, digits, spaces and punctuation", "name holds the control character %U at byte %d", r, i+1)
	}
	if c := utf8.RuneCountInString(name); c > MaxNameLength {
		d.errorAt(d.resolve(n), "schema", "shorten it; description: holds the long text", "name has %d characters, at most %d are allowed", c, MaxNameLength)
	}
}

// intValue returns the value of an integer node, saturated to the int64 range.
func intValue(v *ast.IntegerNode) int64 {
	switch x := v.Value.(type) {
	case int64:
		return x
	case uint64:
		if x > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(x)
	}
	return 0
}

// text decodes a string that must not be empty.
func (d *decoder) text(n ast.Node, what string) (string, bool) {
	s, ok := d.str(n, what)
	if ok && s == "" {
		d.errorAt(d.resolve(n), "schema", "write a value or remove the key", "%s is empty", what)
		return "", false
	}
	return s, ok
}

// integer decodes an integer scalar and checks it lies in [lo, hi].
func (d *decoder) integer(n ast.Node, what string, lo, hi int64) (int, bool) {
	v, ok := d.resolve(n).(*ast.IntegerNode)
	if !ok {
		d.typeError(d.resolve(n), what, "an integer")
		return 0, false
	}
	i := intValue(v)
	if i < lo || i > hi {
		d.errorAt(v, "schema", fmt.Sprintf("use a value from %d to %d", lo, hi), "%s must be from %d to %d, not %d", what, lo, hi, i)
		return 0, false
	}
	return int(i), true
}

// boolean decodes true or false.
func (d *decoder) boolean(n ast.Node, what string) (bool, bool) {
	v, ok := d.resolve(n).(*ast.BoolNode)
	if !ok {
		d.typeError(d.resolve(n), what, "true or false")
		return false, false
	}
	return v.Value, true
}

// seq decodes a list; a nil result with true means an empty list.
func (d *decoder) seq(n ast.Node, what string) ([]ast.Node, bool) {
	v, ok := d.resolve(n).(*ast.SequenceNode)
	if !ok {
		d.typeError(d.resolve(n), what, "a list")
		return nil, false
	}
	return v.Values, true
}

// strings decodes a list of strings.
func (d *decoder) strings(n ast.Node, what string) ([]string, bool) {
	items, ok := d.seq(n, what)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(items))
	all := true
	for i, item := range items {
		s, ok := d.str(item, fmt.Sprintf("%s[%d]", what, i))
		all = all && ok
		out = append(out, s)
	}
	return out, all
}

// entry is one key and value of a mapping.
type entry struct {
	key   string
	keyN  ast.Node
	value ast.Node
}

// entries lists a mapping's keys and values in order, with merge keys (<<) expanded
// (an explicit key overrides a merged one) and duplicate keys reported.
func (d *decoder) entries(n ast.Node, what string) ([]entry, bool) {
	var values []*ast.MappingValueNode
	switch v := d.resolve(n).(type) {
	case *ast.MappingNode:
		values = v.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{v}
	default:
		d.typeError(d.resolve(n), what, "a mapping")
		return nil, false
	}
	var out, merged []entry
	seen := map[string]bool{}
	for _, mv := range values {
		if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
			if es, ok := d.entries(mv.Value, what); ok {
				merged = append(merged, es...)
			}
			continue
		}
		keyNode := d.resolve(mv.Key)
		key, ok := keyNode.(*ast.StringNode)
		if !ok {
			d.errorAt(mv.Key, "schema", "keys are names such as spawn or steps", "%s has a key that is %s, not a name", what, kindName(keyNode))
			continue
		}
		if seen[key.Value] {
			d.errorAt(mv.Key, "yaml", "remove one of the two", "%s has the key %q twice", what, key.Value)
			continue
		}
		seen[key.Value] = true
		out = append(out, entry{key: key.Value, keyN: mv.Key, value: mv.Value})
	}
	for _, e := range merged {
		if !seen[e.key] {
			seen[e.key] = true
			out = append(out, e)
		}
	}
	return out, true
}

// fields decodes a mapping whose keys must all be known: it calls the handler of each
// key present, reports unknown keys with the closest known one, and returns the keys
// present. known lists the keys in documentation order.
func (d *decoder) fields(n ast.Node, what string, known []string, handle func(key string, value ast.Node)) (map[string]entry, bool) {
	es, ok := d.entries(n, what)
	if !ok {
		return nil, false
	}
	present := make(map[string]entry, len(es))
	for _, e := range es {
		if !slices.Contains(known, e.key) {
			d.unknownKey(n, e, what, known)
			continue
		}
		present[e.key] = e
		handle(e.key, e.value)
	}
	return present, true
}

func (d *decoder) noteTypo(n ast.Node, key string) {
	n = d.resolve(n)
	if d.typos[n] == nil {
		d.typos[n] = map[string]bool{}
	}
	d.typos[n][key] = true
}

// mistyped reports whether a misspelt key of mapping n was taken for key.
func (d *decoder) mistyped(n ast.Node, key string) bool {
	return d.typos[d.resolve(n)][key]
}

func (d *decoder) unknownKey(n ast.Node, e entry, what string, known []string) {
	if s := closest(e.key, known); s != "" {
		d.noteTypo(n, s)
		d.errorAt(e.keyN, "schema", fmt.Sprintf("rename it to %q", s), "unknown key %q in %s, did you mean %q?", e.key, what, s)
		return
	}
	d.errorAt(e.keyN, "schema", "known keys: "+strings.Join(known, ", "), "unknown key %q in %s", e.key, what)
}

// sub names a key inside the element what: spawn.command, or rule "x" match.
func sub(what, key string) string {
	if strings.HasSuffix(what, `"`) {
		return what + " " + key
	}
	return what + "." + key
}

// require reports each of the keys that is missing from present.
func (d *decoder) require(n ast.Node, present map[string]entry, what string, keys ...string) bool {
	ok := true
	for _, k := range keys {
		if _, has := present[k]; !has && !d.mistyped(n, k) {
			d.errorAt(n, "schema", fmt.Sprintf("add %s: …", k), "%s has no %q", what, k)
			ok = false
		}
	}
	return ok
}

// closest returns the candidate nearest to word by edit distance, or "" when none is
// close enough to be a plausible typo.
func closest(word string, candidates []string) string {
	best, bestDist := "", len(word)/3+2
	for _, c := range candidates {
		if dist := editDistance(strings.ToLower(word), c); dist < bestDist {
			best, bestDist = c, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, with a transposition of
// two neighbours counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
