package channel

import (
	"fmt"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
)

// Open makes the channel spec describes, reading its token. Its error names
// the channel by its place in its file and never holds the token.
func Open(spec *playbooks.Channel, env notify.Environment, log *zap.Logger) (Channel, error) {
	var c Channel
	var err error
	switch spec.Kind {
	case playbooks.ChannelTelegram:
		c, err = openTelegram(spec.Telegram, env, log)
	case playbooks.ChannelNtfy:
		c, err = openNtfy(spec.Ntfy, env, log)
	default:
		err = fmt.Errorf("unknown kind %q", spec.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: channel: %w", spec.Pos, err)
	}
	return c, nil
}

func openTelegram(spec *playbooks.TelegramChannel, env notify.Environment, log *zap.Logger) (Channel, error) {
	token, err := notify.ReadSecret(spec.Token, env)
	if err != nil {
		return nil, fmt.Errorf("telegram token: %w", err)
	}
	return NewTelegram(TelegramConfig{BaseURL: spec.BaseURL, Token: token, Chats: spec.Chats, Users: spec.Users, Log: log})
}

func openNtfy(spec *playbooks.NtfyChannel, env notify.Environment, log *zap.Logger) (Channel, error) {
	cfg := NtfyConfig{Server: spec.Server, Topic: spec.Topic, Log: log}
	if spec.Token != nil {
		token, err := notify.ReadSecret(*spec.Token, env)
		if err != nil {
			return nil, fmt.Errorf("ntfy token: %w", err)
		}
		cfg.Token = token
	}
	return NewNtfy(cfg)
}
