// Package childenv makes the environment of the programs clai runs on its
// own behalf (a notification target's command:, a command answerer): clai's
// environment without the variables that back secrets, unless the playbook
// names them for that program.
package childenv

import (
	"slices"
	"strings"
)

// Scrub returns environ without the variables that back secrets: those
// named in secrets (the env:NAME of every secret of the playbook and the
// user config, the ${NAME} of their notification URLs), and those whose
// name looks like a credential's (SecretName). A variable named in pass is
// kept all the same: the playbook gives it to the program. Entries without
// "=" are dropped. The result is never nil, so that exec never falls back
// to clai's own environment.
func Scrub(environ, secrets, pass []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(pass, name) || !(slices.Contains(secrets, name) || SecretName(name)) {
			out = append(out, kv)
		}
	}
	return out
}

// SecretValues returns the values in environ of the variables Scrub treats
// as secrets (named in secrets or SecretName), passed or not, for masking
// what the program writes; empty values are left out.
func SecretValues(environ, secrets []string) []string {
	var out []string
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && (slices.Contains(secrets, name) || SecretName(name)) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// secretSuffixes end the names of variables that hold a credential, in
// upper case.
var secretSuffixes = []string{"TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "_KEY", "APIKEY"}

// SecretName reports whether a variable's name looks like a credential's:
// ignoring case, it ends in TOKEN, TOKENS, SECRET, SECRETS, PASSWORD,
// PASSWD, PASSPHRASE, _KEY or APIKEY, or is KEY, or holds CREDENTIAL
// (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY,
// GOOGLE_APPLICATION_CREDENTIALS).
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	if upper == "KEY" || strings.Contains(upper, "CREDENTIAL") {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(upper, s) {
			return true
		}
	}
	return false
}

// Lookup is the value of name in environ, the last one given as exec takes
// it, and whether it is there.
func Lookup(environ []string, name string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}
