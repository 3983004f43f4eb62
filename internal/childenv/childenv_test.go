package childenv_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/childenv"
)

// A real child given Scrub's environment sees no variable behind a secret,
// nor one whose name looks like a credential's, unless it is passed; the
// rest it sees as they are.
func TestScrubbedChildSeesNoSecret(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/me", "LANG=C.UTF-8",
		"HOOK_SECRET=s3cret-hook", "VAULT_CODE=1234", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-1",
		"AWS_SECRET_ACCESS_KEY=aws-x", "GOOGLE_APPLICATION_CREDENTIALS=/k.json", "DB_PASSWORD=pw",
		"PAGER_TOKEN=pager-1", "noequals",
	}
	env := childenv.Scrub(environ, []string{"HOOK_SECRET", "VAULT_CODE"}, []string{"PAGER_TOKEN"})
	cmd := exec.Command("/bin/sh", "-c", "env")
	cmd.Env = env
	seen, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(seen)), "\n")
	for _, gone := range []string{"HOOK_SECRET", "VAULT_CODE", "GITHUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GOOGLE_APPLICATION_CREDENTIALS", "DB_PASSWORD"} {
		if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, gone+"=") }) {
			t.Errorf("the child sees %s:\n%s", gone, seen)
		}
	}
	for _, kept := range []string{"PATH=/usr/bin:/bin", "HOME=/home/me", "LANG=C.UTF-8", "PAGER_TOKEN=pager-1"} {
		if !slices.Contains(got, kept) {
			t.Errorf("the child does not see %s:\n%s", kept, seen)
		}
	}
}

// An environment with nothing left is empty, not nil, so that exec never
// hands the child clai's own instead.
func TestScrubNeverNil(t *testing.T) {
	t.Parallel()
	if env := childenv.Scrub([]string{"GITHUB_TOKEN=x"}, nil, nil); env == nil || len(env) != 0 {
		t.Fatalf("Scrub = %#v, want an empty list", env)
	}
}

func TestSecretName(t *testing.T) {
	t.Parallel()
	var secret, plain []string
	for _, name := range []string{
		"GITHUB_TOKEN", "gh_token", "NPM_TOKENS", "HOOK_SECRET", "CLIENT_SECRETS", "DB_PASSWORD", "MYSQL_PASSWD",
		"GPG_PASSPHRASE", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "SSH_KEY", "STRIPE_APIKEY", "KEY",
		"GOOGLE_APPLICATION_CREDENTIALS", "AWS_SHARED_CREDENTIALS_FILE",
		"PATH", "HOME", "KEYBOARD", "MONKEY", "TOKENIZER_THREADS", "SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "TERM",
	} {
		if childenv.SecretName(name) {
			secret = append(secret, name)
		} else {
			plain = append(plain, name)
		}
	}
	if got := fmt.Sprint(plain); got != "[PATH HOME KEYBOARD MONKEY TOKENIZER_THREADS SSH_AUTH_SOCK XDG_RUNTIME_DIR TERM]" {
		t.Errorf("taken as no secret: %s (secret: %v)", got, secret)
	}
}

// The values behind secrets, passed or not, are listed for masking; the
// values of other variables and empty ones are not.
func TestSecretValues(t *testing.T) {
	t.Parallel()
	got := childenv.SecretValues([]string{"HOOK=h00k", "PATH=/bin", "GITHUB_TOKEN=ghp", "EMPTY_TOKEN=", "ALSO=h00k"}, []string{"HOOK", "ALSO"})
	if fmt.Sprint(got) != "[h00k ghp]" {
		t.Errorf("SecretValues = %v", got)
	}
}
