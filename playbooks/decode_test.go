package playbooks_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
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

// An alias inside the value of the anchor it names would make a value that
// holds itself: a merge of it once recursed until the stack overflowed.
func TestAliasInsideItsOwnAnchorIsAnError(t *testing.T) {
	t.Parallel()
	pb, findings := playbooks.Parse("test.yaml", []byte(`version: 1
name: anchors
spawn:
  command: [sh]
rules:
  - &approve
    <<: *approve
    name: x
`))
	i := slices.IndexFunc(findings, func(f diag.Diagnostic) bool { return f.Rule == "yaml" })
	if pb != nil || i < 0 {
		t.Fatalf("want a yaml error, got %v", findings)
	}
	if f := findings[i]; f.Line != 7 || f.Col != 9 || !strings.Contains(f.Message, "*approve") || f.Hint == "" {
		t.Fatalf("finding %v (hint %q)", f, f.Hint)
	}
}
