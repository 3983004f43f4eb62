package engine

// The exit codes of clai, the one table of them (docs/running.md, "Exit
// codes"). A Result carries the code of how a run ended; an error that ends
// clai for another reason carries its own through an ExitCode method, as
// *SetupError and *StartError do. clai record passes on the program's own
// code instead.
const (
	// ExitDone: the program ended with 0 and every step was satisfied (lint:
	// no errors).
	ExitDone = 0
	// ExitFailed: the program failed, ended before a step matched, or could
	// not start; a template or when: failed at run time (lint: errors found);
	// any error nobody planned for.
	ExitFailed = 1
	// ExitUsage: clai was called wrong, or refused what it was given before
	// anything ran: a command, flag or argument it does not take, an output
	// path that cannot be written, an invalid playbook, an undeclared --var, a
	// missing secret.
	ExitUsage = 2
	// ExitDanger: a danger rule aborted the run.
	ExitDanger = 3
	// ExitManual: the run ended in MANUAL with a hand-over nobody took, or
	// at a prompt nobody answered. A hand-over a person took ends as the
	// program does (see Result.DecidedBy).
	ExitManual = 4
	// ExitRefused: clai answer's answer was refused (the question closed,
	// the screen changed, a bad answer, the run ended), or there was no
	// open question to answer.
	ExitRefused = 5
	// ExitTimeout: timeouts.total or a step's timeout ran out.
	ExitTimeout = 124
	// ExitInterrupted: Ctrl-C twice in a terminal, or a signal to clai.
	ExitInterrupted = 130
)
