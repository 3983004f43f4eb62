package main

import (
	"errors"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// openChannels opens the two-way channels of the user config file; nil
// when there are none. A token that cannot be read refuses the run before
// anything starts. With an answerer (nil: none), a question reaches a phone
// once it has decided: not when it answered, and with its model's summary.
func openChannels(specs []*playbooks.Channel, env notify.Environment, logger *zap.Logger, ans *answerer.Answerer) (*channel.Set, error) {
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
		return nil, usage(err)
	}
	var opts []channel.SetOption
	if ans != nil {
		opts = append(opts, channel.WithTriage(ans.Triage, triageWait(ans)))
	}
	return channel.NewSet(chans, logger, channel.Grace, opts...), nil
}
