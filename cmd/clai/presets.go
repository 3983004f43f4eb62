package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/playbooks"
)

func presetsCommand() *cli.Command {
	return &cli.Command{
		Name:  "presets",
		Usage: "list or show the built-in playbooks (for extends: and run --preset)",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the presets with what each is for",
				Action: stopOnSignal(func(c *cli.Context) error {
					for _, name := range playbooks.Presets() {
						if c.Context.Err() != nil {
							return nil
						}
						pb, err := playbooks.LoadPreset(name)
						if err != nil {
							return failure(err)
						}
						fmt.Fprintf(c.App.Writer, "%-12s %s\n", name, strings.TrimSpace(pb.Description))
					}
					return nil
				}),
			},
			{
				Name:      "show",
				Usage:     "print a preset's YAML",
				ArgsUsage: "NAME",
				Action: stopOnSignal(func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("presets show: name one preset (%s)", strings.Join(playbooks.Presets(), ", "))
					}
					src, err := playbooks.PresetSource(c.Args().First())
					if err != nil {
						return usageError("%v", err)
					}
					_, err = c.App.Writer.Write(src)
					return err
				}),
			},
		},
	}
}
