package hub

import (
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// OpenChannels makes the hub's channels from the user config's, reading
// their tokens from env: each keeps its deliveries in state, and an ntfy
// channel its reply topic. The error names each channel that cannot open.
//
// host is this machine's name: an ntfy message names a session of another
// machine HOST/ID in its clai answer command, as the sessions folder here
// does.
func OpenChannels(specs []*playbooks.Channel, env notify.Environment, log *zap.Logger, state *State, host string) ([]Channel, error) {
	var out []Channel
	var errs []error
	for _, spec := range specs {
		kept := channel.Kept{Ledger: state}
		if channel.KeepsReplyTopic(spec.Kind) {
			topic, since, err := state.ReplyTopic(spec.Name, channel.NewReplyTopic)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: channel %s: %w", spec.Pos, spec.Name, err))
				continue
			}
			name := spec.Name
			kept.ReplyTopic, kept.Since, kept.Seen, kept.Host = topic, since, func(id string) { state.Seen(name, id) }, host
		}
		c, err := channel.OpenKept(spec, env, log, kept)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, Channel{Name: spec.Name, Channel: c})
	}
	return out, errors.Join(errs...)
}

// OpenTargets opens the user config's notify targets for the hub, reading
// their secrets from env, and starts their sender: one outbox a target for
// every run; nil when there are none. names are the targets' names.
func OpenTargets(cfg *playbooks.Config, env notify.Environment, log *zap.Logger, dashboard func() string) (sender *notify.Sender, names []string, err error) {
	if len(cfg.Notify) == 0 {
		return nil, nil, nil
	}
	// A command: target's program is not given the variables behind the
	// config's secrets, unless its env: names them.
	env.Secrets = playbooks.SecretVariables(nil, cfg)
	var routes []notify.Route
	var errs []error
	for _, spec := range cfg.Notify {
		t, err := notify.Open(spec, env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		routes = append(routes, notify.Route{Target: t, Spec: spec})
		if !slices.Contains(names, spec.Name) {
			names = append(names, spec.Name)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, err
	}
	return notify.NewSender(routes, notify.WithLogger(log), notify.WithDashboard(dashboard)), names, nil
}
