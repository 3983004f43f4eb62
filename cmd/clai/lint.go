package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/runner"
)

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check playbooks: syntax, schema, patterns, expressions, danger rules, timeouts",
		ArgsUsage: "PLAYBOOK|FOLDER…",
		Description: "Prints one finding a line, FILE:LINE:COL: error|warning: MESSAGE [RULE], then a hint,\n" +
			"and always ends with \"N playbooks: N errors, N warnings\" (on stderr with --format json,\n" +
			"github or sarif, so stdout stays the machine-readable document).\n" +
			"Exits 0 without errors (warnings too, unless --strict), 1 with errors, 2 on bad usage.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json, github or sarif"},
			&cli.BoolFlag{Name: "strict", Usage: "fail on warnings too"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			format := c.String("format")
			if err := oneOf("format", format, diag.Formats); err != nil {
				return err
			}
			if c.NArg() == 0 {
				return usageError("lint: name at least one playbook or folder")
			}
			res := lintContext(c.Context, c.Args().Slice())
			if c.Context.Err() != nil {
				return interrupted(c)
			}
			var sources map[string][]byte
			if format == "text" && isTerminal(c.App.Writer) {
				sources = res.Sources
			}
			if err := writeLint(c.App.Writer, c.App.ErrWriter, format, res, sources); err != nil {
				return failure(err)
			}
			errs, warns := res.Findings.Count()
			if errs > 0 || (c.Bool("strict") && warns > 0) {
				return failure(nil)
			}
			return nil
		}),
	}
}

// writeLint prints the findings of res in format, then the one-line count: on
// stdout after text findings, on stderr for the machine formats, whose stdout a
// tool parses. sources, when given, add the line under each text finding.
func writeLint(stdout, stderr io.Writer, format string, res playbooks.LintResult, sources map[string][]byte) error {
	tool := diag.ToolInfo{Name: "clai", Version: buildVersion(), URI: "https://github.com/clai-sh/clai"}
	if err := diag.WriteFormat(stdout, format, res.Findings, tool, sources); err != nil {
		return fmt.Errorf("lint: write the findings: %w", err)
	}
	summary := stdout
	if format != "text" {
		summary = stderr
	}
	if _, err := fmt.Fprintln(summary, diag.Summary(len(res.Files), res.Findings)); err != nil {
		return fmt.Errorf("lint: write the summary: %w", err)
	}
	return nil
}

// lintPaths runs every check on the playbooks at paths, their own tests included.
func lintPaths(paths []string) playbooks.LintResult {
	return lintContext(context.Background(), paths)
}

// lintContext is lintPaths that stops when ctx ends, between files and tests.
func lintContext(ctx context.Context, paths []string) playbooks.LintResult {
	res := playbooks.LintContext(ctx, paths)
	for _, f := range res.Files {
		if pb := res.Playbooks[f]; pb != nil {
			res.Findings = append(res.Findings, runner.TestFindings(ctx, pb)...)
		}
	}
	res.Findings.Sort()
	return res
}
