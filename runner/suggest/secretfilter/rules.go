package secretfilter

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/clai-sh/clai/internal/lazyre"
)

// tokenFormat is a known token format: a literal every token of it holds,
// looked for first (fast), then the expression.
type tokenFormat struct {
	literal string
	re      *lazyre.Regexp
}

// tokenFormats are the known token formats, matched anywhere: those with a
// prefix no word has also where they are glued to what is before them
// (-pghp_…).
var tokenFormats = []tokenFormat{
	{"AKIA", &lazyre.Regexp{Expr: `\bAKIA[0-9A-Z]{16}\b`}}, // AWS access key id
	{"ASIA", &lazyre.Regexp{Expr: `\bASIA[0-9A-Z]{16}\b`}},
	{"ABIA", &lazyre.Regexp{Expr: `\bABIA[0-9A-Z]{16}\b`}},
	{"ACCA", &lazyre.Regexp{Expr: `\bACCA[0-9A-Z]{16}\b`}},
	{"_", &lazyre.Regexp{Expr: `gh[pousr]_[A-Za-z0-9]{30,}`}},                                                 // GitHub
	{"github_pat_", &lazyre.Regexp{Expr: `github_pat_[A-Za-z0-9_]{20,}`}},                                     // GitHub fine-grained
	{"glpat-", &lazyre.Regexp{Expr: `glpat-[A-Za-z0-9_-]{20,}`}},                                              // GitLab
	{"xox", &lazyre.Regexp{Expr: `xox[abprse]-[A-Za-z0-9-]{10,}`}},                                            // Slack
	{"hooks.slack.com/", &lazyre.Regexp{Expr: `hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{8,}`}}, // Slack webhook
	{"k_", &lazyre.Regexp{Expr: `[sr]k_(?:live|test)_[A-Za-z0-9]{10,}`}},                                      // Stripe
	{"sk-", &lazyre.Regexp{Expr: `\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}`}},                             // OpenAI, Anthropic
	{"npm_", &lazyre.Regexp{Expr: `npm_[A-Za-z0-9]{30,}`}},                                                    // npm
	{"pypi-", &lazyre.Regexp{Expr: `pypi-[A-Za-z0-9_-]{16,}`}},                                                // PyPI
	{"eyJ", &lazyre.Regexp{Expr: `\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}`}},             // JWT
	{"PRIVATE KEY", &lazyre.Regexp{Expr: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY`}},                                  // private-key block
}

// urlCredentials is a URL with a password in its user info.
var urlCredentials = &lazyre.Regexp{Expr: `[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s/@]+@`}

// authHeader is a header that carries a credential, as curl -H or wget
// --header gives it.
var authHeader = &lazyre.Regexp{Expr: `(?i)\b(?:authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token|private-token|x-vault-token|x-amz-security-token)\s*:`}

// findRaw finds the secrets seen in text as a whole: the token formats,
// credentials in URLs and credential headers.
func findRaw(text string) (Rule, bool) {
	for _, f := range tokenFormats {
		if strings.Contains(text, f.literal) && f.re.Get().MatchString(text) {
			return RuleToken, true
		}
	}
	if !strings.Contains(text, ":") {
		return "", false
	}
	switch {
	case strings.Contains(text, "://") && urlCredentials.Get().MatchString(text):
		return RuleURL, true
	case authHeader.Get().MatchString(text):
		return RuleHeader, true
	}
	return "", false
}

// findInCommand finds a secret in the words of one simple command. hashy
// tells that a program of the line takes hashes (see hashAware).
func findInCommand(words []string, hashy bool) (Rule, bool) {
	if r, ok := findRaw(strings.Join(words, " ")); ok {
		// As the shell passes the words: a token cut by quotes is whole.
		return r, true
	}
	prog := program(words)
	login := slices.Contains(words, "login")
	setAt := slices.IndexFunc(words, setsName)
	for i, w := range words {
		next, hasNext := "", i+1 < len(words)
		if hasNext {
			next = words[i+1]
		}
		if secretAssignment(w) {
			return RuleAssignment, true
		}
		if hasNext && secretNameBeforeValue(w, next, setAt >= 0 && setAt < i) {
			return RuleAssignment, true
		}
		if passwordFlag(prog, login, w, next, hasNext) {
			return RuleFlag, true
		}
		if highEntropy(hashy, w) {
			return RuleEntropy, true
		}
	}
	return "", false
}

// program is the command's program: its first word past assignments, the
// wrappers sudo, env, command, exec, time, nice, nohup, builtin, doas and
// fish's and, or, not; its base name.
func program(words []string) string {
	for _, w := range words {
		if isAssignment(w) || strings.HasPrefix(w, "-") {
			continue
		}
		switch filepath.Base(w) {
		case "sudo", "env", "command", "exec", "time", "nice", "nohup", "builtin", "doas", "and", "or", "not", "!", "then", "do", "else", "{":
			continue
		}
		return filepath.Base(w)
	}
	return ""
}

// isAssignment tells whether w is NAME=value with NAME a shell variable name.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && !unicode.IsLetter(c) && (i == 0 || !unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

// secretAssignment tells whether w sets a secret-named key to a value:
// NAME=value, --name=value, -Dname=value, or a value that is itself such an
// assignment (--from-literal=password=x).
func secretAssignment(w string) bool {
	for range 4 {
		key, value, ok := strings.Cut(w, "=")
		if !ok {
			return false
		}
		key = strings.TrimLeft(key, "-")
		if isSecretName(key, isAssignment(w)) && isValue(value) && !pathForKey(key, value) {
			return true
		}
		w = value
	}
	return false
}

// secretNameBeforeValue tells whether w is a flag of a secret name followed
// by its value next (--password VALUE, --api-key VALUE), or a secret name
// given a value by a config or set command, when named (fish's set -x TOKEN
// value, aws configure set aws_secret_access_key value, git config x.token
// value).
func secretNameBeforeValue(w, next string, named bool) bool {
	if strings.Contains(w, "=") || !isValue(next) || strings.HasPrefix(next, "-") {
		return false
	}
	if strings.HasPrefix(w, "-") {
		key := strings.TrimLeft(w, "-")
		return isSecretName(key, false) && !pathForKey(key, next)
	}
	return named && isSecretName(w, true) && !pathForKey(w, next)
}

// setsName tells whether a word makes the names after it the names of
// values set next: fish's set, and config commands.
func setsName(w string) bool {
	switch w {
	case "set", "config", "configure", "config:set", "secrets", "secret":
		return true
	}
	return false
}

// isValue tells whether v is a value written out: not empty, not a
// reference to a variable or a command's output.
func isValue(v string) bool {
	return v != "" && !strings.HasPrefix(v, "$")
}

// strongNames are the name parts that say a secret wherever they are in a
// part; keyNames say it when they are a whole part. Exempt last parts name
// something about a secret that is not one (--token-file, SECRET_NAME).
var (
	strongNames = []string{"password", "passwd", "passphrase", "token", "secret", "credential", "apikey", "accesskey", "privatekey", "secretkey"}
	keyNames    = map[string]bool{"pwd": true, "pass": true, "pw": true, "key": true}
	// weakKey parts make "key" a secret in a flag (--api-key, --access-key).
	weakKey    = map[string]bool{"api": true, "access": true, "secret": true, "private": true, "auth": true, "signing": true, "master": true, "encryption": true, "client": true, "license": true, "account": true, "storage": true}
	exemptLast = map[string]bool{"file": true, "path": true, "dir": true, "name": true, "id": true, "type": true, "length": true, "len": true, "size": true, "stdin": true, "prompt": true, "env": true, "url": true, "uri": true, "cmd": true, "command": true, "helper": true, "ttl": true, "expiry": true, "count": true, "hint": true, "policy": true}
)

// isSecretName tells whether a key names a secret. In a variable name
// (variable) a KEY part is enough (OPENAI_API_KEY, KEY); in a flag it needs
// a part that says which (--api-key, not --key).
func isSecretName(key string, variable bool) bool {
	parts := nameParts(key)
	if len(parts) == 0 || exemptLast[parts[len(parts)-1]] {
		return false
	}
	for j, p := range parts {
		for _, s := range strongNames {
			if strings.Contains(p, s) {
				return true
			}
		}
		if p == "pwd" && len(parts) == 1 {
			// $PWD is the working folder.
			continue
		}
		if keyNames[p] && p != "key" {
			return true
		}
		if p == "key" && (variable || j > 0 && weakKey[parts[j-1]]) {
			return true
		}
	}
	return false
}

// nameParts splits a key into lower-case parts at every character that is
// no letter or digit and at camelCase boundaries.
func nameParts(key string) []string {
	var parts []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			parts = append(parts, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	prevLower := false
	for _, c := range key {
		switch {
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(c) && prevLower:
			flush()
		}
		cur.WriteRune(c)
		prevLower = unicode.IsLower(c) || unicode.IsDigit(c)
	}
	flush()
	return parts
}

// keyFileExt are the extensions of files a key flag names.
var keyFileExt = map[string]bool{".pem": true, ".key": true, ".crt": true, ".cer": true, ".der": true, ".p12": true, ".pfx": true, ".pub": true, ".json": true, ".gpg": true, ".asc": true, ".jks": true, ".txt": true, ".env": true}

// pathForKey tells whether value is a file given to a KEY-named key
// (--private-key ~/.ssh/id_ed25519, SSH_KEY=./deploy.pem): the key names a
// file, not a secret. A password or token is never taken for a path.
func pathForKey(key, value string) bool {
	parts := nameParts(key)
	if len(parts) == 0 || parts[len(parts)-1] != "key" {
		return false
	}
	return strings.ContainsAny(value, "/~") || keyFileExt[strings.ToLower(filepath.Ext(value))]
}

// mysqlLike are the programs whose -pVALUE is a password.
var mysqlLike = map[string]bool{"mysql": true, "mysqldump": true, "mysqladmin": true, "mysqlimport": true, "mysqlshow": true, "mysqlcheck": true, "mysqlpump": true, "mysqlsh": true, "mysqlbinlog": true, "mariadb": true, "mariadb-dump": true, "mariadb-admin": true, "mariadb-import": true, "mariadb-check": true, "mariadb-show": true}

// passwordFlag tells whether w is a password flag of prog with its value:
// attached (-pVALUE) or, where the program takes it so, next. login tells
// that the command has a login word (docker login).
func passwordFlag(prog string, login bool, w, next string, hasNext bool) bool {
	attached := func(flag string) bool { return strings.HasPrefix(w, flag) && len(w) > len(flag) }
	separate := func(flag string) bool { return w == flag && hasNext && isValue(next) }
	switch {
	case mysqlLike[prog]:
		return attached("-p")
	case prog == "sshpass", prog == "mongo", prog == "mongosh":
		return attached("-p") || separate("-p")
	case prog == "redis-cli":
		return attached("-a") || separate("-a")
	case (prog == "docker" || prog == "podman" || prog == "nerdctl" || prog == "buildah" || prog == "skopeo" || prog == "helm" || prog == "oras") && login:
		return attached("-p") || separate("-p")
	case prog == "curl":
		if attached("-u") {
			return userPassword(w[2:])
		}
		return (w == "-u" || w == "--user" || w == "--proxy-user") && hasNext && userPassword(next)
	}
	// openssl -passin pass:VALUE, -passout, -pass, -k.
	return strings.HasPrefix(w, "pass:") && len(w) > len("pass:") && prog == "openssl"
}

// userPassword tells whether s is user:password with a password written
// out.
func userPassword(s string) bool {
	_, pw, ok := strings.Cut(s, ":")
	return ok && isValue(pw)
}
