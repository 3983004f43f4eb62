// Package exitcode is the one table of clai's exit codes (docs/running.md,
// "Exit codes"): a leaf that the engine, the session and the command line
// share, and that a script reading clai's exit status can read too.
package exitcode

// The exit codes of clai. An engine's Result carries the code of how a run
// ended; an error that ends
// clai for another reason carries its own through an ExitCode method, as
// *SetupError and *StartError do. clai record passes on the program's own
// code instead.
const (
	// Done: the program ended with 0 and every step was satisfied (lint:
	// no errors).
	Done = 0
	// Failed: the program failed, ended before a step matched, or could
	// not start; a template or when: failed at run time (lint: errors found);
	// any error nobody planned for.
	Failed = 1
	// Usage: clai was called wrong, or refused what it was given before
	// anything ran: a command, flag or argument it does not take, an output
	// path that cannot be written, an invalid playbook, an undeclared --var, a
	// missing secret.
	Usage = 2
	// Danger: a danger rule aborted the run.
	Danger = 3
	// Manual: the run ended in MANUAL with a hand-over nobody took, or
	// at a prompt nobody answered. A hand-over a person took ends as the
	// program does (see Result.DecidedBy).
	Manual = 4
	// Refused: clai answer's answer was refused (the question closed,
	// the screen changed, a bad answer, the run ended), or there was no
	// open question to answer.
	Refused = 5
	// Timeout: timeouts.total or a step's timeout ran out.
	Timeout = 124
	// Interrupted: Ctrl-C twice in a terminal, or a signal to clai.
	Interrupted = 130
)
