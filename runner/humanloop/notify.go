package humanloop

import (
	"errors"
	"io"

	"go.uber.org/zap"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/humanloop/core"
	"github.com/clai-sh/clai/runner/notify"
	"github.com/clai-sh/clai/runner/sessions"
)

// LoadConfig loads the user config file of environ, as core.LoadConfig
// does, and says on stderr when others may read it.
func LoadConfig(stderr io.Writer, environ []string) (*playbooks.Config, error) {
	cfg, err := core.LoadConfig(environ)
	if err != nil {
		return nil, err
	}
	core.WarnIfExposed(stderr, cfg)
	return cfg, nil
}

// openNotifier opens the notification targets the run uses, the user
// config's (used.targets) and pb's, in that order, and starts their sender;
// nil when there are none. Where the run reaches the hub, the config's
// targets are the hub's: they are opened here only to be checked. A
// variable a target reads that is not set or a secret that cannot be read
// refuses the run before anything starts. A question is told of once tri
// has decided it: not when the answerer or auto_answer answered it, and
// with the answerer's summary.
func openNotifier(used reach, pb *playbooks.Playbook, cfg *playbooks.Config, environ []string, logger *zap.Logger, tri runTriage, sessionsDir string) (*notify.Sender, error) {
	specs := append(append([]*playbooks.Notify(nil), used.targets...), pb.Notify...)
	if len(specs) == 0 {
		return nil, nil
	}
	// A command: target's program is not given the variables behind the
	// secrets of the playbook and the config, unless its env: names them.
	env := notify.Environment{Environ: environ, ResolvePath: pb.ResolvePath, Secrets: playbooks.SecretVariables(pb, cfg)}
	routes := make([]notify.Route, 0, len(specs))
	var errs []error
	for _, s := range specs {
		t, err := notify.Open(s, env)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s.FromConfig && used.hub != nil {
			continue // the hub's: checked, not used here
		}
		routes = append(routes, notify.Route{Target: t, Spec: s})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, refused(err)
	}
	if len(routes) == 0 {
		return nil, nil
	}
	opts := []notify.Option{notify.WithLogger(logger), notify.WithDashboard(RunningDashboard(sessionsDir))}
	if tri.decide != nil {
		opts = append(opts, notify.WithTriage(tri.decide, tri.wait))
	}
	return notify.NewSender(routes, opts...), nil
}

// RunningDashboard returns the URL, with its token, of the clai dashboard that
// runs now for the sessions folder dir ("" is the user's); "" when none does
// or the folder cannot be used (the run says so itself).
func RunningDashboard(dir string) func() string {
	return func() string {
		reg, err := sessions.Open(dir)
		if err != nil {
			return ""
		}
		return reg.DashboardURL()
	}
}
