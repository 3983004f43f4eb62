package answerer

import (
	"fmt"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/notify"
)

// Open makes the model spec describes. An API's key is read now, from
// environ or a file (a relative path is taken by resolvePath, nil: as it
// is), as a notification target's secret is; the error names the answerer
// by its place and never holds the key.
func Open(spec *playbooks.Answerer, environ []string, resolvePath func(string) string) (Model, error) {
	if len(spec.Command) > 0 {
		return &Command{Argv: spec.Command}, nil
	}
	h := &HTTP{API: string(spec.API), BaseURL: spec.URL, Model: spec.Model}
	if spec.Key != nil {
		key, err := notify.ReadSecret(*spec.Key, notify.Environment{Environ: environ, ResolvePath: resolvePath})
		if err != nil {
			return nil, fmt.Errorf("%s: answerer key: %w", spec.Pos, err)
		}
		h.Key = key
	}
	return h, nil
}
