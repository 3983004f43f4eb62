package hub

import (
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// OpenChannels makes the hub's channels from the user config's, reading
// their tokens from env: each keeps its deliveries in state, and an ntfy
// channel its reply topic. The error names each channel that cannot open.
func OpenChannels(specs []*playbooks.Channel, env notify.Environment, log *zap.Logger, state *State) ([]Channel, error) {
	var out []Channel
	var errs []error
	for _, spec := range specs {
		kept := channel.Kept{Ledger: state}
		if spec.Kind == playbooks.ChannelNtfy {
			topic, since, err := state.ReplyTopic(spec.Name, channel.NewReplyTopic)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: channel %s: %w", spec.Pos, spec.Name, err))
				continue
			}
			name := spec.Name
			kept.ReplyTopic, kept.Since, kept.Seen = topic, since, func(id string) { state.Seen(name, id) }
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
