package main

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// hoistFlags lets a command's own flags follow its first argument, as in
// `clai run playbook.yaml --dry-run`: urfave/cli stops reading flags at the first
// argument, which would hand --dry-run to the spawned program. Flags the command
// knows that stand after the first argument and before "--" are moved in front of
// it; everything else keeps its place, and what follows "--" is never touched.
func hoistFlags(args []string, commands []*cli.Command) []string {
	if len(args) < 3 {
		return args
	}
	i := slices.IndexFunc(commands, func(c *cli.Command) bool { return c.Name == args[1] })
	if i < 0 {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range commands[i].Flags {
		for _, name := range f.Names() {
			takesValue[name] = !standsAlone(f)
		}
	}
	head := append([]string(nil), args[:2]...)
	var positional, tail []string
	for j := 2; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			tail = args[j:]
			break
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		value, known := takesValue[name]
		if !strings.HasPrefix(a, "-") || !known {
			positional = append(positional, a)
			continue
		}
		head = append(head, a)
		if value && !hasValue && j+1 < len(args) {
			j++
			head = append(head, args[j])
		}
	}
	return append(append(head, positional...), tail...)
}

// standsAlone reports whether flag f takes no separate value: a bool flag,
// or one whose value says it is one (--wait, which takes --wait=2m too).
func standsAlone(f cli.Flag) bool {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return true
	case *cli.GenericFlag:
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return ok && b.IsBoolFlag()
	}
	return false
}
