package playbooks

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/internal/lazyre"
	"github.com/clai-sh/clai/playbooks/diag"
)

// NotifyEvent is a kind of moment a notification target can be told of.
type NotifyEvent string

// The events of a notification target's on: list.
const (
	// NotifyQuestion: a question opened, whatever its reason.
	NotifyQuestion NotifyEvent = "question"
	// NotifyDanger: a danger rule matched.
	NotifyDanger NotifyEvent = "danger"
	// NotifyManual: the run handed over to a person (MANUAL).
	NotifyManual NotifyEvent = "manual"
	// NotifyTimeout, NotifyDone and NotifyFailed: the run ended so.
	NotifyTimeout NotifyEvent = "timeout"
	NotifyDone    NotifyEvent = "done"
	NotifyFailed  NotifyEvent = "failed"
)

// notifyEvents are the events in documentation order.
var notifyEvents = []NotifyEvent{NotifyQuestion, NotifyDanger, NotifyManual, NotifyTimeout, NotifyDone, NotifyFailed}

// NotifyEvents returns the events in documentation order.
// A new copy each call: callers may change it.
func NotifyEvents() []NotifyEvent { return slices.Clone(notifyEvents) }

// defaultNotifyOn are the events of a target without on: every moment a
// person is needed, and every end but a successful one.
var defaultNotifyOn = []NotifyEvent{NotifyQuestion, NotifyDanger, NotifyManual, NotifyTimeout, NotifyFailed}

// DefaultNotifyOn returns the events of a target without on: every moment a
// person is needed, and every end but a successful one. A new copy each call: callers may change it.
func DefaultNotifyOn() []NotifyEvent { return slices.Clone(defaultNotifyOn) }

// Defaults and bounds of a notification target.
const (
	DefaultNotifyRateMax  = 10
	DefaultNotifyRatePer  = time.Minute
	DefaultNotifyDedup    = 10 * time.Minute
	DefaultNotifyTimeout  = 10 * time.Second
	MaxNotifyTimeout      = 5 * time.Minute
	MaxNotifyCommandItems = 256
	// MaxNotifyRate bounds rate.max, and so the times a target keeps.
	MaxNotifyRate = 10000
)

// NotifyKind says what a notification target is.
type NotifyKind string

// The kinds of notification target.
const (
	NotifyURL     NotifyKind = "url"
	NotifyWebhook NotifyKind = "webhook"
	NotifyCommand NotifyKind = "command"
	NotifyDesktop NotifyKind = "desktop"
)

// Notify is a notification target of a playbook's or the user config's
// notify: list. Exactly one of URL, Webhook, Command and Desktop is set.
type Notify struct {
	Pos
	// Name is what a playbook's channels: calls a target of the user
	// config: its name:, else its kind; several may share one.
	Name string
	Kind NotifyKind
	// URL is a service URL as shoutrrr reads it, as written: ${VAR} is
	// expanded from the environment when the run starts.
	URL string
	// Webhook is a JSON POST, signed when it has a secret.
	Webhook *Webhook
	// Command is a program (argv, no shell) that gets the JSON on stdin.
	Command []string
	// PassEnv (env:) names the variables a command is given although they
	// back secrets or look like credentials.
	PassEnv []string
	// Desktop is a desktop notification (notify-send, osascript).
	Desktop bool
	// On are the events the target is told of.
	On []NotifyEvent
	// RateMax notifications at most in any RatePer; more are dropped.
	RateMax int
	RatePer time.Duration
	// Dedup is how long the same notification is not sent again.
	Dedup time.Duration
	// Timeout bounds one attempt to deliver.
	Timeout time.Duration
	// NoDashboardLink (dashboard_link: false) keeps the running dashboard's
	// URL, and so its token, out of the target's notifications.
	NoDashboardLink bool
	// FromConfig is set for a target of the user's config file.
	FromConfig bool
	// AddressPos is where its url or webhook is written.
	AddressPos Pos
}

// Webhook is where a webhook target posts, and the secret that signs it.
type Webhook struct {
	// URL is http or https, as written: ${VAR} is expanded from the
	// environment when the run starts.
	URL string
	// Secret signs the body with HMAC-SHA256; nil sends it unsigned.
	Secret *SecretRef
}

// Wants reports whether the target is told of ev.
func (n *Notify) Wants(ev NotifyEvent) bool { return slices.Contains(n.On, ev) }

