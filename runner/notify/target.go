package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/clai-sh/clai/playbooks"
)

// Target is where notifications go.
type Target interface {
	// Name names the target in logs and errors: its kind and host, never a
	// credential.
	Name() string
	// Deliver makes one attempt to deliver n; ctx bounds it.
	Deliver(ctx context.Context, n *Notification) error
}

// Environment is what opening a target reads: the environment ${NAME} and
// a webhook's env:NAME secret come from, and how a file:PATH secret's path is
// made absolute.
type Environment struct {
	Environ []string
	// ResolvePath makes a relative path absolute (nil: as it is).
	ResolvePath func(string) string
	// Secrets name the variables behind secrets (playbooks.SecretVariables):
	// a command target's program is not given them (see internal/childenv).
	Secrets []string
}

// Open makes the target spec describes. Its error names the target as
// notify[index] of its file and never holds a credential.
func Open(spec *playbooks.Notify, env Environment) (Target, error) {
	var t Target
	var err error
	switch spec.Kind {
	case playbooks.NotifyURL:
		t, err = openURL(spec.URL, env)
	case playbooks.NotifyWebhook:
		t, err = openWebhook(spec.Webhook, env)
	case playbooks.NotifyCommand:
		t = openCommand(spec, env)
	case playbooks.NotifyDesktop:
		t = openDesktop()
	default:
		err = fmt.Errorf("unknown kind %q", spec.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: notify target: %w", spec.Pos, err)
	}
	return t, nil
}

// expand reads the ${NAME}s of raw from the environment; a variable that is
// not set (or empty) and has no default is an error that names it. The
// values read are returned for the mask.
func expand(raw string, environ []string) (string, []string, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, name := range playbooks.RequiredVars(raw) {
		if env[name] == "" {
			return "", nil, fmt.Errorf("the environment variable %s is not set", name)
		}
	}
	var values []string
	out, err := playbooks.ExpandVars(raw, func(name string) string {
		values = append(values, env[name])
		return env[name]
	})
	if err != nil {
		return "", nil, errors.New("the URL's ${…} does not parse")
	}
	return out, values, nil
}

// mask replaces what must not be shown in a message.
type mask struct {
	replacer *strings.Replacer
}

// newMask masks the whole of address as name and each credential part of it
// (user, password, path segments, query values, a host that is not in name)
// and each extra value as ***.
func newMask(address, name string, extra ...string) *mask {
	secrets := slices.Clone(extra)
	if u, err := url.Parse(address); err == nil {
		if u.User != nil {
			secrets = append(secrets, u.User.Username())
			if pw, ok := u.User.Password(); ok {
				secrets = append(secrets, pw)
			}
		}
		secrets = append(secrets, strings.Split(strings.Trim(u.Path, "/"), "/")...)
		for _, vals := range u.Query() {
			secrets = append(secrets, vals...)
		}
		if u.Host != "" && !strings.Contains(name, u.Host) {
			secrets = append(secrets, u.Host) // the host is a token (pushbullet://TOKEN)
		}
	}
	type pair struct{ old, new string }
	pairs := []pair{{address, name}}
	for _, s := range secrets {
		if len(s) >= 3 {
			pairs = append(pairs, pair{s, "***"}, pair{url.QueryEscape(s), "***"}, pair{url.PathEscape(s), "***"})
		}
	}
	// The longest first, so that a part of a secret never unmasks the rest.
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.old) - len(a.old) })
	var args []string
	for _, p := range pairs {
		if p.old != "" && !slices.Contains(args, p.old) {
			args = append(args, p.old, p.new)
		}
	}
	return &mask{replacer: strings.NewReplacer(args...)}
}

// text masks s.
func (m *mask) text(s string) string {
	if m == nil {
		return s
	}
	return m.replacer.Replace(s)
}

// err masks err's message; nil stays nil.
func (m *mask) err(err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{msg: m.text(err.Error()), err: err}
}

// maskedError is an error whose message is masked; errors.Is still sees the
// cause (a deadline, a cancel).
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }

// Is reports whether the cause is target, so a deadline is still known as
// one; Unwrap is left out on purpose, so the unmasked message stays hidden.
func (e *maskedError) Is(target error) bool { return errors.Is(e.err, target) }
