package safecmd

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clai-sh/clai/internal/golden"
)

// docsPage is the page that shows the allow-list.
const docsPage = "../../docs/presets.md"

// TestDocsShowTheAllowList: the tables of docs/presets.md are the allow-list
// as the tables of this package hold it, so they cannot drift; go test
// -update (make update-golden) writes them anew.
func TestDocsShowTheAllowList(t *testing.T) {
	t.Parallel()
	ts, err := tables()
	if err != nil {
		t.Fatal(err)
	}
	var readOnly, code []*compiled
	for _, p := range ts.order {
		if p.runsCode {
			code = append(code, p)
		} else {
			readOnly = append(readOnly, p)
		}
	}
	page, err := os.ReadFile(docsPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for _, part := range []struct {
		name  string
		progs []*compiled
	}{{"read-only", readOnly}, {"project-code", code}} {
		begin := fmt.Sprintf("<!-- %s allow-list: generated from playbooks/safecmd by go test -update -->\n", part.name)
		end := fmt.Sprintf("<!-- end of the %s allow-list -->\n", part.name)
		i, j := strings.Index(text, begin), strings.Index(text, end)
		if i < 0 || j < i {
			t.Fatalf("%s has no %q … %q section", docsPage, strings.TrimSpace(begin), strings.TrimSpace(end))
		}
		want := docTable(part.progs)
		if got := text[i+len(begin) : j]; got != want {
			if !golden.Update() {
				t.Errorf("the %s allow-list of %s is not the package's (go test ./playbooks/safecmd -update writes it):%s", part.name, docsPage, golden.Diff(want, got))
				continue
			}
			text = text[:i+len(begin)] + want + text[j:]
		}
	}
	if golden.Update() && text != string(page) {
		if err := os.WriteFile(docsPage, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// docTable renders programs as a Markdown table: one row a program or a
// subcommand.
func docTable(progs []*compiled) string {
	var b strings.Builder
	b.WriteString("\n| command | what it does | flags allowed | arguments | flags refused, with why |\n| --- | --- | --- | --- | --- |\n")
	for _, p := range progs {
		docRows(&b, p)
	}
	b.WriteString("\n")
	return b.String()
}

// docRows writes the row of p, or those of its subcommands.
func docRows(b *strings.Builder, p *compiled) {
	if len(p.subs) > 0 {
		for _, s := range p.subs {
			docRows(b, s)
		}
		return
	}
	flags := "none"
	if len(p.flags) > 0 {
		var fs []string
		for _, spec := range p.program.flags {
			fs = append(fs, "`"+spec+"`")
		}
		flags = strings.Join(fs, ", ")
	}
	if p.digits {
		flags += ", `-NUM`"
	}
	args := "`" + p.args.what + "`"
	if p.args.max == 0 {
		args = "none"
	}
	var refused []string
	for _, spec := range p.program.refused {
		names, why, _ := strings.Cut(spec, ": ")
		refused = append(refused, "`"+names+"`: "+why)
	}
	refusedCell := "—"
	if len(refused) > 0 {
		refusedCell = strings.Join(refused, "; ")
	}
	fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", p.full, cell(p.about), cell(flags), cell(args), cell(refusedCell))
}

// cell escapes text for a table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
