package humanloop

import (
	"errors"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

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
