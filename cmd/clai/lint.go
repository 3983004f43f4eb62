package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clai-sh/clai/playbooks"
	"github.com/clai-sh/clai/playbooks/diag"
	"github.com/clai-sh/clai/playbooks/files"
	"github.com/clai-sh/clai/runner/playtest"
)

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check playbooks, and the user config file: syntax, schema, patterns, expressions, danger rules, timeouts",
		ArgsUsage: "[PLAYBOOK|FOLDER…]",
		Description: "Prints one finding a line, FILE:LINE:COL: error|warning: MESSAGE [RULE], then a hint,\n" +
			"and always ends with \"N playbooks: N errors, N warnings\" (on stderr with --format json,\n" +
			"github or sarif, so stdout stays the machine-readable document).\n" +
			"The user config file ($XDG_CONFIG_HOME/clai/config.yaml), which every clai run reads, is\n" +
			"checked too when it exists, alone when no playbook is named. See docs/lint.md.\n" +
			"Exits 0 without errors (warnings too, unless --strict), 1 with errors, 2 on bad usage.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output format: text, json, github or sarif"},
			&cli.BoolFlag{Name: "strict", Usage: "fail on warnings too"},
			&cli.StringFlag{Name: "config", Usage: "check `FILE` as the user config file", DefaultText: "$XDG_CONFIG_HOME/clai/config.yaml, when it exists"},
			&cli.BoolFlag{Name: "no-config", Usage: "do not check the user config file"},
		},
		Action: stopOnSignal(func(c *cli.Context) error {
			format := c.String("format")
			if err := oneOf("format", format, diag.Formats()); err != nil {
				return err
			}
			target, err := configToLint(c.String("config"), c.IsSet("config"), c.Bool("no-config"), os.Environ())
			if err != nil {
				return err
			}
			paths := target.claim(c.Args().Slice())
			if len(paths) == 0 && !target.exists() {
				return usageError("lint: name at least one playbook or folder%s", target.absence())
			}
			res := lintContext(c.Context, paths)
			if c.Context.Err() != nil {
				return interrupted(c)
			}
			checked, err := target.lintInto(&res, os.Environ())
			if err != nil {
				return err
			}
			var sources map[string][]byte
			if format == "text" && isTerminal(c.App.Writer) {
				sources = res.Sources
			}
			if err := writeLint(c.App.Writer, c.App.ErrWriter, format, res, sources, checked); err != nil {
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
// tool parses. sources, when given, add the line under each text finding;
// config, when not "", is the user config file that was checked too.
func writeLint(stdout, stderr io.Writer, format string, res files.LintResult, sources map[string][]byte, config string) error {
	tool := diag.ToolInfo{Name: "clai", Version: buildVersion(), URI: "https://github.com/clai-sh/clai"}
	if err := diag.WriteFormat(stdout, format, res.Findings, tool, sources); err != nil {
		return fmt.Errorf("lint: write the findings: %w", err)
	}
	summary := stdout
	if format != "text" {
		summary = stderr
	}
	line := diag.Summary(len(res.Files), res.Findings)
	if config != "" {
		files, counts, _ := strings.Cut(line, ": ")
		line = fmt.Sprintf("%s and the user config file %s: %s", files, config, counts)
	}
	if _, err := fmt.Fprintln(summary, line); err != nil {
		return fmt.Errorf("lint: write the summary: %w", err)
	}
	return nil
}

// lintPaths runs every check on the playbooks at paths, their own tests included.
func lintPaths(paths []string) files.LintResult {
	return lintContext(context.Background(), paths)
}

// lintContext is lintPaths that stops when ctx ends, between files and tests.
func lintContext(ctx context.Context, paths []string) files.LintResult {
	res := files.LintContext(ctx, paths)
	for _, f := range res.Files {
		if pb := res.Playbooks[f]; pb != nil {
			res.Findings = append(res.Findings, playtest.TestFindings(ctx, pb)...)
		}
	}
	res.Findings.Sort()
	return res
}

// lintConfig is the user config file lint checks: the one named with
// --config, which must exist, or the user's own, checked when it exists.
type lintConfig struct {
	path     string
	explicit bool
}

// configToLint says which config file lint checks: named (when set), none
// (skip), or the user's own of environ.
func configToLint(named string, set, skip bool, environ []string) (lintConfig, error) {
	switch {
	case set && skip:
		return lintConfig{}, usageError("lint: --config and --no-config exclude each other")
	case set && named == "":
		return lintConfig{}, usageError("lint: --config needs a file")
	case set:
		return lintConfig{path: named, explicit: true}, nil
	case skip:
		return lintConfig{}, nil
	}
	return lintConfig{path: playbooks.ConfigPath(environ)}, nil
}

// exists reports whether there is a config file to check: one named with
// --config always is (one that cannot be read is a finding).
func (l lintConfig) exists() bool {
	if l.path == "" {
		return false
	}
	if l.explicit {
		return true
	}
	_, err := os.Stat(l.path)
	return err == nil
}

// absence says, after "name at least one playbook or folder", why no config
// file is checked either.
func (l lintConfig) absence() string {
	if l.path == "" {
		return ""
	}
	return fmt.Sprintf(" (there is no user config file %s to check either)", l.path)
}

// claim returns paths less those that are the user config file itself,
// which is checked as one, never as a playbook.
func (l lintConfig) claim(paths []string) []string {
	mine, err := os.Stat(l.path)
	if l.path == "" || err != nil {
		return paths
	}
	var rest []string
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && os.SameFile(info, mine) {
			continue
		}
		rest = append(rest, p)
	}
	return rest
}

// lintInto adds the findings of the config file to res, its source too,
// and returns its path; "" when there is none to check. Its channels'
// settings are read by their kinds (checkChannels); the lean clai hands a
// config with channels to the full one, which has them, and returns that
// hand-over's error.
func (l lintConfig) lintInto(res *files.LintResult, environ []string) (string, error) {
	if !l.exists() {
		return "", nil
	}
	findings, src, cfg, found := files.LintConfig(l.path, environ)
	if cfg != nil {
		more, err := checkChannels(cfg)
		if err != nil {
			return "", err
		}
		findings = append(findings, more...)
	}
	if !found {
		findings = diag.List{{Pos: playbooks.Pos{File: l.path, Line: 1, Col: 1}, Severity: diag.Error, Rule: "io",
			Message: fmt.Sprintf("cannot read %s: there is no such file", l.path), Hint: "check the path given to --config"}}
	}
	if src != nil {
		res.Sources[l.path] = src
	}
	res.Findings = append(res.Findings, findings...)
	if cfg != nil {
		// The playbooks' channels: name what the config declares.
		for _, pb := range res.Playbooks {
			res.Findings = append(res.Findings, playbooks.UnknownChannels(pb, cfg)...)
		}
	}
	res.Findings.Sort()
	return l.path, nil
}
