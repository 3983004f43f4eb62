package playbooks_test

import (
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
)

// An alias names the anchor defined before it in the file, whichever section
// either is in and whatever order the sections are decoded in.
func TestAnchorsResolveInDocumentOrder(t *testing.T) {
	t.Parallel()
	pb := mustParse(t, `
version: 1
name: anchors
spawn:
  command: [&prog bash]
vars:
  program: *prog
  first: &word one
  then: *word
  second: &word two
  last: *word
`)
	got := map[string]string{}
	for _, v := range pb.Vars {
		got[v.Name] = v.Value
	}
	want := map[string]string{"program": "bash", "first": "one", "then": "one", "second": "two", "last": "two"}
	for name, value := range want {
		if got[name] != value {
			t.Errorf("vars.%s = %q, want %q (all: %v)", name, got[name], value, got)
		}
	}
}

func TestAliasBeforeItsAnchorIsAnError(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("test.yaml", []byte(`version: 1
name: anchors
vars:
  program: *prog
spawn:
  command: [&prog bash]
`))
	if pb != nil || len(findings) != 1 {
		t.Fatalf("want one finding, got %v", findings)
	}
	f := findings[0]
	if f.Rule != "yaml" || f.Line != 4 || f.Col != 12 || !strings.Contains(f.Message, "*prog") || !strings.Contains(f.Hint, "&prog") {
		t.Fatalf("finding %v (hint %q)", f, f.Hint)
	}
}
