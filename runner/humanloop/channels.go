package humanloop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/ask"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/hublink"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/triage"
)

// Hub is the per-user hub a run hands its questions to, whose channels are
// the user config's (see docs/hub.md).
type Hub struct {
	// Socket is the hub's socket (hublink.Socket of the runtime folder).
	Socket string
	// Start starts the hub when none answers (nil: the run waits for one
	// to start); it returns once the hub answers, or fails.
	Start func(ctx context.Context) error
}

// phones are the channels a run asks on: its own, or the hub's.
type phones interface {
	Watch(desk ask.Desk)
	Close()
}

// reach is what a run uses of the user config: its channels and notify
// targets, which its playbook chose (channels:, else every one), and
// whether it reaches them through the hub.
type reach struct {
	channels []*playbooks.Channel
	targets  []*playbooks.Notify
	// hub is the hub the run links to; nil when it opens what it uses
	// itself.
	hub *Hub
	// start starts a hub where none answers; nil where this machine's
	// config gives a hub of its own nothing to serve.
	start func(context.Context) error
}

// reachOf decides what the run uses of cfg, and how. With a hub, the run
// links to it when the config declares a channel or a target, when the
// playbook names some (a joined machine's hub has them), or when a hub
// answers (one started with a config of its own); without one, it opens
// what it uses itself. A playbook's name that is none of the config's
// refuses the run, unless the config declares none (the hub knows).
func reachOf(pb *playbooks.Playbook, cfg *playbooks.Config, hub *Hub) (reach, error) {
	if pb.Channels != nil && len(pb.Channels) == 0 {
		return reach{}, nil
	}
	declared := len(cfg.Channels) > 0 || len(cfg.Notify) > 0
	r := reach{channels: cfg.Channels, targets: cfg.Notify}
	if pb.Channels != nil && declared {
		r.channels, r.targets = nil, nil
		for _, name := range pb.Channels {
			found := false
			for _, c := range cfg.Channels {
				if c.Name == name {
					r.channels, found = append(r.channels, c), true
				}
			}
			for _, t := range cfg.Notify {
				if t.Name == name {
					r.targets, found = append(r.targets, t), true
				}
			}
			if !found {
				return reach{}, refused(fmt.Errorf("%s: channels: the user config has no channel or notify target %q (it has %s); docs/hub.md says how to name one", pb.Path, name, configNames(cfg)))
			}
		}
	}
	switch {
	case hub == nil:
	case declared:
		r.hub, r.start = hub, hub.Start
	case pb.Channels != nil || hublink.Reachable(hub.Socket):
		r.hub = hub
	}
	return r, nil
}

// configNames lists the names of cfg's channels and targets, for a
// message.
func configNames(cfg *playbooks.Config) string {
	var names []string
	for _, c := range cfg.Channels {
		names = append(names, c.Name)
	}
	for _, t := range cfg.Notify {
		if !slices.Contains(names, t.Name) {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// names are the names the run's hello gives the hub: the playbook's, nil
// for every one.
func (r reach) names(pb *playbooks.Playbook) []string { return pb.Channels }

// openPhones opens the channels the run asks on: its own, or through the
// hub, where a token this run cannot read refuses it before anything
// starts, as a channel of its own would. nil when there are none.
func openPhones(pb *playbooks.Playbook, r reach, env notify.Environment, logger *zap.Logger, tri runTriage, notices io.Writer) (phones, error) {
	if r.hub == nil {
		set, err := openChannels(r.channels, env, logger, tri)
		if set == nil || err != nil {
			return nil, err
		}
		return set, nil
	}
	for _, spec := range r.channels {
		if _, err := channel.Open(spec, env, logger); err != nil {
			return nil, refused(err)
		}
	}
	link := hublink.New(hublink.Options{Socket: r.hub.Socket, Channels: r.names(pb), Start: r.start, Log: logger, Notices: notices})
	return &hubPhones{link: link, tri: tri}, nil
}

// hubPhones are the hub's channels, told of the questions the answerer
// and learned answers leave to people.
type hubPhones struct {
	link *hublink.Link
	tri  runTriage
}

func (h *hubPhones) Watch(desk ask.Desk) {
	if h.tri.decide != nil {
		desk = triage.Desk(desk, h.tri.decide, h.tri.wait)
	}
	h.link.Watch(desk)
}

func (h *hubPhones) Close() { h.link.Close() }

// openChannels opens the two-way channels of the user config file; nil
// when there are none. A token that cannot be read refuses the run before
// anything starts. A question reaches a phone once tri has decided it: not
// when the answerer or auto_answer answered it, and with the answerer's
// summary.
func openChannels(specs []*playbooks.Channel, env notify.Environment, logger *zap.Logger, tri runTriage) (*channel.Set, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	var chans []channel.Channel
	var errs []error
	for _, s := range specs {
		c, err := channel.Open(s, env, logger)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		chans = append(chans, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, refused(err)
	}
	var opts []channel.SetOption
	if tri.decide != nil {
		opts = append(opts, channel.WithTriage(tri.decide, tri.wait))
	}
	return channel.NewSet(chans, logger, channel.Grace, opts...), nil
}
