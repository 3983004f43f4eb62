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

// openPhones opens the channels of the user config that the playbook asks
// on (its channels:, else every one): through the hub when there is one,
// else in the run itself. With a hub, a run whose user config declares no
// channel links to a hub that answers (a joined machine's, or one started
// with a config of its own), and a playbook that names channels links
// whatever this machine's config says: the hub knows its channels. nil
// when the run asks on none.
func openPhones(pb *playbooks.Playbook, specs []*playbooks.Channel, env notify.Environment, hub *Hub, logger *zap.Logger, tri runTriage, notices io.Writer) (phones, error) {
	if pb.Channels != nil && len(pb.Channels) == 0 {
		return nil, nil
	}
	if hub == nil || len(specs) > 0 {
		chosen, err := chosenChannels(pb, specs)
		if err != nil || len(chosen) == 0 {
			return nil, err
		}
		if hub == nil {
			set, err := openChannels(chosen, env, logger, tri)
			if set == nil || err != nil {
				return nil, err
			}
			return set, nil
		}
		// The hub reads the tokens; one this run cannot read refuses it
		// before anything starts, as a channel of its own would.
		for _, spec := range chosen {
			if _, err := channel.Open(spec, env, logger); err != nil {
				return nil, refused(err)
			}
		}
	} else if pb.Channels == nil && !hublink.Reachable(hub.Socket) {
		return nil, nil
	}
	start := hub.Start
	if len(specs) == 0 {
		start = nil // this machine's config gives a hub of its own no channel
	}
	link := hublink.New(hublink.Options{Socket: hub.Socket, Channels: pb.Channels, Start: start, Log: logger, Notices: notices})
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

// chosenChannels are the channels of specs that pb asks on; a name that is
// none of theirs refuses the run.
func chosenChannels(pb *playbooks.Playbook, specs []*playbooks.Channel) ([]*playbooks.Channel, error) {
	if pb.Channels == nil {
		return specs, nil
	}
	var chosen []*playbooks.Channel
	for _, name := range pb.Channels {
		i := slices.IndexFunc(specs, func(c *playbooks.Channel) bool { return c.Name == name })
		if i < 0 {
			var names []string
			for _, c := range specs {
				names = append(names, c.Name)
			}
			have := "none"
			if len(names) > 0 {
				have = strings.Join(names, ", ")
			}
			return nil, refused(fmt.Errorf("%s: channels: the user config has no channel %q (it has %s); docs/hub.md says how to name one", pb.Path, name, have))
		}
		chosen = append(chosen, specs[i])
	}
	return chosen, nil
}

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
