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
		ArgsUsage: strings.Join(shellinit.Shells(), "|"),
		Description: `The hooks append each command you run, with its folder, exit status and
duration, to the shell's spool file, which the suggestion daemon reads; they
use the shell's builtins only, and write nothing while no daemon runs. As the
shell starts they run clai-hook (the one next to this clai, else the one on
PATH) for a session id. Add to your rc file:

  bash (~/.bashrc):                 eval "$(clai init bash)"
  zsh (~/.zshrc):                   eval "$(clai init zsh)"
  fish (~/.config/fish/config.fish): clai init fish | source

See docs/suggest.md.`,
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() != 1 || !shellinit.IsShell(c.Args().First()) {
				return usageError("clai init wants one shell: %s (see clai init --help)", strings.Join(shellinit.Shells(), ", "))
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
