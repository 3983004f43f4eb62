package playbooks

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/diag"
)

// ChannelKind says what service a two-way channel reaches.
type ChannelKind string

// The kinds of two-way channel.
const (
	ChannelTelegram ChannelKind = "telegram"
	ChannelNtfy     ChannelKind = "ntfy"
)

// Defaults and bounds of the channels.
const (
	DefaultTelegramURL = "https://api.telegram.org"
	DefaultNtfyURL     = "https://ntfy.sh"
	// MaxChannelIDs bounds a channel's allow-list.
	MaxChannelIDs = 64
)

// Channel is a two-way channel of the user config's channels: list: a phone
// that is told of each question and answers it. Exactly one of Telegram and
// Ntfy is set.
type Channel struct {
	Pos
	// Name is what a playbook's channels: calls it: its name:, else its
	// kind.
	Name     string
	Kind     ChannelKind
	Telegram *TelegramChannel
	Ntfy     *NtfyChannel
}

// TelegramChannel is a Telegram bot that asks in the allowed chats.
type TelegramChannel struct {
	// Token is the bot's token (from BotFather).
	Token SecretRef
	// Chats are the chats the questions go to and answers are taken from.
	Chats []int64
	// Users, when given, are the only users whose answers are taken.
	Users []int64
	// BaseURL is the Bot API's address.
	BaseURL string
}

// NtfyChannel is an ntfy topic the questions are published to; the answers
// come back on a reply topic of each run's own.
type NtfyChannel struct {
	// Server is the ntfy server's address.
	Server string
	// Topic is where questions are published.
	Topic string
	// Token is an access token, sent as a bearer token; nil sends none.
	Token *SecretRef
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
	c := &Channel{Pos: d.pos(d.resolve(n))}
	present, ok := d.fields(n, what, []string{"name", "telegram", "ntfy"}, func(key string, v ast.Node) {
		switch key {
		case "name":
			c.Name = d.channelName(v, sub(what, "name"))
		case "telegram":
			c.Kind, c.Telegram = ChannelTelegram, d.telegram(v, sub(what, "telegram"))
		case "ntfy":
			c.Kind, c.Ntfy = ChannelNtfy, d.ntfy(v, sub(what, "ntfy"))
		}
	})
	if !ok {
		return nil
	}
	kinds := len(present)
	if _, named := present["name"]; named {
		kinds--
	}
	switch kinds {
	case 0:
		d.errorAt(n, "schema", "add telegram: {token: …, chats: […]} or ntfy: {topic: …}; docs/telegram.md and docs/ntfy.md say how", "%s names no channel", what)
		return nil
	case 1:
	default:
		d.errorAt(n, "schema", "give each channel its own entry of the list", "%s must be exactly one of telegram, ntfy", what)
		return nil
	}
	if c.Telegram == nil && c.Ntfy == nil {
		return nil
	}
	if c.Name == "" {
		c.Name = string(c.Kind)
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

func (d *decoder) telegram(n ast.Node, what string) *TelegramChannel {
	t := &TelegramChannel{BaseURL: DefaultTelegramURL}
	present, ok := d.fields(n, what, []string{"token", "chats", "users", "base_url"}, func(key string, v ast.Node) {
		switch key {
		case "token":
			t.Token, _ = d.secret(v, sub(what, "token"))
		case "chats":
			t.Chats = d.chatIDs(v, sub(what, "chats"))
		case "users":
			t.Users = d.chatIDs(v, sub(what, "users"))
		case "base_url":
			t.BaseURL = d.channelURL(v, sub(what, "base_url"))
		}
	})
	if !ok || !d.require(n, present, what, "token", "chats") {
		return nil
	}
	if items, _ := d.resolve(present["chats"].value).(*ast.SequenceNode); items != nil && len(items.Values) == 0 {
		d.errorAt(d.resolve(present["chats"].value), "schema", "list the chat ids to ask, e.g. [987654321]; docs/telegram.md says how to find yours", "%s is empty: nobody would be asked", sub(what, "chats"))
		return nil
	}
	return t
}

func (d *decoder) ntfy(n ast.Node, what string) *NtfyChannel {
	c := &NtfyChannel{Server: DefaultNtfyURL}
	present, ok := d.fields(n, what, []string{"server", "topic", "token"}, func(key string, v ast.Node) {
		switch key {
		case "server":
			c.Server = d.channelURL(v, sub(what, "server"))
		case "topic":
			c.Topic = d.ntfyTopic(v, sub(what, "topic"))
		case "token":
			if ref, ok := d.secret(v, sub(what, "token")); ok {
				c.Token = &ref
			}
		}
	})
	if !ok || !d.require(n, present, what, "topic") {
		return nil
	}
	return c
}

// chatIDs decodes a list of Telegram ids: integers, which may be negative
// (a group's).
func (d *decoder) chatIDs(n ast.Node, what string) []int64 {
	items, ok := d.seq(n, what)
	if !ok {
		return nil
	}
	if len(items) > MaxChannelIDs {
		d.errorAt(d.resolve(n), "schema", "list fewer ids", "%s has %d entries, at most %d are allowed", what, len(items), MaxChannelIDs)
		return nil
	}
	ids := make([]int64, 0, len(items))
	for i, item := range items {
		v, isInt := d.resolve(item).(*ast.IntegerNode)
		if !isInt {
			d.typeError(d.resolve(item), fmt.Sprintf("%s[%d]", what, i), "an integer")
			continue
		}
		id, err := strconv.ParseInt(fmt.Sprint(v.Value), 10, 64)
		if err != nil || id == 0 {
			d.errorAt(v, "schema", "write the id as Telegram gives it, e.g. 987654321 or -1001234567890", "%s[%d] is not a Telegram id", what, i)
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// channelURL decodes a service's address: http or https, with no path
// beyond the server's own, no query and no credentials.
func (d *decoder) channelURL(n ast.Node, what string) string {
	s, ok := d.str(n, what)
	if !ok {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		d.errorAt(d.resolve(n), "schema", "write an http:// or https:// address with no credentials or query, e.g. https://ntfy.example.com", "%s is not a service's address", what)
		return ""
	}
	return strings.TrimRight(s, "/")
}

// ntfyTopic decodes a topic's name as ntfy takes it.
func (d *decoder) ntfyTopic(n ast.Node, what string) string {
	s, ok := d.str(n, what)
	if !ok {
		return ""
	}
	if !ntfyTopicSyntax(s) {
		d.errorAt(d.resolve(n), "schema", "use letters, digits, - and _ only, at most 64", "%s is not an ntfy topic", what)
		return ""
	}
	return s
}

func ntfyTopicSyntax(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
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
