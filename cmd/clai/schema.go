package main

import (
	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/schema"
)

func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema of playbooks (for editors and other validators)",
		Action: stopOnSignal(func(c *cli.Context) error {
			_, err := c.App.Writer.Write(schema.Playbook())
			return err
		}),
	}
}
