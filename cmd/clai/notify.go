package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/channel"
	"github.com/clai-sh/clai/runner/notify"
)

// openNotifier opens the notification targets of the user config file and
// of pb, in that order, and starts their sender, and the config file's
// two-way channels; each nil when there are none. A
// config file that does not load, a variable a target reads that is not set
// or a secret that cannot be read refuses the run before anything starts; a
// config file others may read is warned of on stderr.
func openNotifier(stderr io.Writer, pb *playbooks.Playbook, environ []string, logger *zap.Logger) (*notify.Sender, *channel.Set, error) {
	specs := pb.Notify
	var channels []*playbooks.Channel
	if path := playbooks.ConfigPath(environ); path != "" {
		warnIfExposed(stderr, path)
		cfg, err := playbooks.LoadConfig(path)
		if err != nil {
			var list interface{ Count() (int, int) }
			if errors.As(err, &list) {
				return nil, nil, usage(fmt.Errorf("%w\nthe user config file %s does not load", err, path))
			}
			return nil, nil, usage(err)
		}
		specs = append(append([]*playbooks.Notify(nil), cfg.Notify...), specs...)
		channels = cfg.Channels
	}
	env := notify.Environment{Environ: environ, ResolvePath: pb.ResolvePath}
	set, err := openChannels(channels, env, logger)
	if err != nil {
		return nil, nil, err
	}
	sender, err := openSender(specs, env, logger)
	return sender, set, err
}

// openSender opens the notification targets and starts their sender; nil
// when there are none.
func openSender(specs []*playbooks.Notify, env notify.Environment, logger *zap.Logger) (*notify.Sender, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	routes := make([]notify.Route, 0, len(specs))
	var errs []error
	for _, s := range specs {
		t, err := notify.Open(s, env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		routes = append(routes, notify.Route{Target: t, Spec: s})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, usage(err)
	}
	return notify.NewSender(routes, notify.WithLogger(logger)), nil
}

// warnIfExposed says on stderr that the config file at path, where tokens
// are kept, may be read by other users.
func warnIfExposed(stderr io.Writer, path string) {
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return
	}
	fmt.Fprintf(stderr, "clai: warning: %s may be read by other users (mode %04o) and holds tokens: chmod 600 %s\n", path, info.Mode().Perm(), path)
}
