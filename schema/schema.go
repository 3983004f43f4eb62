// Package schema embeds the JSON Schemas of clai playbooks and run reports.
package schema

import _ "embed"

//go:embed playbook.schema.json
var playbook []byte

//go:embed report.schema.json
var report []byte

// Playbook returns the JSON Schema (draft 2020-12) of clai playbooks, version 1.
// The result is a copy: callers may modify it.
func Playbook() []byte {
	return append([]byte(nil), playbook...)
}

// Report returns the JSON Schema (draft 2020-12) of the JSON report of a run
// (clai run --report FILE.json), version 1. The result is a copy: callers may
// modify it.
func Report() []byte {
	return append([]byte(nil), report...)
}

//go:embed notification.schema.json
var notification []byte

// Notification returns the JSON Schema (draft 2020-12) of a notification, the
// body a webhook target receives and a command target reads on stdin,
// version 1. The result is a copy: callers may modify it.
func Notification() []byte {
	return append([]byte(nil), notification...)
}

//go:embed question.schema.json
var question []byte

// Question returns the JSON Schema (draft 2020-12) of a question a run asks a
// person (package runner/ask), which the report's questions follow too. The
// result is a copy: callers may modify it.
func Question() []byte {
	return append([]byte(nil), question...)
}
