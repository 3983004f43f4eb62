package main

import (
	"os"
	"strings"
)

// hostEnv names this machine in place of its host name.
const hostEnv = "CLAI_HOST"

// hostName names this machine to a hub: $CLAI_HOST, else the host name up
// to its first dot; letters, digits, '.', '-' and '_' only, 64 at most.
func hostName() string {
	name := os.Getenv(hostEnv)
	if name == "" {
		name, _ = os.Hostname()
		name, _, _ = strings.Cut(name, ".")
	}
	name = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return -1
	}, name)
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" {
		name = "localhost"
	}
	return name
}
