// Package schema embeds the JSON Schema of clai playbooks.
package schema

import _ "embed"

//go:embed playbook.schema.json
var playbook []byte

// Playbook returns the JSON Schema (draft 2020-12) of clai playbooks, version 1.
// The result is a copy: callers may modify it.
func Playbook() []byte {
	return append([]byte(nil), playbook...)
}
