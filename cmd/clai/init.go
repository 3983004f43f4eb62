package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/runner/suggest/shellinit"
)

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "print the shell hooks that feed clai suggest, for your rc file",
		ArgsUsage: strings.Join(shellinit.Shells, "|"),
		Description: `The hooks hand each command you run, with its folder, exit status and
duration, to clai-hook (the one next to this clai, else the one on PATH),
which tells the suggestion daemon; they never slow the prompt down waiting
for it. Add to your rc file:

  bash (~/.bashrc):                 eval "$(clai init bash)"
  zsh (~/.zshrc):                   eval "$(clai init zsh)"
  fish (~/.config/fish/config.fish): clai init fish | source

See docs/suggest.md.`,
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() != 1 || !shellinit.IsShell(c.Args().First()) {
				return usageError("clai init wants one shell: %s (see clai init --help)", strings.Join(shellinit.Shells, ", "))
			}
			exe, err := os.Executable()
			if err != nil {
				exe = ""
			}
			hook, err := shellinit.FindHook(exe)
			if err != nil {
				return failure(err)
			}
			script, err := shellinit.Script(c.Args().First(), hook)
			if err != nil {
				return failure(err)
			}
			_, err = fmt.Fprint(c.App.Writer, script)
			return err
		}),
	}
}
