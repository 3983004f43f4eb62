package answerer

import (
	"fmt"

	"github.com/clai-sh/clai/playbooks"
)

// Open makes the model spec describes. An API's key is read now, from
// environ or a file (a relative path is taken by resolvePath, nil: as it
// is); the error names the answerer by its place and never holds the key.
func Open(spec *playbooks.Answerer, environ []string, resolvePath func(string) string) (Model, error) {
	if len(spec.Command) > 0 {
		return &Command{Argv: spec.Command}, nil
	}
	h := &HTTP{API: string(spec.API), BaseURL: spec.URL, Model: spec.Model}
	if spec.Key != nil {
		key, err := readKey(*spec.Key, environ, resolvePath)
		if err != nil {
			return nil, fmt.Errorf("%s: answerer key: %w", spec.Pos, err)
		}
		h.Key = key
	}
	return h, nil
}

// readKey reads an env: or file: secret as a playbook's are read; an empty
// one is an error.
func readKey(ref playbooks.SecretRef, environ []string, resolvePath func(string) string) (string, error) {
	if resolvePath == nil {
		resolvePath = func(path string) string { return path }
	}
	v, err := playbooks.ReadSecret(ref, environ, resolvePath)
	if err == nil && v == "" {
		err = fmt.Errorf("secret %s:%s: it is empty", ref.Source, ref.Name)
	}
	return v, err
}
