package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The docs a user reads are checked here, in the package of the command, because a
// playbook in the docs is checked by lintPaths: the very code behind `clai lint`, its
// playbooks' own tests included, wherever those checks live.

// docsFiles lists the Markdown files a user reads, relative to root: the README,
// every page of docs/ and the examples' README.
func docsFiles(root string) ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md", filepath.Join("examples", "README.md")}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, err
		}
		files = append(files, rel)
	}
	return files, nil
}

// TestDocsPlaybooksLintClean lints every playbook of the docs with every check of
// `clai lint`: a finding, warnings included, fails the test at its line in the page.
func TestDocsPlaybooksLintClean(t *testing.T) {
	t.Parallel()
	linted := 0
	for _, file := range mustDocsFiles(t) {
		problems, n, err := snippetProblems("../..", file, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		linted += n
	}
	if linted == 0 {
		t.Error("no playbook found in the docs: the README shows one")
	}
}

// TestDocsLinksResolve checks that every relative link of the docs names a file that
// exists and, where it names a heading, a heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	for _, file := range mustDocsFiles(t) {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			problems, err := linkProblems("../..", file)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

// TestDocsChecksFindBreakage gives both checks a page with one of each fault, so
// that they are known to fail where they should.
func TestDocsChecksFindBreakage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	page := "# Guide\n\n## Set up `clai`, then run!\n\n" +
		"[good](#set-up-clai-then-run) [other](other.md#second-part) [missing](gone.md)\n" +
		"[bad anchor](other.md#nowhere) [web](https://example.com/x#y) `[code](gone.md)`\n\n" +
		"```yaml\nversion: 1\nname: bad\nspawn: {command: [sh]}\nsteps:\n  - exepct: \"x\"\n```\n\n" +
		"```yaml\nspawn: {command: [sh]}\n```\n\n" +
		"```yaml fragment\nspawn: {command: [sh]}\n```\n\n" +
		"```sh\n[not a link](gone.md)\n```\n"
	other := "# Other\n\n## Second part\n\n## Second part\n"
	for name, text := range map[string]string{"page.md": page, "other.md": other} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	links, err := linkProblems(root, "page.md")
	if err != nil {
		t.Fatal(err)
	}
	wantLinks := []string{
		`page.md:5: link "gone.md": no such file`,
		`page.md:6: link "other.md#nowhere": other.md has no heading "nowhere"`,
	}
	if !slices.Equal(links, wantLinks) {
		t.Errorf("link problems:\n got %q\nwant %q", links, wantLinks)
	}

	snippets, linted, err := snippetProblems(root, "page.md", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if linted != 1 {
		t.Errorf("playbooks linted: got %d, want 1 (the fragments are not)", linted)
	}
	if len(snippets) != 2 ||
		!strings.HasPrefix(snippets[0], "page.md:13:5: error: unknown key \"exepct\"") ||
		!strings.HasPrefix(snippets[1], "page.md:16: a yaml block with no top-level version:") {
		t.Errorf("snippet problems: got %q, want the unknown key at page.md:13:5 and the unmarked fragment at page.md:16", snippets)
	}
}

// TestGitHubAnchor checks headings against the anchors GitHub gives them.
func TestGitHubAnchor(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"`clai run`": "clai-run",
		"Audit before trust: record, replay, test": "audit-before-trust-record-replay-test",
		"Screen matching (W5)":                     "screen-matching-w5",
		"Where clai's time goes":                   "where-clais-time-goes",
		"In a terminal and headless":               "in-a-terminal-and-headless",
		"See [the spawn key](playbook.md#spawn)":   "see-the-spawn-key",
		"snake_case and -dashes-":                  "snake_case-and--dashes-",
	} {
		if got := githubAnchor(heading); got != want {
			t.Errorf("githubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

func mustDocsFiles(t *testing.T) []string {
	t.Helper()
	files, err := docsFiles("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("docs files: got %q, want the README, the examples' README and docs/*.md", files)
	}
	return files
}

// snippetProblems lints each yaml block of the Markdown file at root/file as a
// playbook, written to a file of its own in tmp. A block marked `yaml fragment` is a
// part of a playbook and is skipped; any other yaml block must be a whole playbook
// (a top-level version:). Each problem names the file and the line in it; linted
// counts the playbooks linted.
func snippetProblems(root, file, tmp string) (problems []string, linted int, err error) {
	doc, err := readMarkdown(root, file)
	if err != nil {
		return nil, 0, err
	}
	for _, b := range doc.blocks {
		lang, marker, _ := strings.Cut(b.info, " ")
		if lang != "yaml" && lang != "yml" || strings.TrimSpace(marker) == "fragment" {
			continue
		}
		if !topLevelVersion.MatchString(b.body) {
			problems = append(problems, fmt.Sprintf("%s:%d: a yaml block with no top-level version: "+
				"make it a whole playbook, or mark it ```yaml fragment (docs/development.md)", file, b.line))
			continue
		}
		path := filepath.Join(tmp, fmt.Sprintf("%s-%d.yaml", strings.ReplaceAll(file, string(filepath.Separator), "-"), b.line))
		if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
			return nil, 0, err
		}
		linted++
		for _, f := range lintPaths([]string{path}).Findings {
			problems = append(problems, fmt.Sprintf("%s:%d:%d: %s: %s [%s]",
				file, b.line+f.Line, f.Col, f.Severity, f.Message, f.Rule))
		}
	}
	return problems, linted, nil
}

// topLevelVersion finds the version key of a playbook, at the start of a line.
var topLevelVersion = regexp.MustCompile(`(?m)^version:`)

// linkProblems checks the relative links of the Markdown file at root/file: each must
// name an existing file, and an anchor must name a heading of the Markdown it points to.
// Links to other sites, and text in code, are not looked at.
func linkProblems(root, file string) ([]string, error) {
	doc, err := readMarkdown(root, file)
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, l := range doc.links {
		if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
			continue
		}
		path, anchor, _ := strings.Cut(l.target, "#")
		target := file
		if path != "" {
			target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		}
		if _, err := os.Stat(filepath.Join(root, target)); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: link %q: no such file", file, l.line, l.target))
			continue
		}
		if anchor == "" {
			continue
		}
		linked, err := readMarkdown(root, target)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(linked.anchors, anchor) {
			problems = append(problems, fmt.Sprintf("%s:%d: link %q: %s has no heading %q",
				file, l.line, l.target, filepath.ToSlash(target), anchor))
		}
	}
	return problems, nil
}

// markdown is what the checks read of a Markdown file.
type markdown struct {
	blocks  []fencedBlock
	links   []link
	anchors []string // of its headings, as GitHub makes them
}

// fencedBlock is a fenced code block: its info string (```yaml fragment gives
// "yaml fragment"), the line of its opening fence, and its text.
type fencedBlock struct {
	info string
	line int
	body string
}

// link is the target of an inline link [text](target) and the line it is on.
type link struct {
	target string
	line   int
}

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	headingRE  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// readMarkdown reads root/file: its fenced blocks, and outside them its links and
// headings.
func readMarkdown(root, file string) (markdown, error) {
	f, err := os.Open(filepath.Join(root, file))
	if err != nil {
		return markdown{}, err
	}
	defer f.Close()
	var (
		doc     markdown
		open    *fencedBlock
		fence   string
		body    strings.Builder
		seen    = map[string]int{}
		scanner = bufio.NewScanner(f)
		n       int
	)
	for scanner.Scan() {
		n++
		line := scanner.Text()
		trimmed := strings.TrimLeft(line, " ")
		if open != nil {
			if strings.TrimSpace(trimmed) == fence {
				open.body = body.String()
				doc.blocks = append(doc.blocks, *open)
				open = nil
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			open = &fencedBlock{info: strings.TrimSpace(trimmed[3:]), line: n}
			body.Reset()
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			doc.links = append(doc.links, link{target: m[1], line: n})
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			anchor := githubAnchor(m[2])
			if k := seen[anchor]; k > 0 {
				seen[anchor]++
				anchor = fmt.Sprintf("%s-%d", anchor, k)
			} else {
				seen[anchor] = 1
			}
			doc.anchors = append(doc.anchors, anchor)
		}
	}
	if err := scanner.Err(); err != nil {
		return markdown{}, fmt.Errorf("read %s: %w", file, err)
	}
	if open != nil {
		return markdown{}, fmt.Errorf("%s:%d: a code block that is never closed", file, open.line)
	}
	return doc, nil
}

// linkText keeps the text of the links in a heading.
var linkText = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// githubAnchor is the anchor GitHub gives a heading: the text of its links kept, lower
// case, every character that is not a letter, a digit, a space, '-' or '_' dropped,
// and each space made a '-'.
func githubAnchor(heading string) string {
	heading = linkText.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
