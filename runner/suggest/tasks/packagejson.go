package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// findPackageJSON returns the scripts of the folder's package.json, each
// run by the folder's package manager: the one its "packageManager" field
// names, else the one whose lockfile is there, else npm.
func findPackageJSON(_ context.Context, dir string, _ Options) ([]Task, error) {
	if firstFile(dir, "package.json") == "" {
		return nil, nil
	}
	path := filepath.Join(dir, "package.json")
	data, whole, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	if !whole {
		return nil, fmt.Errorf("tasks: %s is over %d bytes: skipped", path, MaxFileSize)
	}
	var pkg struct {
		Scripts        json.RawMessage `json:"scripts"`
		PackageManager string          `json:"packageManager"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("tasks: %s: %w", path, err)
	}
	names, err := objectKeys(pkg.Scripts)
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: scripts: %w", path, err)
	}
	c := newCollector("package.json", packageManager(dir, pkg.PackageManager)+" run")
	for _, name := range names {
		if isHookScript(name, names) || strings.ContainsAny(name, " \t\n") {
			continue
		}
		if !c.add(name) {
			break
		}
	}
	return c.tasks, nil
}

// objectKeys returns the keys of a JSON object in their order; none for a
// missing or null value.
func objectKeys(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// isHookScript reports whether name is a pre or post hook of another
// script in names ("pretest" when there is "test"): npm runs it by itself.
func isHookScript(name string, names []string) bool {
	for _, prefix := range []string{"pre", "post"} {
		if base, ok := strings.CutPrefix(name, prefix); ok && base != "" {
			for _, other := range names {
				if other == base {
					return true
				}
			}
		}
	}
	return false
}

// lockfiles name the package manager each lockfile belongs to, in the
// order they are looked for.
var lockfiles = []struct{ file, manager string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"bun.lockb", "bun"},
	{"bun.lock", "bun"},
	{"package-lock.json", "npm"},
}

// packageManager is the program that runs the folder's scripts: the name in
// the packageManager field ("pnpm@9.1.0" → "pnpm"), else by lockfile, else
// npm.
func packageManager(dir, field string) string {
	name, _, _ := strings.Cut(field, "@")
	switch name {
	case "npm", "pnpm", "yarn", "bun":
		return name
	}
	for _, lock := range lockfiles {
		if firstFile(dir, lock.file) != "" {
			return lock.manager
		}
	}
	return "npm"
}
