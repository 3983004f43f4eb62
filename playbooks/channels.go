package playbooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// Channel is a two-way channel of the user config's channels: list: a phone
// that is told of each question and answers it. The model knows its name and
// its kind, the one key beside name:; the kind's settings, that key's value,
// are the kind's to decode (package runner/channel has the kinds), with the
// file's positions: a new kind of channel is added in that package alone.
type Channel struct {
	Pos
	// Name is what a playbook's channels: calls it: its name:, else its
	// kind.
	Name string
	// Kind is the service it reaches: telegram, ntfy…
	Kind string
	// Settings are its kind's settings.
	Settings ChannelSettings
}

func (d *decoder) channelList(n ast.Node) []*Channel {
	items, ok := d.seq(n, "channels")
	if !ok {
		return nil
	}
	var out []*Channel
	for i, item := range items {
		if c := d.channel(item, i); c != nil {
			out = append(out, c)
		}
	}
	return out
}

func (d *decoder) channel(n ast.Node, index int) *Channel {
	what := fmt.Sprintf("channels[%d]", index)
	es, ok := d.entries(n, what)
	if !ok {
		return nil
	}
	c := &Channel{Pos: d.pos(d.resolve(n))}
	var kinds []entry
	for _, e := range es {
		if e.key == "name" {
			c.Name = d.channelName(e.value, sub(what, "name"))
			continue
		}
		kinds = append(kinds, e)
	}
	switch len(kinds) {
	case 0:
		d.errorAt(n, "schema", "add its kind and settings, e.g. ntfy: {topic: …}; docs/hub.md lists the kinds", "%s names no channel", what)
		return nil
	case 1:
	default:
		d.errorAt(n, "schema", "give each channel its own entry of the list", "%s must be exactly one channel: it has %d kinds", what, len(kinds))
		return nil
	}
	k := kinds[0]
	if !validChannelName(k.key) {
		d.errorAt(k.keyN, "schema", "write the channel's kind, e.g. ntfy; docs/hub.md lists the kinds", "%s: %q is not a channel's kind", what, k.key)
		return nil
	}
	if _, isMap := d.resolve(k.value).(*ast.MappingNode); !isMap {
		d.typeError(d.resolve(k.value), sub(what, k.key), "a mapping")
		return nil
	}
	c.Kind = k.key
	c.Settings = ChannelSettings{file: d.file, aliases: d.aliases, node: k.value, what: sub(what, k.key)}
	if c.Name == "" {
		c.Name = c.Kind
	}
	return c
}

// maxChannelName bounds a channel's name.
const maxChannelName = 64

// validChannelName says whether name may name a channel: letters, digits,
// - and _, at most maxChannelName.
func validChannelName(name string) bool {
	if name == "" || len(name) > maxChannelName {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// channelName decodes a channel's name.
func (d *decoder) channelName(n ast.Node, what string) string {
	name, ok := d.str(n, what)
	if !ok {
		return ""
	}
	if !validChannelName(name) {
		d.errorAt(n, "schema", "use letters, digits, - and _, e.g. phone", "%s %q is not a channel's name", what, name)
		return ""
	}
	return name
}

// channelNames decodes a playbook's channels:, the names of the user
// config's channels it asks on; [] is none.
func (d *decoder) channelNames(n ast.Node) []string {
	items, ok := d.seq(n, "channels")
	if !ok {
		return nil
	}
	out := []string{}
	for i, item := range items {
		if name := d.channelName(item, fmt.Sprintf("channels[%d]", i)); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// checkChannelNames reports two channels of the config that go by one
// name: a playbook could not say which it means.
func (d *decoder) checkChannelNames(channels []*Channel) {
	seen := map[string]bool{}
	for _, c := range channels {
		if seen[c.Name] {
			d.report(c.Pos, diag.Error, "schema", "give each channel of a kind a name: of its own, e.g. name: phone", "two channels are named %q", c.Name)
		}
		seen[c.Name] = true
	}
}

// UnknownChannels reports each name pb's channels: gives that cfg declares
// no channel or notify target by: clai run would refuse to start. A config
// that declares none says nothing (the machine may be joined to a hub that
// has them; see docs/hub.md).
func UnknownChannels(pb *Playbook, cfg *Config) diag.List {
	if pb.Channels == nil || len(cfg.Channels) == 0 && len(cfg.Notify) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, c := range cfg.Channels {
		known[c.Name] = true
	}
	for _, t := range cfg.Notify {
		known[t.Name] = true
	}
	var names []string
	for name := range known {
		names = append(names, name)
	}
	slices.Sort(names)
	var out diag.List
	for _, name := range pb.Channels {
		if !known[name] {
			out = append(out, diag.Diagnostic{Pos: pb.ChannelsPos, Severity: diag.Error, Rule: "channels",
				Message: fmt.Sprintf("channels: the user config %s has no channel or notify target %q: clai run would refuse to start", cfg.Path, name),
				Hint:    fmt.Sprintf("use one of %s, or give one of the config's entries name: %s", strings.Join(names, ", "), name)})
		}
	}
	return out
}
