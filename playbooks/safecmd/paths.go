package safecmd

import (
	"fmt"
	"path"
	"strings"
)

// cleanProject returns the project folder as absolute paths are compared with
// it, or "" when it cannot hold one: a relative path, or the root, inside
// which every path would be.
func cleanProject(project string) string {
	if !strings.HasPrefix(project, "/") {
		return ""
	}
	p := path.Clean(project)
	if p == "/" {
		return ""
	}
	return p
}

// inside reports whether the absolute path p is lexically inside project (or
// is project). Symbolic links are not resolved: reading through one is still
// reading.
func inside(p, project string) bool {
	if project == "" {
		return false
	}
	c := path.Clean(p)
	return c == project || strings.HasPrefix(c, project+"/")
}

// checkValue says why an argument (a positional one, or a flag's value) is
// left to a person: it leaves the project (a .. component, an absolute path
// outside it), names a file that may hold secrets, or is a glob that may
// match .. or a hidden file such as .env.
func (j *judge) checkValue(v string, glob bool) string {
	if hasComponent(v, "/=:", "..") {
		return fmt.Sprintf("%q has a .. component", v)
	}
	if strings.HasPrefix(v, "/") && !inside(v, j.project) {
		return fmt.Sprintf("%s is outside the project", v)
	}
	for c := range strings.SplitSeq(v, "/") {
		if secretName(c) {
			return fmt.Sprintf("%q may hold secrets", c)
		}
		if glob && strings.HasPrefix(c, ".") && strings.ContainsAny(c, "*?") {
			return fmt.Sprintf("the glob %q may match .. or hidden files", v)
		}
	}
	return ""
}

// hasComponent reports whether s, cut at any of the bytes of seps, has a part
// equal to comp.
func hasComponent(s, seps, comp string) bool {
	for len(s) > 0 {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			return s == comp
		}
		if s[:i] == comp {
			return true
		}
		s = s[i+1:]
	}
	return false
}

// secretNames are names of files and folders that hold credentials; a
// name that starts with .env is one too.
var secretNames = map[string]bool{
	".netrc": true, ".npmrc": true, ".pypirc": true, ".git-credentials": true,
	".ssh": true, ".gnupg": true, ".aws": true, ".docker": true, ".kube": true,
	"id_rsa": true, "id_ecdsa": true, "id_ed25519": true, "id_dsa": true,
}

// secretName reports whether the path component c names a file that may hold
// secrets.
func secretName(c string) bool {
	lc := strings.ToLower(c)
	return strings.HasPrefix(lc, ".env") || secretNames[lc] || secretNames[strings.TrimSuffix(lc, ".pub")]
}
