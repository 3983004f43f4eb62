package answerer

import (
	"fmt"

	"github.com/clai-sh/clai/internal/childenv"
	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
)

// Open makes the model spec describes. An API's key is read now, from
// env's environment or a file (a relative path is taken by env's
// ResolvePath), as a notification target's secret is; the error names the
// answerer by its place and never holds the key. A command's program is
// given env's environment without the variables behind secrets (env's
// Secrets) and those whose names look like credentials', but for those
// spec's env: names (see internal/childenv); their values are masked where
// its reply is quoted.
func Open(spec *playbooks.Answerer, env notify.Environment) (Model, error) {
	if len(spec.Command) > 0 {
		return &Command{
			Argv:    spec.Command,
			Env:     childenv.Scrub(env.Environ, env.Secrets, spec.PassEnv),
			Secrets: childenv.SecretValues(env.Environ, env.Secrets),
		}, nil
	}
	h := &HTTP{API: string(spec.API), BaseURL: spec.URL, Model: spec.Model}
	if spec.Key != nil {
		key, err := notify.ReadSecret(*spec.Key, env)
		if err != nil {
			return nil, fmt.Errorf("%s: answerer key: %w", spec.Pos, err)
		}
		h.Key = key
	}
	return h, nil
}
