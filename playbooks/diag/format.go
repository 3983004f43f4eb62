package diag

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// formats lists the output formats of WriteFormat.
var formats = []string{"text", "json", "github", "sarif"}

// Formats returns the output formats of WriteFormat.
// A new copy each call: callers may change it.
func Formats() []string { return slices.Clone(formats) }

// ToolInfo names the program in machine-readable output.
type ToolInfo struct {
	Name    string
	Version string
	URI     string
}

// WriteFormat prints the findings in the named format. Sources maps a file name to
// its content; when it is non-nil the text format shows the offending line with a
// caret under the column.
func WriteFormat(w io.Writer, format string, l List, tool ToolInfo, sources map[string][]byte) error {
	switch format {
	case "text":
		return WriteText(w, l, sources)
	case "json":
		return WriteJSON(w, l)
	case "github":
		return WriteGitHub(w, l)
	case "sarif":
		return WriteSARIF(w, l, tool)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(formats, ", "))
}

// WriteText prints one finding a line, FILE:LINE:COL: SEVERITY: MESSAGE [RULE], each
// followed by an indented hint line. The count is the caller's: see Summary.
func WriteText(w io.Writer, l List, sources map[string][]byte) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		fmt.Fprintln(bw, d.String())
		if snippet := caretSnippet(sources[d.File], d.Line, d.Col); snippet != "" {
			bw.WriteString(snippet)
		}
		if d.Hint != "" {
			fmt.Fprintf(bw, "    hint: %s\n", d.Hint)
		}
	}
	return bw.Flush()
}

// Summary is the one line that closes a lint of files playbooks, whatever it
// found: "3 playbooks: 0 errors, 0 warnings".
func Summary(files int, l List) string {
	e, warn := l.Count()
	return fmt.Sprintf("%s: %s, %s", plural(files, "playbook"), plural(e, "error"), plural(warn, "warning"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// caretSnippet returns the source line and a caret under the column, or "".
func caretSnippet(src []byte, line, col int) string {
	if src == nil || line < 1 {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if line > len(lines) {
		return ""
	}
	text := strings.TrimRight(lines[line-1], "\r")
	pad := make([]byte, 0, col)
	for i, r := range []rune(text) {
		if i >= col-1 {
			break
		}
		if r == '\t' {
			pad = append(pad, '\t')
		} else {
			pad = append(pad, ' ')
		}
	}
	return fmt.Sprintf("    %s\n    %s^\n", text, pad)
}

// jsonReport is the document WriteJSON prints.
type jsonReport struct {
	Version  int           `json:"version"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	Findings []jsonFinding `json:"findings"`
}

type jsonFinding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Hint     string `json:"hint,omitempty"`
}

// WriteJSON prints the findings as one JSON document.
func WriteJSON(w io.Writer, l List) error {
	e, warn := l.Count()
	r := jsonReport{Version: 1, Errors: e, Warnings: warn, Findings: []jsonFinding{}}
	for _, d := range l {
		r.Findings = append(r.Findings, jsonFinding{
			File: d.File, Line: max(d.Line, 1), Col: max(d.Col, 1),
			Severity: d.Severity.String(), Rule: d.Rule, Message: d.Message, Hint: d.Hint,
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteGitHub prints GitHub Actions workflow commands, which annotate the lines of a
// pull request: ::error file=F,line=L,col=C,title=RULE::MESSAGE.
func WriteGitHub(w io.Writer, l List) error {
	bw := bufio.NewWriter(w)
	for _, d := range l {
		msg := d.Message
		if d.Hint != "" {
			msg += "\n" + d.Hint
		}
		fmt.Fprintf(bw, "::%s file=%s,line=%d,col=%d,title=%s::%s\n",
			d.Severity, escapeProperty(d.File), max(d.Line, 1), max(d.Col, 1),
			escapeProperty(d.Rule), escapeData(msg))
	}
	return bw.Flush()
}

// escapeData escapes a workflow command's message.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
