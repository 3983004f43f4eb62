package channel

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
)

// Kept is what a hub keeps of a channel beyond its process (see Ledger);
// the zero value keeps nothing, as a run's own channel.
type Kept struct {
	// Ledger remembers what was delivered.
	Ledger Ledger
	// ReplyTopic, Since, Seen and Host are an ntfy channel's (see
	// NtfyConfig).
	ReplyTopic string
	Since      string
	Seen       func(id string)
	Host       string
}

// Open makes the channel spec describes, reading its token. Its error names
// the channel by its place in its file and never holds the token.
func Open(spec *playbooks.Channel, env notify.Environment, log *zap.Logger) (Multi, error) {
	return OpenKept(spec, env, log, Kept{})
}

// OpenKept is Open of a channel that keeps what kept says across restarts:
// the hub's.
func OpenKept(spec *playbooks.Channel, env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
	var c Multi
	var err error
	switch spec.Kind {
	case playbooks.ChannelTelegram:
		c, err = openTelegram(spec.Telegram, env, log, kept)
	case playbooks.ChannelNtfy:
		c, err = openNtfy(spec.Ntfy, env, log, kept)
	default:
		err = fmt.Errorf("unknown kind %q", spec.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: channel: %w", spec.Pos, err)
	}
	return c, nil
}

func openTelegram(spec *playbooks.TelegramChannel, env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
	token, err := notify.ReadSecret(spec.Token, env)
	if err != nil {
		return nil, fmt.Errorf("telegram token: %w", err)
	}
	return NewTelegram(TelegramConfig{BaseURL: spec.BaseURL, Token: token, Chats: spec.Chats, Users: spec.Users, Log: log, Ledger: kept.Ledger})
}

func openNtfy(spec *playbooks.NtfyChannel, env notify.Environment, log *zap.Logger, kept Kept) (Multi, error) {
	cfg := NtfyConfig{Server: spec.Server, Topic: spec.Topic, Log: log, Ledger: kept.Ledger, ReplyTopic: kept.ReplyTopic, Since: kept.Since, Seen: kept.Seen, Host: kept.Host}
	if spec.Token != nil {
		token, err := notify.ReadSecret(*spec.Token, env)
		if err != nil {
			return nil, fmt.Errorf("ntfy token: %w", err)
		}
		cfg.Token = token
	}
	return NewNtfy(cfg)
}
