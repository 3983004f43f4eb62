package answerer_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/answerer"
	"github.com/clai-sh/clai/runner/notify"
)

func TestOpenReadsTheKeyAndRefusesAnEmptyOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "key"), []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "empty"), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	resolve := func(p string) string { return filepath.Join(dir, p) }
	spec := func(name string) *playbooks.Answerer {
		return &playbooks.Answerer{API: playbooks.APIOpenAI, URL: "http://127.0.0.1:1", Model: "m",
			Key: &playbooks.SecretRef{Source: playbooks.SecretFile, Name: name}}
	}
	m, err := answerer.Open(spec("key"), notify.Environment{ResolvePath: resolve})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if h, ok := m.(*answerer.HTTP); !ok || h.Key != "s3cret" {
		t.Fatalf("Open = %#v, want an HTTP model with the key read", m)
	}
	_, err = answerer.Open(spec("empty"), notify.Environment{ResolvePath: resolve})
	if err == nil || !strings.Contains(err.Error(), "answerer key: secret file:empty: it is empty") {
		t.Fatalf("Open with an empty key = %v, want it refused as empty", err)
	}
}

// TestOpenedCommandGetsAScrubbedEnvironment: a command answerer's program,
// a real child, is not given the variables behind secrets nor those whose
// names look like credentials', unless the answerer's env: names them; their
// values are masked where its reply is quoted.
func TestOpenedCommandGetsAScrubbedEnvironment(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "env")
	spec := &playbooks.Answerer{Command: []string{"/bin/sh", "-c", `env > "$0"; echo "no JSON, key $OPENAI_API_KEY"`, out}, PassEnv: []string{"OPENAI_API_KEY"}}
	m, err := answerer.Open(spec, notify.Environment{
		Environ: []string{"PATH=/usr/bin:/bin", "HOME=/home/me", "HOOK_SECRET=s3cret-hook", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-passed-1234"},
		Secrets: []string{"HOOK_SECRET"},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Ask(t.Context(), answerer.Request{Question: "Continue?"})
	var re *answerer.ReplyError
	if !errors.As(err, &re) || strings.Contains(re.Excerpt, "sk-passed") {
		t.Errorf("error %v, want a reply quoted without the key it was passed", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, gone := range []string{"HOOK_SECRET", "GITHUB_TOKEN"} {
		if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, gone+"=") }) {
			t.Errorf("the answerer's program sees %s:\n%s", gone, data)
		}
	}
	for _, kept := range []string{"PATH=/usr/bin:/bin", "HOME=/home/me", "OPENAI_API_KEY=sk-passed-1234"} {
		if !slices.Contains(got, kept) {
			t.Errorf("the answerer's program does not see %s:\n%s", kept, data)
		}
	}
}
