package files

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/clai-sh/clai/internal/bounded"
	"github.com/clai-sh/clai/internal/childenv"
	"github.com/clai-sh/clai/playbooks"
)

// MaxSecretFile is the most a file: secret may hold: far more than any
// password, token or key, and little enough that redacting it stays cheap.
const MaxSecretFile = 64 << 10

// ReadSecret reads the value a secret reference names, for an answer, a
// notification target, a phone channel or a model's key alike; resolve makes
// a file: path absolute (playbooks.Playbook.ResolvePath: relative to the playbook's
// folder). A file's trailing line breaks are dropped.
func ReadSecret(ref playbooks.SecretRef, environ []string, resolve func(string) string) (string, error) {
	switch ref.Source {
	case playbooks.SecretEnv:
		v, ok := childenv.Lookup(environ, ref.Name)
		if !ok {
			return "", fmt.Errorf("secret env:%s: the environment variable is not set", ref.Name)
		}
		if v == "" {
			return "", fmt.Errorf("secret env:%s: the environment variable is empty", ref.Name)
		}
		return v, nil
	case playbooks.SecretFile:
		path := resolve(ref.Name)
		data, err := bounded.ReadFile(path, MaxSecretFile)
		if err != nil {
			var pe *os.PathError
			var tl *bounded.TooLargeError
			if errors.As(err, &pe) {
				err = pe.Err
			} else if errors.As(err, &tl) {
				tl.Name = "" // the message names the file already
			}
			if path != ref.Name {
				// The message names the file it tried, not only as written.
				err = fmt.Errorf("%s: %w", path, err)
			}
			return "", fmt.Errorf("secret file:%s: %w", ref.Name, err)
		}
		return strings.TrimRight(string(data), "\r\n"), nil
	}
	return "", fmt.Errorf("secret %s:%s: unknown source", ref.Source, ref.Name)
}
