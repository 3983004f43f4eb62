package playbooks

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/clai-sh/clai/playbooks/pattern"
)

// AnswererAPI is the HTTP API an answerer's model is reached through.
type AnswererAPI string

// The APIs of an answerer's api: key.
const (
	// APIOpenAI is an OpenAI-compatible chat-completions endpoint.
	APIOpenAI AnswererAPI = "openai"
	// APIAnthropic is the Anthropic Messages API.
	APIAnthropic AnswererAPI = "anthropic"
)

// Defaults and bounds of an answerer (docs/answerer.md).
const (
	DefaultAnswererTimeout    = 30 * time.Second
	MaxAnswererTimeout        = 5 * time.Minute
	DefaultAnswererConfidence = 0.9
)

// defaultAnswererURL is the base URL of each API when url: is not given.
var defaultAnswererURL = map[AnswererAPI]string{
	APIOpenAI:    "https://api.openai.com/v1",
	APIAnthropic: "https://api.anthropic.com",
}

// Answerer is a model that answers the easy questions of a run: a command
// (JSON on stdin and stdout) or an HTTP API. Exactly one of Command and API
// is set.
type Answerer struct {
	Pos
	// Command is a program (argv, no shell) that reads the request's JSON on
	// stdin and writes the reply's JSON on stdout.
	Command []string
	// PassEnv (env:) names the variables a command is given although they
	// back secrets or look like credentials.
	PassEnv []string
	// API, URL, Model and Key reach a model over HTTP; Key is nil for an
	// endpoint that takes none.
	API   AnswererAPI
	URL   string
	Model string
	Key   *SecretRef
	// Timeout bounds one call of the model.
	Timeout time.Duration
	// MinConfidence is the least confidence an answer is typed with.
	MinConfidence float64
	// Allow, when set, is what a question must match to be answered; Deny
	// what it must not match.
	Allow *pattern.Matcher
	Deny  *pattern.Matcher
	// Summarize asks the model for a one-line summary of each question too.
	Summarize bool
	// FromConfig is set for the answerer of the user's config file.
	FromConfig bool
}

// answererKeys are an answerer's keys in documentation order.
var answererKeys = []string{"command", "env", "api", "url", "model", "key", "timeout", "min_confidence", "allow", "deny", "summarize"}

// answerer decodes an answerer: section; inConfig says it is the user
// config's.
func (d *decoder) answerer(n ast.Node, inConfig bool) *Answerer {
	const what = "answerer"
	a := &Answerer{Pos: d.pos(d.resolve(n)), Timeout: DefaultAnswererTimeout, MinConfidence: DefaultAnswererConfidence, FromConfig: inConfig}
	present, ok := d.fields(n, what, answererKeys, func(key string, v ast.Node) {
		switch key {
		case "command":
			a.Command = d.command(v, sub(what, key), "[ask-model, --json]")
		case "env":
			a.PassEnv = d.childEnv(v, sub(what, key))
		case "api":
			a.API = AnswererAPI(d.enum(v, sub(what, key), []string{string(APIOpenAI), string(APIAnthropic)}))
		case "url":
			a.URL = d.answererURL(v, sub(what, key))
		case "model":
			a.Model, _ = d.text(v, sub(what, key))
		case "key":
			if ref, ok := d.secret(v, sub(what, key)); ok {
				a.Key = &ref
			}
		case "timeout":
			if dur, ok := d.duration(v, sub(what, key)); ok {
				if dur <= 0 || dur > MaxAnswererTimeout {
					d.errorAt(d.resolve(v), "answerer", "use a duration from 1ms to 5m", "%s must be more than 0 and at most %s", sub(what, key), MaxAnswererTimeout)
				} else {
					a.Timeout = dur
				}
			}
		case "min_confidence":
			a.MinConfidence = d.confidence(v, sub(what, key))
		case "allow":
			a.Allow, _ = d.matcher(v, sub(what, key), false)
		case "deny":
			a.Deny, _ = d.matcher(v, sub(what, key), false)
		case "summarize":
			a.Summarize, _ = d.boolean(v, sub(what, key))
		}
	})
	if !ok {
		return nil
	}
	d.answererKind(n, a, present)
	return a
}

// answererKind checks that the answerer is a command or an API, with what
// each needs, and fills in an API's default URL.
func (d *decoder) answererKind(n ast.Node, a *Answerer, present map[string]entry) {
	_, hasCommand := present["command"]
	_, hasAPI := present["api"]
	switch {
	case hasCommand && hasAPI:
		d.errorAt(present["api"].keyN, "schema", "keep one: command: [program] runs a program, api: openai|anthropic calls a model over HTTP", "answerer has both command and api")
	case hasCommand:
		for _, k := range []string{"url", "model", "key"} {
			if e, has := present[k]; has {
				d.errorAt(e.keyN, "schema", "remove it: a command answerer reaches its model itself", "answerer.%s is for an api answerer, not a command", k)
			}
		}
	case hasAPI:
		d.onlyForCommand(present, "answerer")
		if a.API != "" && a.URL == "" {
			a.URL = defaultAnswererURL[a.API]
		}
		d.require(n, present, "answerer", "model")
	case !d.mistyped(n, "command") && !d.mistyped(n, "api"):
		d.errorAt(n, "schema", "add command: [program, args…], or api: openai (or anthropic) with model:", "answerer names no model: give command or api")
	}
}

// answererURL decodes an API's base URL: http or https, with no
// credentials in it (key: holds the key).
func (d *decoder) answererURL(n ast.Node, what string) string {
	raw, ok := d.text(n, what)
	if !ok {
		return ""
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		d.errorAt(d.resolve(n), "answerer", "write the API's base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1", "%s is not an http or https URL", what)
	case u.Scheme != "http" && u.Scheme != "https":
		d.errorAt(d.resolve(n), "answerer", "write an http:// or https:// address", "%s: an API is reached over http or https, not %q", what, u.Scheme)
	case u.User != nil:
		d.errorAt(d.resolve(n), "answerer", "remove the credentials from the URL and give key: env:NAME", "%s holds credentials", what)
	case u.RawQuery != "" || u.Fragment != "":
		d.errorAt(d.resolve(n), "answerer", "give the base URL only; clai adds the path of the API's call", "%s has a query or a fragment", what)
	}
	return strings.TrimRight(raw, "/")
}

// confidence decodes a number from 0 to 1.
func (d *decoder) confidence(n ast.Node, what string) float64 {
	var f float64
	switch v := d.resolve(n).(type) {
	case *ast.FloatNode:
		f = v.Value
	case *ast.IntegerNode:
		f = float64(intValue(v))
	default:
		d.typeError(d.resolve(n), what, "a number from 0 to 1")
		return DefaultAnswererConfidence
	}
	if !(f > 0 && f <= 1) {
		d.errorAt(d.resolve(n), "schema", "use a number above 0 and at most 1, such as 0.9", "%s must be more than 0 and at most 1, not %s", what, fmt.Sprint(f))
		return DefaultAnswererConfidence
	}
	return f
}
