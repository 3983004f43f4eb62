package answerer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clai-sh/clai/playbooks"
)

// maxSecret is the most a file: key may hold, as for a playbook's secrets.
const maxSecret = 64 << 10

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
			return nil, fmt.Errorf("%s: answerer key %s:%s: %w", spec.Pos, spec.Key.Source, spec.Key.Name, err)
		}
		h.Key = key
	}
	return h, nil
}

// readKey reads an env: or file: secret; an empty one is an error.
func readKey(ref playbooks.SecretRef, environ []string, resolvePath func(string) string) (string, error) {
	switch ref.Source {
	case playbooks.SecretEnv:
		for _, kv := range environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == ref.Name && v != "" {
				return v, nil
			}
		}
		return "", fmt.Errorf("the environment variable %s is not set", ref.Name)
	case playbooks.SecretFile:
		path := ref.Name
		if resolvePath != nil {
			path = resolvePath(path)
		}
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxSecret+1))
		switch {
		case err != nil:
			return "", err
		case len(data) > maxSecret:
			return "", fmt.Errorf("the file holds more than %d bytes", maxSecret)
		}
		if v := string(bytes.TrimSpace(data)); v != "" {
			return v, nil
		}
		return "", errors.New("the file is empty")
	}
	return "", fmt.Errorf("unknown source %q", ref.Source)
}
