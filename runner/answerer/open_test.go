package answerer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/runner/answerer"
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
	m, err := answerer.Open(spec("key"), nil, resolve)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if h, ok := m.(*answerer.HTTP); !ok || h.Key != "s3cret" {
		t.Fatalf("Open = %#v, want an HTTP model with the key read", m)
	}
	_, err = answerer.Open(spec("empty"), nil, resolve)
	if err == nil || !strings.Contains(err.Error(), "answerer key: secret file:empty: it is empty") {
		t.Fatalf("Open with an empty key = %v, want it refused as empty", err)
	}
}
