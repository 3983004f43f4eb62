package diag

import "slices"

// Rule describes one check of `clai lint`.
type Rule struct {
	ID       string
	Severity Severity
	// Summary is one sentence saying what the check finds.
	Summary string
	// Structural rules are the ones the JSON Schema can decide as well; the loader and
	// the schema must agree on them.
	Structural bool
}

// rules is the catalogue of lint checks, in the order they are documented.
var rules = []Rule{
	{ID: "io", Severity: Error, Summary: "The playbook file is missing, unreadable, or a folder holds no playbook."},
	{ID: "limits", Severity: Error, Summary: "The file is larger than 1 MiB, nests more than 64 levels, holds more than 20,000 values, or a mapping more than 1,000 keys (docs/playbook.md lists every bound): it is not parsed."},
	{ID: "yaml", Severity: Error, Summary: "The file is not valid YAML.", Structural: true},
	{ID: "schema", Severity: Error, Summary: "A key is unknown, a value has the wrong type, a required key is missing, or keys that exclude each other are combined.", Structural: true},
	{ID: "duration", Severity: Error, Summary: "A duration does not parse (write 300ms, 1.5s, 2m, 1h30m).", Structural: true},
	{ID: "size", Severity: Error, Summary: "A size does not parse (write 512, 8KiB, 1MiB).", Structural: true},
	{ID: "keys", Severity: Error, Summary: "A name in `keys` is not a key clai knows.", Structural: true},
	{ID: "regex", Severity: Error, Summary: "A regular expression does not compile."},
	{ID: "pcre", Severity: Error, Summary: "A regular expression uses PCRE-only syntax that Go's RE2 does not support (lookaround, backreferences, possessive quantifiers, atomic groups, \\Z)."},
	{ID: "expr", Severity: Error, Summary: "A `when` expression does not compile, does not type-check, or uses an unknown name."},
	{ID: "constant-command", Severity: Warning, Summary: "readOnly or projectCode is given a constant command in a `when`: it gives the same answer whatever the program shows."},
	{ID: "template", Severity: Error, Summary: "A `{{ }}` template is malformed or its expression does not compile, or a `${VAR}` in spawn or in a notification target's URL is never closed or empty."},
	{ID: "needs-screen", Severity: Error, Summary: "The playbook needs the screen its match mode does not give: a `choose` with `settings.match: stream`, or `match: stream` written for a tmux pane, which clai reads as a screen."},
	{ID: "duplicate-name", Severity: Error, Summary: "Two steps, rules, danger rules or tests share a name."},
	{ID: "unreachable", Severity: Error, Summary: "A step or case can never run (it follows `expect: eof`, or repeats an earlier case)."},
	{ID: "danger-example", Severity: Error, Summary: "A danger rule's example is not matched by the rule's own pattern."},
	{ID: "rule-example", Severity: Error, Summary: "A rule's example is not matched by the rule's own pattern."},
	{ID: "danger-overlap", Severity: Warning, Summary: "A rule or step would answer a danger rule's example: it could auto-approve a dangerous prompt if the danger rule were changed."},
	{ID: "literal-secret", Severity: Warning, Summary: "A literal answer is typed at a password, passphrase or token prompt, or a notification target's URL holds a token or password written out; it would be logged or kept in the playbook."},
	{ID: "keyword", Severity: Warning, Summary: "A pattern is a keyword in the wrong case (EOF for eof), so it matches text instead."},
	{ID: "unbounded", Severity: Warning, Summary: "A rule has neither `cooldown` nor `limit`, so a program that repeats its prompt gets answered forever."},
	{ID: "notify", Severity: Error, Summary: "A notification target cannot work: its URL names a service clai does not know or is not a URL, a webhook's address is not http or https, or its timeout or rate is out of range."},
	{ID: "answerer", Severity: Error, Summary: "The answerer cannot work: its API's url is not an http or https base URL (or holds credentials, a query), or its timeout is out of range."},
	{ID: "suggest", Severity: Warning, Summary: "suggest.auto_answer is given but suggest.sources leaves out answers, the learned answers it types."},
	{ID: "missing-env", Severity: Error, Summary: "A notification target reads a `${NAME}` (a token) that is not set where clai lint runs: clai run would refuse to start there."},
	{ID: "reference", Severity: Error, Summary: "A test expects a rule, danger rule or step that the playbook does not have, or sets a variable it does not declare."},
	{ID: "test", Severity: Error, Summary: "One of the playbook's own tests fails when its output is run through the engine."},
	{ID: "timeouts", Severity: Error, Summary: "timeouts.idle is not longer than settings.settle: the program is declared idle before clai sees it waiting at a prompt."},
	{ID: "never-fires", Severity: Warning, Summary: "A time limit or the nudges can never take effect: the run's total time ends first, or nudge has no timeouts.idle to start from."},
}

// Rules returns the catalogue of lint checks, in the order they are documented.
// A new copy each call: callers may change it.
func Rules() []Rule { return slices.Clone(rules) }

// RuleByID returns the catalogue entry of a rule id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// IsStructural reports whether findings of the rule id are ones the JSON Schema decides too.
func IsStructural(id string) bool {
	r, ok := RuleByID(id)
	return ok && r.Structural
}
