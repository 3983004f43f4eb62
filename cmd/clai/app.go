package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/clai-sh/clai/runner/exitcode"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise the
// module version from the build information is used.
var version = ""

// exitError is an error that carries the exit code clai ends with: one of
// runner's Exit codes, or for clai record the program's own. Without err, clai
// ends quietly: what there was to say has been said.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// ExitCode is the code clai ends with.
func (e *exitError) ExitCode() int { return e.code }

// usageError is a mistake in how clai was called: exit 2.
func usageError(format string, args ...any) error {
	return usage(fmt.Errorf(format, args...))
}

// usage is err, a refusal of what clai was given, with exit 2.
func usage(err error) error { return &exitError{code: exitcode.Usage, err: err} }

// failure is err with exit 1; without err, clai ends quietly with 1.
func failure(err error) error { return &exitError{code: exitcode.Failed, err: err} }

// exitCode maps the error a command returned to the process exit code; it is the one
// place that does. An error that knows its code (an ExitCode method, anywhere
// in its chain) has it; an error nobody planned for (an I/O error, a bug) is a
// failure, exit 1, never a usage error.
func exitCode(err error) int {
	if err == nil {
		return exitcode.Done
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return exitcode.Failed
}

// flagErrorsAreUsage makes a flag cmd or one of its subcommands cannot parse a
// usage error (exit 2): one line on stderr that says where the flags are listed.
func flagErrorsAreUsage(cmd *cli.Command, parent string) {
	name := parent + " " + cmd.Name
	cmd.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
		return usage(fmt.Errorf("%w (see %s --help)", err, name))
	}
	for _, sub := range cmd.Subcommands {
		flagErrorsAreUsage(sub, name)
	}
}

// stopOnSignal makes a command end at once with exit 130 when ctx ends (a
// signal to clai), even while its action is blocked, say reading a pipe or
// writing to a full one. The action sees the same context and stops at its next
// check; run ends the process without waiting for it. Commands that must clean
// up after a program (run, record) handle the context themselves instead.
//
// A command that catches no signal (endsAtOnce) runs its action as it is.
func stopOnSignal(action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Context.Done() == nil {
			return action(c)
		}
		done := make(chan error, 1)
		go func() { done <- action(c) }()
		select {
		case err := <-done:
			if c.Context.Err() != nil {
				return interrupted(c)
			}
			return err
		case <-c.Context.Done():
			return interrupted(c)
		}
	}
}

// interrupted is the error of a command that a signal stopped.
func interrupted(c *cli.Context) error {
	return &exitError{code: exitcode.Interrupted, err: fmt.Errorf("%s stopped: %w", c.Command.FullName(), context.Cause(c.Context))}
}

// run is main without the process: it builds the app, runs it on args and returns the
// exit code. Errors are printed once, with the clai: prefix, on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr, commandNamed(args))
	err := app.RunContext(ctx, hoistFlags(args, app.Commands))
	code := exitCode(err)
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.err != nil) {
		fmt.Fprintf(stderr, "clai: %v\n", err)
	}
	return code
}

// command is one of clai's commands, built only when it is needed.
type command struct {
	name  string
	build func() *cli.Command
}

// commands are clai's commands, in the order --help lists them.
func commands() []command {
	return append([]command{
		{"run", runCommand},
		{"test", testCommand},
		{"lint", lintCommand},
		{"schema", schemaCommand},
		{"record", recordCommand},
		{"presets", presetsCommand},
		{"sessions", sessionsCommand},
		{"answer", answerCommand},
		{"init", initCommand},
		{"suggest", suggestCommand},
		{"version", versionCommand},
	}, companionCommands()...)
}

// commandNamed returns the name of the command args run ("clai NAME ..."),
// or "" when they run none by its name (no arguments, a flag first, a
// mistyped name): then the app needs every command, for its help or its
// suggestion.
func commandNamed(args []string) string {
	if len(args) < 2 {
		return ""
	}
	for _, c := range commands() {
		if c.name == args[1] {
			return c.name
		}
	}
	return ""
}

// newApp builds the app with the command called name, or with every
// command when name is "". A command's flags and subcommands are a good part
// of a short command's start-up, so clai builds only the one it runs.
func newApp(stdin io.Reader, stdout, stderr io.Writer, name string) *cli.App {
	app := &cli.App{
		Name:      "clai",
		Usage:     "run interactive terminal programs from playbooks",
		Version:   buildVersion(),
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// clai maps errors to exit codes itself, in run.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usage(err)
		},
		HideHelpCommand: true,
		// A repeatable flag takes each value whole: a comma is part of a
		// --var value or a --report path.
		DisableSliceFlagSeparator: true,
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return usageError("unknown command %q (see clai --help)", c.Args().First())
		},
	}
	for _, c := range commands() {
		if name == "" || c.name == name {
			app.Commands = append(app.Commands, c.build())
		}
	}
	for _, cmd := range app.Commands {
		flagErrorsAreUsage(cmd, app.Name)
	}
	return app
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print clai's version",
		Action: stopOnSignal(func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "clai %s\n", buildVersion())
			return err
		}),
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// oneOf checks a flag value against its allowed values.
func oneOf(flag, value string, allowed []string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return usageError("--%s %q: want one of %s", flag, value, strings.Join(allowed, ", "))
}
