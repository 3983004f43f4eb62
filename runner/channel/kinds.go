package channel

import (
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner/notify"
)

// A kind is a service a channel reaches: the fields of its settings in the
// user config, how they are read, and how a channel of it opens. A new
// channel is a file of this package with its kind, and one entry of kinds:
// the model keeps a channel's settings as the file gives them
// (playbooks.ChannelSettings), and knows no kind.
type kind struct {
	// name is its key in a config's channels: entry (telegram:, ntfy:).
	name string
	// keys are the fields of its settings, in documentation order.
	keys []string
	// read reads its settings and returns how to open the channel; nil
	// when they do not hold (r has reported why).
	read func(r *playbooks.ChannelReader) opener
	// replyTopic is a kind whose answers come back on a topic of the
	// channel's own, which a hub keeps across restarts (Kept.ReplyTopic).
	replyTopic bool
}

// opener opens a channel whose settings were read: env reads its secrets,
// kept is what a hub keeps of it.
type opener func(env notify.Environment, log *zap.Logger, kept Kept) (Multi, error)

// kinds are the channels clai has.
func kinds() []kind { return []kind{telegramKind(), ntfyKind()} }

// kindOf is the kind named name.
func kindOf(name string) (kind, bool) {
	ks := kinds()
	i := slices.IndexFunc(ks, func(k kind) bool { return k.name == name })
	if i < 0 {
		return kind{}, false
	}
	return ks[i], true
}

// KeepsReplyTopic reports whether a channel of the kind named name has a
// reply topic that a hub keeps across restarts (ntfy's).
func KeepsReplyTopic(name string) bool {
	k, ok := kindOf(name)
	return ok && k.replyTopic
}

// Kept is what a hub keeps of a channel beyond its process (see Ledger);
// the zero value keeps nothing, as a run's own channel.
type Kept struct {
	// Ledger remembers what was delivered.
	Ledger Ledger
	// ReplyTopic, Since, Seen and Host are an ntfy channel's (see
	// NtfyConfig).
	ReplyTopic string
	Since      string
	Seen       func(id string)
	Host       string
}

// read reads spec's settings as its kind does: the findings, each at its
// place in the config file, and how to open the channel when they hold.
func read(spec *playbooks.Channel) (opener, diag.List) {
	k, ok := kindOf(spec.Kind)
	if !ok {
		var names []string
		for _, k := range kinds() {
			names = append(names, k.name)
		}
		return nil, diag.List{{Pos: spec.Pos, Severity: diag.Error, Rule: "schema",
			Message: fmt.Sprintf("channel %q: clai has no channel of kind %q", spec.Name, spec.Kind),
			Hint:    "the kinds: " + strings.Join(names, ", ") + "; docs/hub.md says how to set each"}}
	}
	var open opener
	findings := spec.Settings.Decode(k.keys, func(r *playbooks.ChannelReader) { open = k.read(r) })
	if findings.HasErrors() {
		open = nil
	}
	return open, findings
}

// Check reads the settings of each channel as Open does, and opens none: its
// findings carry the config file's positions. clai lint calls it.
func Check(channels []*playbooks.Channel) diag.List {
	var out diag.List
	for _, spec := range channels {
		_, findings := read(spec)
		out = append(out, findings...)
	}
	return out
}

// Open makes the channel spec describes, reading its token. Its error names
// the channel by its place in its file and never holds the token.
func Open(spec *playbooks.Channel, env notify.Environment, log *zap.Logger) (Multi, error) {
	return OpenKept(spec, env, log, Kept{})
}

// OpenKept is Open of a channel that keeps what kept says across restarts:
// the hub's.
func OpenKept(spec *playbooks.Channel, env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
	open, findings := read(spec)
	switch {
	case open == nil && findings.HasErrors():
		return nil, findings
	case open == nil:
		return nil, fmt.Errorf("%s: channel %q: its settings do not hold", spec.Pos, spec.Name)
	}
	c, err := open(env, log, kept)
	if err != nil {
		return nil, fmt.Errorf("%s: channel: %w", spec.Pos, err)
	}
	return c, nil
}
