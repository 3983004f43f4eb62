// Package lazyre holds regular expressions that are compiled the first time
// they are used, not when the program starts.
//
// Every package initialiser of a Go program runs at start, whatever the
// command: a package-level regexp.MustCompile is paid for by `clai version`
// as much as by the command that matches with it. Declared as
//
//	var name = &lazyre.Regexp{Expr: `...`}
//
// a Regexp is laid out by the compiler with no code run at start-up, and
// name.Get() compiles it once, on first use, from any goroutine.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Expr must be a
// valid expression: Get panics otherwise, as regexp.MustCompile does, so
// each one belongs in a package whose tests use it.
type Regexp struct {
	// Expr is the expression, in the syntax of regexp.Compile.
	Expr string

	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression, compiling it the first time.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(r.compile)
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.Expr) }
