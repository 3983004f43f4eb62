package safecmd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A program is what the allow-list knows of one program, or of one
// subcommand of it (git log): the flags known to neither write, delete nor
// run anything, and what its other arguments may be.
type program struct {
	// name is the program ("ls") or the subcommand ("log" under git).
	name string
	// about says in a few words what it does, for the docs.
	about string
	// flags are the flags allowed, one entry a flag with its other names and
	// the value it takes: "-n --lines=NUM" (a value is required), "--color[=TEXT]"
	// (a value is optional, and then given with = or, for a letter, right
	// after it), "-a --all" (no value). A value is NUM, TEXT or PATH; every
	// value is checked as any argument is (no .., no path outside the
	// project …), and a NUM must be a number. PATH says, for the docs, that
	// the program reads or writes the file it names.
	flags []string
	// refused are flags known to write, delete or run something, with why:
	// "-o --output: writes a file". They are refused as any flag not in
	// flags is, with a reason that says what they do.
	refused []string
	// style is how the program reads its flags; gnu by default.
	style style
	// digits lets -NUM stand for a count (head -20, git log -3).
	digits bool
	// args are the arguments that are not flags.
	args args
	// check refuses what the flags and arguments allow but the program
	// must not be given together, or returns "".
	check func(c *call) string
	// subs are the subcommands, when the program takes one first (git).
	subs []*program
	// code marks a program that runs the project's code (tests, builds).
	code bool
}

// style is how a program reads its flags.
type style uint8

const (
	// gnu is getopt_long's way: -abc is -a -b -c, a letter's value follows
	// it or is the next word, --name=value or --name value, flags anywhere
	// until --.
	gnu style = iota
	// single is Go's flag package's way: -name or --name, -name=value or
	// -name value, no bundling.
	single
	// findExpr is find's: options, the starting points, then an
	// expression of primaries (-name PATTERN), operators and parentheses.
	findExpr
)

// args says what the arguments that are not flags may be.
type args struct {
	// max is how many there may be; -1 is any number.
	max int
	// what names them, for the docs ("FILE…").
	what string
	// noGlob refuses an unquoted * or ? in them: they are not file names,
	// or their number matters.
	noGlob bool
}

var (
	files    = args{max: -1, what: "FILE…"}
	noArgs   = args{max: 0}
	textArgs = args{max: -1, what: "TEXT…", noGlob: true}
)

// valueKind is what a flag's value is.
type valueKind uint8

const (
	noValue valueKind = iota
	numValue
	textValue
	pathValue
)

// arity says whether a flag takes a value.
type arity uint8

const (
	none arity = iota
	required
	optional
)

// A flag is one name of an allowed flag, compiled.
type flag struct {
	name  string
	arity arity
	kind  valueKind
}

// number is what a NUM value may be: a count with a sign and a unit (+5, -5,
// 10K, 1MiB).
var number = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?[0-9]+[A-Za-z]{0,3}$`) })

// parseFlagSpec parses an entry of program.flags into its names.
func parseFlagSpec(spec string) ([]flag, error) {
	names := strings.Fields(spec)
	if len(names) == 0 {
		return nil, fmt.Errorf("an empty flag entry")
	}
	last := names[len(names)-1]
	ar, kind := none, noValue
	if i := strings.IndexAny(last, "=["); i > 0 {
		val := last[i:]
		names[len(names)-1] = last[:i]
		switch {
		case strings.HasPrefix(val, "[=") && strings.HasSuffix(val, "]"):
			ar, val = optional, val[2:len(val)-1]
		case strings.HasPrefix(val, "="):
			ar, val = required, val[1:]
		default:
			return nil, fmt.Errorf("flag entry %q: the value is written =KIND or [=KIND]", spec)
		}
		switch val {
		case "NUM":
			kind = numValue
		case "TEXT":
			kind = textValue
		case "PATH":
			kind = pathValue
		default:
			return nil, fmt.Errorf("flag entry %q: value %q is not NUM, TEXT or PATH", spec, val)
		}
	}
	out := make([]flag, 0, len(names))
	for _, n := range names {
		if !flagName().MatchString(n) {
			return nil, fmt.Errorf("flag entry %q: %q is not a flag", spec, n)
		}
		out = append(out, flag{name: n, arity: ar, kind: kind})
	}
	return out, nil
}

var flagName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-[A-Za-z0-9]|--?[A-Za-z0-9][A-Za-z0-9-]*)$`) })

// parseRefused parses an entry of program.refused: its names, and why.
func parseRefused(spec string) ([]string, string, error) {
	names, why, ok := strings.Cut(spec, ": ")
	if !ok || why == "" {
		return nil, "", fmt.Errorf("refused entry %q: write the flags, a colon and why", spec)
	}
	fields := strings.Fields(names)
	for _, n := range fields {
		if !flagName().MatchString(n) {
			return nil, "", fmt.Errorf("refused entry %q: %q is not a flag", spec, n)
		}
	}
	return fields, why, nil
}
