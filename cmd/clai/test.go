package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner/playtest"
)

func testCommand() *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "run the playbooks' own tests in virtual time (nothing is spawned)",
		ArgsUsage: "PLAYBOOK|FOLDER…",
		Description: "Prints a line per test, PASS or FAIL with what did not hold, then\n" +
			"\"N passed, N failed\". Exits 1 when a test fails or a playbook does not load.",
		Action: stopOnSignal(func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("test: name at least one playbook or folder")
			}
			w := c.App.Writer
			res := files.LintContext(c.Context, c.Args().Slice())
			passed, failed := 0, 0
			for _, f := range res.Findings {
				if f.Rule == "io" {
					fmt.Fprintf(w, "FAIL %s\n", f)
					failed++
				}
			}
			for _, file := range res.Files {
				pb := res.Playbooks[file]
				if pb == nil {
					first := ""
					for _, f := range res.Findings {
						if f.File == file && f.Severity == 0 {
							first = f.String()
							break
						}
					}
					fmt.Fprintf(w, "FAIL %s: the playbook does not load: %s\n", file, first)
					failed++
					continue
				}
				for _, r := range playtest.RunTests(c.Context, pb) {
					if r.Passed() {
						fmt.Fprintf(w, "PASS %s: %s\n", file, r.Test.Name)
						passed++
						continue
					}
					fmt.Fprintf(w, "FAIL %s:%d: %s: %s\n", file, r.Test.Line, r.Test.Name, strings.Join(r.Failures, "; "))
					failed++
				}
			}
			if c.Context.Err() != nil {
				return interrupted(c)
			}
			fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
			if failed > 0 {
				return failure(nil)
			}
			return nil
		}),
	}
}