// Env names the environment variables the target's URLs read with ${VAR}
// (without a default), in order.
func (n *Notify) Env() []string {
	var out []string
	for _, s := range []string{n.URL, n.webhookURL()} {
		for _, name := range expansions(s, false) {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

func (n *Notify) webhookURL() string {
	if n.Webhook == nil {
		return ""
	}
	return n.Webhook.URL
}

// notifySchemes are the services a url: target may name: the schemes
// shoutrrr serves (a test in runner/notify holds this list to its router).
var notifySchemes = []string{
	"bark", "discord", "generic", "googlechat", "gotify", "hangouts", "ifttt", "join", "lark",
	"logger", "matrix", "mattermost", "notifiarr", "ntfy", "opsgenie", "pagerduty", "pushbullet",
	"pushover", "rocketchat", "signal", "slack", "smtp", "teams", "telegram", "wecom", "zulip",
}

// NotifySchemes returns the services a url: target may name: the schemes
// shoutrrr serves (a test in runner/notify holds this list to its router). A new copy each call: callers may change it.
func NotifySchemes() []string { return slices.Clone(notifySchemes) }

// tokenPlaces says where each service's URL carries its token, beyond a
// password and query values such as token= (always secret): the user name
// (telegram://TOKEN@telegram), the host (pushbullet://TOKEN) or the path.
var tokenPlaces = map[string]string{
	"telegram": "user", "discord": "user",
	"pushbullet": "host", "ifttt": "host", "notifiarr": "host",
	"slack": "path", "gotify": "path", "mattermost": "path", "rocketchat": "path",
	"teams": "path", "opsgenie": "path", "pagerduty": "path", "lark": "path", "wecom": "path",
}

// secretQueryKey recognises a query parameter that holds a credential.
var secretQueryKey = &lazyre.Regexp{Expr: `(?i)token|secret|pass|key|auth|credential`}

// notifyKeys are a target's keys in documentation order.
var notifyKeys = []string{"url", "webhook", "command", "env", "desktop", "on", "rate", "dedup", "timeout", "dashboard_link"}

// notifyList decodes a notify: list; inConfig says it is the user config's.
func (d *decoder) notifyList(n ast.Node, inConfig bool) []*Notify {
	items, _ := d.seq(n, "notify")
	var out []*Notify
	for i, item := range items {
		if t := d.notifyTarget(item, i, inConfig); t != nil {
			out = append(out, t)
		}
	}
	return out
}

func (d *decoder) notifyTarget(n ast.Node, index int, inConfig bool) *Notify {
	what := fmt.Sprintf("notify[%d]", index)
	t := &Notify{Pos: d.pos(d.resolve(n)), On: defaultNotifyOn, RateMax: DefaultNotifyRateMax,
		RatePer: DefaultNotifyRatePer, Dedup: DefaultNotifyDedup, Timeout: DefaultNotifyTimeout, FromConfig: inConfig}
	var kinds []entry
	keys := notifyKeys
	if inConfig {
		// What a playbook's channels: calls a target of the config.
		keys = append([]string{"name"}, notifyKeys...)
	}
	present, ok := d.fields(n, what, keys, func(key string, v ast.Node) {
		switch key {
		case "name":
			t.Name = d.channelName(v, sub(what, "name"))
		case "url":
			t.Kind, t.URL = NotifyURL, d.notifyURL(v, sub(what, "url"), inConfig)
			t.AddressPos = d.pos(d.resolve(v))
		case "webhook":
			t.Kind, t.Webhook = NotifyWebhook, d.webhook(v, sub(what, "webhook"), inConfig)
			t.AddressPos = d.pos(d.resolve(v))
		case "command":
			t.Kind = NotifyCommand
			t.Command = d.command(v, sub(what, "command"), "[notify-me, --urgent]")
		case "env":
			t.PassEnv = d.childEnv(v, sub(what, "env"))
		case "desktop":
			t.Kind = NotifyDesktop
			t.Desktop, _ = d.boolean(v, sub(what, "desktop"))
		case "on":
			t.On = d.notifyOn(v, sub(what, "on"))
		case "rate":
			t.RateMax, t.RatePer = d.notifyRate(v, sub(what, "rate"))
		case "dedup":
			t.Dedup, _ = d.duration(v, sub(what, "dedup"))
		case "timeout":
			if dur, ok := d.duration(v, sub(what, "timeout")); ok {
				t.Timeout = d.notifyTimeout(v, sub(what, "timeout"), dur)
			}
		case "dashboard_link":
			link, ok := d.boolean(v, sub(what, "dashboard_link"))
			t.NoDashboardLink = ok && !link
		}
	})
	if !ok {
		return nil
	}
	for _, k := range []string{"url", "webhook", "command", "desktop"} {
		if e, has := present[k]; has {
			kinds = append(kinds, e)
		}
	}
	if t.Kind != NotifyCommand {
		d.onlyForCommand(present, what)
	}
	switch {
	case len(kinds) > 1:
		d.errorAt(kinds[1].keyN, "schema", "give each target its own entry of the list", "%s has both %s and %s: a target is one of url, webhook, command, desktop", what, kinds[0].key, kinds[1].key)
	case len(kinds) == 0:
		d.errorAt(n, "schema", `add one of url: "ntfy://ntfy.sh/TOPIC", webhook: {url: …}, command: [program], desktop: true`, "%s names no target", what)
	}
	if t.Name == "" {
		t.Name = string(t.Kind)
	}
	return t
}

func (d *decoder) notifyTimeout(v ast.Node, what string, dur time.Duration) time.Duration {
	if dur <= 0 || dur > MaxNotifyTimeout {
		d.errorAt(d.resolve(v), "notify", "use a duration from 1ms to 5m", "%s must be more than 0 and at most %s", what, MaxNotifyTimeout)
		return DefaultNotifyTimeout
	}
	return dur
}

func (d *decoder) notifyOn(n ast.Node, what string) []NotifyEvent {
	names, ok := d.strings(n, what)
	if !ok {
		return defaultNotifyOn
	}
	allowed := make([]string, len(notifyEvents))
	for i, e := range notifyEvents {
		allowed[i] = string(e)
	}
	items, _ := d.seq(n, what)
	var out []NotifyEvent
	for i, name := range names {
		if !slices.Contains(allowed, name) {
			d.enum(items[i], fmt.Sprintf("%s[%d]", what, i), allowed)
			continue
		}
		if !slices.Contains(out, NotifyEvent(name)) {
			out = append(out, NotifyEvent(name))
		}
	}
	if len(names) == 0 {
		d.errorAt(d.resolve(n), "schema", "list events such as [question, danger], or remove on: for the default", "%s is empty: the target would never be told anything", what)
	}
	return out
}

func (d *decoder) notifyRate(n ast.Node, what string) (int, time.Duration) {
	maxN, per := DefaultNotifyRateMax, DefaultNotifyRatePer
	d.fields(n, what, []string{"max", "per"}, func(key string, v ast.Node) {
		switch key {
		case "max":
			if m, ok := d.integer(v, sub(what, "max"), 1, MaxNotifyRate); ok {
				maxN = m
			}
		case "per":
			if p, ok := d.duration(v, sub(what, "per")); ok {
				if p <= 0 {
					d.errorAt(d.resolve(v), "notify", "write a duration such as 1m", "%s must be more than 0", sub(what, "per"))
				} else {
					per = p
				}
			}
		}
	})
	return maxN, per
}

// command decodes the program and arguments of a notification target or a
// model: a list that names a program, of at most MaxNotifyCommandItems
// entries; example is the hint's.
func (d *decoder) command(n ast.Node, what, example string) []string {
	argv, ok := d.strings(n, what)
	if !ok {
		return nil
	}
	switch {
	case len(argv) == 0:
		d.errorAt(d.resolve(n), "schema", "write the program and its arguments, e.g. "+example, "%s is an empty list", what)
	case argv[0] == "":
		d.errorAt(d.resolve(n), "schema", "the first entry is the program to run", "%s names no program", what)
	case len(argv) > MaxNotifyCommandItems:
		d.errorAt(d.resolve(n), "schema", "pass fewer arguments", "%s has %d entries, at most %d are allowed", what, len(argv), MaxNotifyCommandItems)
	}
	return argv
}

func (d *decoder) webhook(n ast.Node, what string, inConfig bool) *Webhook {
	w := &Webhook{}
	present, ok := d.fields(n, what, []string{"url", "secret"}, func(key string, v ast.Node) {
		switch key {
		case "url":
			w.URL = d.webhookURL(v, sub(what, "url"), inConfig)
		case "secret":
			if ref, ok := d.secret(v, sub(what, "secret")); ok {
				w.Secret = &ref
			}
		}
	})
	if ok {
		d.require(n, present, what, "url")
	}
	return w
}

// notifyURL decodes a url: target and checks its scheme, its ${VAR}s and,
// in a playbook, that it holds no literal token.
func (d *decoder) notifyURL(n ast.Node, what string, inConfig bool) string {
	raw, ok := d.text(n, what)
	if !ok {
		return ""
	}
	u, ok := d.parseTargetURL(n, what, raw)
	if !ok {
		return raw
	}
	scheme, _, _ := strings.Cut(u.Scheme, "+")
	if !slices.Contains(notifySchemes, scheme) {
		msg := fmt.Sprintf("%s: unknown service %q", what, scheme)
		if c := closest(scheme, notifySchemes); c != "" {
			msg += fmt.Sprintf("; did you mean %q?", c)
		}
		d.errorAt(d.resolve(n), "notify", "write a service URL such as ntfy://ntfy.sh/TOPIC; the services: "+strings.Join(notifySchemes, ", "), "%s", msg)
		return raw
	}
	if !inConfig {
		d.literalToken(n, what, u, tokenPlaces[scheme])
	}
	return raw
}

// webhookURL decodes a webhook's url: http or https.
func (d *decoder) webhookURL(n ast.Node, what string, inConfig bool) string {
	raw, ok := d.text(n, what)
	if !ok {
		return ""
	}
	u, ok := d.parseTargetURL(n, what, raw)
	if !ok {
		return raw
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		d.errorAt(d.resolve(n), "notify", "write an http:// or https:// address", "%s: a webhook posts over http or https, not %q", what, u.Scheme)
		return raw
	}
	if !inConfig {
		d.literalToken(n, what, u, "")
	}
	return raw
}

// varPlaceholder stands for a ${VAR} while a URL is parsed: letters only, so
// that it is valid in every part of a URL.
const varPlaceholder = "CLAIVARCLAI"

// parseTargetURL checks the ${VAR}s of raw and parses it with each ${VAR} as
// a placeholder. The messages never quote the URL: it may hold a token.
func (d *decoder) parseTargetURL(n ast.Node, what, raw string) (*url.URL, bool) {
	shape, err := ExpandVars(raw, func(string) string { return varPlaceholder })
	if err != nil {
		msg := "a ${ is never closed with }"
		if strings.Contains(err.Error(), "empty ${}") {
			msg = "an empty ${}"
		}
		d.errorAt(d.resolve(n), "template", "write ${NAME} or ${NAME:-default}: the token is read from the environment when the run starts", "%s: %s", what, msg)
		return nil, false
	}
	u, err := url.Parse(shape)
	if err != nil || u.Scheme == "" {
		d.errorAt(d.resolve(n), "notify", "write SERVICE://… , e.g. ntfy://ntfy.sh/TOPIC or https://example.com/hook", "%s is not a URL", what)
		return nil, false
	}
	return u, true
}

// literalToken warns of a credential written into a target's URL in the
// playbook (a password, a query value such as token=, and the service's own
// token place), where logs, reports and version control would keep it.
func (d *decoder) literalToken(n ast.Node, what string, u *url.URL, place string) {
	var found string
	literal := func(s string) bool { return strings.ReplaceAll(s, varPlaceholder, "") != "" }
	if pw, ok := u.User.Password(); ok && literal(pw) {
		found = "a password"
	}
	for key, vals := range u.Query() {
		if secretQueryKey.Get().MatchString(key) && slices.ContainsFunc(vals, literal) {
			found = fmt.Sprintf("the %s= parameter", key)
		}
	}
	switch place {
	case "user":
		if u.User != nil && literal(u.User.Username()) {
			found = "its token (before @)"
		}
	case "host":
		if literal(u.Hostname()) {
			found = "its token (the host part)"
		}
	case "path":
		if literal(strings.Trim(u.Path, "/")) {
			found = "its token (the path)"
		}
	}
	if found != "" {
		d.report(d.pos(d.resolve(n)), diag.Warning, "literal-secret", "write the token as ${NAME} and set NAME in the environment, or move the target to the user config file ($XDG_CONFIG_HOME/clai/config.yaml)", "%s holds %s written out: it would be kept in the playbook", what, found)
	}
}

// MissingEnv lists, as errors, each ${NAME} a notification target of pb
// reads that environ does not set: clai run would refuse to start. The
// environment is the machine's, so only lint calls it, with its own.
func MissingEnv(pb *Playbook, environ []string) diag.List {
	return MissingEnvOf(pb.Notify, environ)
}

// MissingEnvOf is MissingEnv of the targets of a notify: list (a user
// config's, say).
func MissingEnvOf(targets []*Notify, environ []string) diag.List {
	set := map[string]bool{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" {
			set[k] = true
		}
	}
	var out diag.List
	for i, t := range targets {
		for _, name := range t.Env() {
			if !set[name] {
				out = append(out, diag.Diagnostic{Pos: t.AddressPos, Severity: diag.Error, Rule: "missing-env",
					Message: fmt.Sprintf("notify[%d] reads ${%s}, which is not set here: clai run would refuse to start", i, name),
					Hint:    fmt.Sprintf("set %s where clai runs, or give a default: ${%s:-…}", name, name)})
			}
		}
	}
	return out
}
