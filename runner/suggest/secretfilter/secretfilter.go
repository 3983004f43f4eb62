// Package secretfilter tells whether a shell command line holds a secret, so
// that the suggestion engine never keeps it nor offers it back.
//
// A line is looked at twice: as typed, and as the words a shell would make of
// it (quotes removed, split at blanks and at ;, &, |, (, ), < and >), so that a
// token broken by quotes is still found. The rules, each named by the Rule of
// what it finds:
//
//   - token formats: AWS access key ids (AKIA…, ASIA…), GitHub (ghp_, gho_,
//     ghu_, ghs_, ghr_, github_pat_), GitLab (glpat-), Slack (xox?-, hooks),
//     Stripe (sk_live_, rk_live_, sk_test_, rk_test_), OpenAI-style sk-…, npm
//     (npm_), PyPI (pypi-), JWTs (eyJ….….…) and private-key blocks;
//   - credentials in URLs (scheme://user:password@host);
//   - Authorization, Proxy-Authorization, Cookie and API-key headers;
//   - assignments, exports and environment prefixes of a name that says
//     TOKEN, SECRET, PASSWORD, PASSWD, PWD, PASS, KEY, CREDENTIAL(S) or APIKEY
//     (NAME=value, --name=value, fish's set NAME value), and flags of such a
//     name followed by their value (--password VALUE);
//   - password flags of the programs that take one: -pVALUE for the MySQL and
//     MariaDB clients, sshpass -p, redis-cli -a, mongosh -p, docker/podman
//     login -p, curl -u user:password, openssl pass:VALUE;
//   - high-entropy words (see highEntropy);
//   - the user's own patterns, matched against the line as typed.
//
// A value that only refers to a variable or a command ($TOKEN, $(pass show
// x)) is no secret: the secret is not in the line.
package secretfilter

import (
	"fmt"
	"regexp"
)

// Rule names what found a secret; it never holds the secret.
type Rule string

// The rules.
const (
	RuleToken      Rule = "token-format"
	RuleURL        Rule = "url-credentials"
	RuleHeader     Rule = "auth-header"
	RuleAssignment Rule = "secret-assignment"
	RuleFlag       Rule = "password-flag"
	RuleEntropy    Rule = "high-entropy"
	RuleUser       Rule = "user-pattern"
)

// MaxPatterns bounds the user's patterns, and MaxPattern the length of one.
const (
	MaxPatterns = 256
	MaxPattern  = 1024
)

// Filter finds secrets in command lines. Its zero value applies the built-in
// rules only; it is safe for concurrent use.
type Filter struct {
	user []*regexp.Regexp
}

// New is a Filter with the built-in rules and the user's patterns, compiled
// by Compile, which are matched against the line as typed.
func New(patterns ...*regexp.Regexp) *Filter {
	return &Filter{user: patterns}
}

// Parse is a Filter with the built-in rules and the user's patterns: Go
// regular expressions (RE2: linear time), at most MaxPatterns, each as
// Compile takes it.
func Parse(patterns []string) (*Filter, error) {
	if len(patterns) > MaxPatterns {
		return nil, fmt.Errorf("secret patterns: %d of them, at most %d", len(patterns), MaxPatterns)
	}
	res := make([]*regexp.Regexp, 0, len(patterns))
	for i, p := range patterns {
		re, err := Compile(p)
		if err != nil {
			return nil, fmt.Errorf("secret pattern %d: %w", i+1, err)
		}
		res = append(res, re)
	}
	return New(res...), nil
}

// Compile compiles one user pattern: a non-empty Go regular expression of at
// most MaxPattern bytes that does not match the empty line (it would drop
// every command).
func Compile(p string) (*regexp.Regexp, error) {
	switch {
	case p == "":
		return nil, fmt.Errorf("empty pattern")
	case len(p) > MaxPattern:
		return nil, fmt.Errorf("pattern of %d bytes, at most %d", len(p), MaxPattern)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", p, err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("pattern %q matches every command", p)
	}
	return re, nil
}

// Find returns the rule that finds a secret in line, and whether one did.
func (f *Filter) Find(line string) (Rule, bool) {
	if r, ok := findRaw(line); ok {
		return r, true
	}
	if f != nil {
		for _, re := range f.user {
			if re.MatchString(line) {
				return RuleUser, true
			}
		}
	}
	cmds := splitCommands(line)
	hashy := false
	for _, cmd := range cmds {
		hashy = hashy || hashAware[program(cmd)]
	}
	for _, cmd := range cmds {
		if r, ok := findInCommand(cmd, hashy); ok {
			return r, true
		}
	}
	return "", false
}

// Secret tells whether line holds a secret.
func (f *Filter) Secret(line string) bool {
	_, ok := f.Find(line)
	return ok
}
