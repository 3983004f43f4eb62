package playbooks

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// ChannelSettings are the settings of a user config's channel as its file gives
// them: a mapping that the channel's kind decodes (package runner/channel
// has the kinds), with the file's positions. The model keeps them as they
// are, so that a new kind of channel is added in its own package alone.
type ChannelSettings struct {
	// file and aliases are the config file's, which the settings' positions
	// and anchors need.
	file    string
	aliases map[*ast.AliasNode]ast.Node
	node    ast.Node
	// what names them in a message: channels[0].telegram.
	what string
}

// Decode reads s with read: keys are the fields of its kind, in the order
// its documentation gives them (any other field is an error, with the
// nearest as a hint). It returns the findings, each at its place in the
// file; read need not be told of the errors, which the findings hold.
func (s ChannelSettings) Decode(keys []string, read func(r *ChannelReader)) diag.List {
	d := &decoder{file: s.file, aliases: s.aliases, typos: map[ast.Node]map[string]bool{}}
	if s.node == nil {
		d.report(Pos{File: s.file, Line: 1, Col: 1}, diag.Error, "schema", "give the channel its settings", "%s has no settings", s.what)
		return d.diags
	}
	present, ok := d.fields(s.node, s.what, keys, func(string, ast.Node) {})
	if ok {
		read(&ChannelReader{d: d, s: s, present: present})
	}
	return d.diags
}

// secretRefs are the values of s, at any depth, that name where a secret
// comes from (env:NAME, file:PATH): whatever its kind makes of them, they
// are the config's secrets.
func (s ChannelSettings) secretRefs() []SecretRef {
	d := &decoder{file: s.file, aliases: s.aliases}
	var out []SecretRef
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		n = d.resolve(n)
		if depth > 16 {
			return
		}
		switch v := n.(type) {
		case *ast.StringNode:
			if m := secretSyntax.Get().FindStringSubmatch(v.Value); m != nil {
				out = append(out, SecretRef{Source: SecretSource(m[1]), Name: m[2]})
			}
		case *ast.MappingNode:
			for _, mv := range v.Values {
				walk(mv.Value, depth+1)
			}
		case *ast.MappingValueNode:
			walk(v.Value, depth+1)
		case *ast.SequenceNode:
			for _, item := range v.Values {
				walk(item, depth+1)
			}
		}
	}
	walk(s.node, 0)
	return out
}

// ChannelReader reads the fields of one channel's ChannelSettings, for its kind.
// A field that does not hold is reported at its place; the reader's
// methods then return the zero value.
type ChannelReader struct {
	d       *decoder
	s       ChannelSettings
	present map[string]entry
}

// Has reports whether the settings give key.
func (r *ChannelReader) Has(key string) bool {
	_, ok := r.present[key]
	return ok
}

// Require reports each of keys the settings lack, and whether none is.
func (r *ChannelReader) Require(keys ...string) bool {
	return r.d.require(r.s.node, r.present, r.s.what, keys...)
}

// What names key in a message: channels[0].ntfy.topic.
func (r *ChannelReader) What(key string) string { return sub(r.s.what, key) }

// Errorf reports an error at key's value (at the settings when they lack
// it), with hint.
func (r *ChannelReader) Errorf(key, hint, format string, args ...any) {
	n := r.s.node
	if e, ok := r.present[key]; ok {
		n = r.d.resolve(e.value)
	}
	r.d.errorAt(n, "schema", hint, format, args...)
}

// String is key's string; "" when it is not given or not a string.
func (r *ChannelReader) String(key string) string {
	e, ok := r.present[key]
	if !ok {
		return ""
	}
	s, _ := r.d.str(e.value, r.What(key))
	return s
}

// Secret is where key's secret comes from: env:NAME or file:PATH, never
// the secret itself.
func (r *ChannelReader) Secret(key string) (SecretRef, bool) {
	e, ok := r.present[key]
	if !ok {
		return SecretRef{}, false
	}
	return r.d.secret(e.value, r.What(key))
}

// EmptyList reports whether key is given as a list with no items.
func (r *ChannelReader) EmptyList(key string) bool {
	e, ok := r.present[key]
	if !ok {
		return false
	}
	items, isList := r.d.resolve(e.value).(*ast.SequenceNode)
	return isList && len(items.Values) == 0
}

// Int64s is key's list of non-zero integers, at most max of them; a zero
// or an integer out of range is reported with hint.
func (r *ChannelReader) Int64s(key string, max int, hint string) []int64 {
	e, ok := r.present[key]
	if !ok {
		return nil
	}
	what := r.What(key)
	items, ok := r.d.seq(e.value, what)
	if !ok {
		return nil
	}
	if len(items) > max {
		r.d.errorAt(r.d.resolve(e.value), "schema", "list fewer", "%s has %d entries, at most %d are allowed", what, len(items), max)
		return nil
	}
	out := make([]int64, 0, len(items))
	for i, item := range items {
		v, isInt := r.d.resolve(item).(*ast.IntegerNode)
		if !isInt {
			r.d.typeError(r.d.resolve(item), fmt.Sprintf("%s[%d]", what, i), "an integer")
			continue
		}
		n, err := strconv.ParseInt(fmt.Sprint(v.Value), 10, 64)
		if err != nil || n == 0 {
			r.d.errorAt(v, "schema", hint, "%s[%d] is not a valid value", what, i)
			continue
		}
		out = append(out, n)
	}
	return out
}

// URL is key's address of a service: http or https, with no path beyond
// the server's own, no query and no credentials, without its trailing
// slashes; "" when it is not given or does not hold.
func (r *ChannelReader) URL(key string) string {
	e, ok := r.present[key]
	if !ok {
		return ""
	}
	s, ok := r.d.str(e.value, r.What(key))
	if !ok {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		r.d.errorAt(r.d.resolve(e.value), "schema", "write an http:// or https:// address with no credentials or query, e.g. https://ntfy.example.com", "%s is not a service's address", r.What(key))
		return ""
	}
	return strings.TrimRight(s, "/")
}
