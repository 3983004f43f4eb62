package tasks

import (
	"context"
	"path/filepath"
	"strings"
)

// justfileNames are the files just reads.
var justfileNames = []string{"justfile", "Justfile", ".justfile", "JUSTFILE"}

// findJustfile returns the recipes of the folder's justfile, run by
// "just NAME".
func findJustfile(_ context.Context, dir string, _ Options) ([]Task, error) {
	name := firstFile(dir, justfileNames...)
	if name == "" {
		return nil, nil
	}
	data, _, err := readBounded(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	c := newCollector(name, "just")
	for _, recipe := range justRecipes(string(data)) {
		if !c.add(recipe) {
			break
		}
	}
	return c.tasks, nil
}

// justRecipes reads a justfile's public recipes, in order: the names of the
// lines at the left margin shaped "name params...:" (not "name := value"),
// but not a private one (a name that starts with "_", or under a [private]
// attribute). Settings, aliases, imports, modules, comments and recipe
// bodies are skipped.
func justRecipes(text string) []string {
	var recipes []string
	private := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") {
			private = private || strings.Contains(line, "private")
			continue
		}
		name, ok := recipeName(line)
		if ok && !private && !strings.HasPrefix(name, "_") {
			recipes = append(recipes, name)
		}
		private = false
	}
	return recipes
}

// recipeName returns the name of a recipe's header line ("@test *args:
// build" → "test"), or false for any other line.
func recipeName(line string) (string, bool) {
	line = strings.TrimPrefix(line, "@")
	end := 0
	for end < len(line) && isNameByte(line[end]) {
		end++
	}
	name := line[:end]
	if name == "" || name[0] == '-' {
		return "", false
	}
	switch name {
	case "set", "alias", "export", "import", "mod", "unexport":
		if end < len(line) && line[end] == ' ' {
			return "", false
		}
	}
	colon := strings.IndexByte(line, ':')
	if colon < end || strings.HasPrefix(line[colon:], ":=") {
		return "", false
	}
	if strings.Contains(line[end:colon], "=") && !strings.Contains(line[end:colon], " ") {
		return "", false
	}
	return name, true
}

// isNameByte reports whether c may be in a just identifier.
func isNameByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
