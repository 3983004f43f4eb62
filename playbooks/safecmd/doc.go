// Package safecmd decides whether a shell command line an agent asks to run
// may be approved without a person, by construction rather than by pattern.
//
// ReadOnly approves a line only when it parses (mvdan.cc/sh/v3/syntax, as
// bash reads it) into simple commands joined by |, &&, || or ;, with no
// redirection, substitution, expansion of variables, assignment, brace
// expansion or control structure, and when every command's program and every
// one of its flags is on an allow-list of flags known not to write, delete or
// run anything. Every argument is checked against the project folder: no ..
// component, no ~, no absolute path outside the project, no glob that could
// reach outside it or expand to a flag, no .env file. ProjectCode approves the
// same and, beside it, the project's own tests and builds (go test, npm test,
// make, cargo test, pytest …), which run code the agent may have written.
//
// Anything not understood is refused, and the Verdict says why in a few
// words, so that a person decides. The package trusts what it cannot see: the
// shell's functions and aliases, PATH, the environment (GOFLAGS, a git
// configuration that names programs) and the files the commands read.
package safecmd
