package safecmd

import (
	"fmt"
	"strings"
)

// gitDiffFlags are the flags of git's diff machinery that only change what is
// printed, shared by git diff, log and show. --output, --ext-diff and
// --textconv are not among them: they write a file or run programs.
var gitDiffFlags = []string{
	"-p -u --patch", "-s --no-patch", "-U --unified=NUM", "--raw", "--patch-with-raw",
	"--indent-heuristic", "--no-indent-heuristic", "--minimal", "--patience", "--histogram",
	"--anchored=TEXT", "--diff-algorithm=TEXT", "--stat[=TEXT]", "--compact-summary", "--numstat",
	"--shortstat", "--dirstat[=TEXT]", "--cumulative", "--summary", "--patch-with-stat", "-z",
	"--name-only", "--name-status", "--color[=TEXT]", "--no-color", "--color-moved[=TEXT]",
	"--no-color-moved", "--color-moved-ws=TEXT", "--word-diff[=TEXT]", "--word-diff-regex=TEXT",
	"--color-words[=TEXT]", "--no-renames", "--rename-empty", "--no-rename-empty", "--check",
	"--ws-error-highlight=TEXT", "--full-index", "--binary", "--abbrev[=NUM]",
	"-B --break-rewrites[=TEXT]", "-M --find-renames[=TEXT]", "-C --find-copies[=TEXT]",
	"--find-copies-harder", "-D --irreversible-delete", "--diff-filter=TEXT", "-S=TEXT", "-G=TEXT",
	"--find-object=TEXT", "--pickaxe-all", "--pickaxe-regex", "-R", "--relative[=TEXT]",
	"--no-relative", "-a --text", "--ignore-cr-at-eol", "--ignore-space-at-eol",
	"-b --ignore-space-change", "-w --ignore-all-space", "--ignore-blank-lines",
	"-I --ignore-matching-lines=TEXT", "--inter-hunk-context=NUM", "-W --function-context",
	"--exit-code", "--quiet", "--no-ext-diff", "--no-textconv", "--ignore-submodules[=TEXT]",
	"--src-prefix=TEXT", "--dst-prefix=TEXT", "--no-prefix", "--default-prefix", "--line-prefix=TEXT",
}

// gitDiffRefused are the diff flags that write or run.
var gitDiffRefused = []string{
	"--output: writes a file",
	"--ext-diff: runs the program diff.external names",
	"--textconv: runs the textconv programs .gitattributes names",
	"-O: reads an order file, unchecked",
	"--no-index: compares files outside the repository",
}

// gitLogFlags are the flags of git log and git show that choose and format
// commits.
var gitLogFlags = []string{
	"-n --max-count=NUM", "--skip=NUM", "--since --after --until --before=TEXT",
	"--author --committer=TEXT", "--grep=TEXT", "--all-match", "--invert-grep",
	"-i --regexp-ignore-case", "-E --extended-regexp", "-F --fixed-strings", "-P --perl-regexp",
	"--all", "--branches[=TEXT]", "--tags[=TEXT]", "--remotes[=TEXT]", "--exclude=TEXT",
	"--first-parent", "--merges", "--no-merges", "--min-parents=NUM", "--max-parents=NUM",
	"--no-walk[=TEXT]", "--do-walk", "--follow", "--oneline", "--format=TEXT", "--pretty[=TEXT]",
	"--abbrev-commit", "--no-abbrev-commit", "--decorate[=TEXT]", "--no-decorate", "--source",
	"--graph", "--reverse", "--date=TEXT", "--relative-date", "--topo-order", "--date-order",
	"--author-date-order", "--left-right", "--cherry-pick", "--cherry-mark", "--cherry",
	"--boundary", "--ancestry-path", "--full-history", "--simplify-by-decoration",
	"--simplify-merges", "--dense", "--sparse", "--parents", "--children", "-g --walk-reflogs",
	"--log-size", "-m", "-c", "--cc", "--diff-merges=TEXT", "--no-diff-merges",
	"--combined-all-paths", "-t", "--use-mailmap", "--no-mailmap", "--encoding=TEXT",
	"--expand-tabs[=NUM]", "--no-expand-tabs", "--no-notes",
}

// gitRevArgs are the arguments of git diff, log and show: revisions, then
// paths.
var gitRevArgs = args{max: -1, what: "[REVISION…] [--] [PATH…]"}

// gitProgram is git with the subcommands that only read the repository.
// Options before the subcommand (-c, -C, --git-dir, --exec-path …) are left
// to a person: -c can make any subcommand run a program. The repository's own
// configuration is trusted (core.fsmonitor, diff drivers and pagers name
// programs): edits under .git/ are left to a person by the presets.
var gitProgram = &program{
	name: "git", about: "reads a git repository",
	subs: []*program{
		{
			name: "status", about: "shows the working tree's state", args: files,
			flags: []string{
				"-s --short", "-b --branch", "--show-stash", "--porcelain[=TEXT]", "--long", "-v --verbose",
				"-u --untracked-files[=TEXT]", "--ignored[=TEXT]", "--ignore-submodules[=TEXT]", "-z",
				"--column[=TEXT]", "--no-column", "--ahead-behind", "--no-ahead-behind", "--renames",
				"--no-renames", "--find-renames[=TEXT]",
			},
		},
		{
			name: "diff", about: "shows changes", args: gitRevArgs,
			flags:   append([]string{"--cached --staged", "--merge-base"}, gitDiffFlags...),
			refused: gitDiffRefused,
		},
		{
			name: "log", about: "shows commits", args: gitRevArgs, digits: true,
			flags:   append(append([]string{}, gitLogFlags...), gitDiffFlags...),
			refused: append([]string{"--show-signature: runs gpg"}, gitDiffRefused...),
			check:   checkGitFormat,
		},
		{
			name: "show", about: "shows commits and objects", args: gitRevArgs, digits: true,
			flags:   append(append([]string{}, gitLogFlags...), gitDiffFlags...),
			refused: append([]string{"--show-signature: runs gpg"}, gitDiffRefused...),
			check:   checkGitFormat,
		},
		{
			name: "branch", about: "lists branches (with --list for patterns)", args: args{max: -1, what: "[--list PATTERN…]", noGlob: true},
			flags: []string{
				"-a --all", "-r --remotes", "-v --verbose", "-l --list", "--show-current",
				"--contains --no-contains --merged --no-merged --points-at=TEXT", "--sort=TEXT",
				"--format=TEXT", "--color[=TEXT]", "--no-color", "--column[=TEXT]", "--no-column",
				"-i --ignore-case", "--abbrev=NUM", "--no-abbrev", "-q --quiet",
			},
			refused: []string{
				"-d -D --delete: deletes a branch",
				"-m -M --move -c -C --copy: renames or copies a branch",
				"-f --force -t --track --no-track -u --set-upstream-to --unset-upstream --edit-description --create-reflog: changes branches",
			},
			check: func(c *call) string {
				if len(c.pos) > 0 && !c.has("-l", "--list") {
					return "git branch: a name without --list creates a branch"
				}
				return checkGitFormat(c)
			},
		},
		{
			name: "tag", about: "lists tags (with --list for patterns)", args: args{max: -1, what: "[--list PATTERN…]", noGlob: true},
			flags: []string{
				"-l --list", "-n[=NUM]", "--sort=TEXT", "--format=TEXT", "--contains --no-contains --merged --no-merged --points-at=TEXT",
				"--color[=TEXT]", "--column[=TEXT]", "--no-column", "-i --ignore-case",
			},
			refused: []string{"-a -s -u -f -d -v -m -F --annotate --sign --force --delete --verify: makes, deletes or checks tags"},
			check: func(c *call) string {
				if len(c.pos) > 0 && !c.has("-l", "--list") {
					return "git tag: a name without --list creates a tag"
				}
				return checkGitFormat(c)
			},
		},
		{
			name: "grep", about: "searches tracked files", args: args{max: -1, what: "PATTERN [REVISION…] [--] [PATH…]"},
			flags: []string{
				"--cached", "--untracked", "--no-exclude-standard", "--exclude-standard", "--recurse-submodules",
				"-a --text", "--no-textconv", "-i --ignore-case", "-I", "--max-depth=NUM",
				"-r --recursive", "--no-recursive", "-w --word-regexp", "-v --invert-match", "-h", "-H",
				"--full-name", "-E --extended-regexp", "-G --basic-regexp", "-P --perl-regexp",
				"-F --fixed-strings", "-n --line-number", "--column", "-l --files-with-matches --name-only",
				"-L --files-without-match", "-z --null", "-o --only-matching", "-c --count", "--color[=TEXT]",
				"--no-color", "--break", "--heading", "-p --show-function", "-A --after-context=NUM",
				"-B --before-context=NUM", "-C --context=NUM", "-W --function-context", "-m --max-count=NUM",
				"--threads=NUM", "-f=PATH", "-e=TEXT", "--and", "--or", "--not", "--all-match", "-q --quiet",
			},
			refused: []string{"-O --open-files-in-pager: runs a pager", "--no-index: searches outside the repository"},
			digits:  true,
		},
		{
			name: "ls-files", about: "lists tracked files", args: files,
			flags: []string{
				"-c --cached", "-d --deleted", "-m --modified", "-o --others", "-i --ignored", "-s --stage",
				"-u --unmerged", "-k --killed", "--directory", "--no-empty-directory", "--eol", "-z",
				"--deduplicate", "-x --exclude=TEXT", "--exclude-standard", "--error-unmatch", "--full-name",
				"--recurse-submodules", "--abbrev[=NUM]", "--format=TEXT", "-t", "-v", "-f",
			},
			refused: []string{"-X --exclude-from --exclude-per-directory: reads a file named, unchecked"},
		},
		{
			name: "rev-parse", about: "names revisions and folders", args: args{max: -1, what: "[REVISION…]", noGlob: true},
			flags: []string{
				"--verify", "-q --quiet", "--short[=NUM]", "--abbrev-ref[=TEXT]", "--symbolic",
				"--symbolic-full-name", "--show-toplevel", "--show-prefix", "--show-cdup", "--git-dir",
				"--absolute-git-dir", "--git-common-dir", "--is-inside-git-dir", "--is-inside-work-tree",
				"--is-bare-repository", "--is-shallow-repository", "--show-superproject-working-tree",
				"--show-object-format[=TEXT]", "--all", "--branches[=TEXT]", "--tags[=TEXT]",
				"--remotes[=TEXT]", "--default=TEXT", "--revs-only", "--no-revs", "--flags", "--no-flags",
				"--sq", "--not",
			},
			refused: []string{"--parseopt --sq-quote --local-env-vars --resolve-git-dir --git-path: reads its arguments in other ways"},
		},
		{
			name: "blame", about: "shows who changed each line", args: gitRevArgs,
			flags: []string{
				"-b", "--root", "--show-stats", "-L=TEXT", "-l", "-t", "-s", "-e --show-email", "-w",
				"-M[=NUM]", "-C[=NUM]", "-n --show-number", "-f --show-name", "-p --porcelain",
				"--line-porcelain", "--incremental", "--date=TEXT", "--abbrev=NUM", "--color-lines",
				"--color-by-age", "--minimal",
			},
			refused: []string{"-S --contents --ignore-revs-file: reads a file named, unchecked"},
		},
		{
			name: "describe", about: "names a commit by its nearest tag", args: args{max: -1, what: "[REVISION…]", noGlob: true},
			flags: []string{
				"--all", "--tags", "--contains", "--abbrev=NUM", "--candidates=NUM", "--exact-match",
				"--debug", "--long", "--match=TEXT", "--exclude=TEXT", "--always", "--first-parent",
			},
			refused: []string{"--dirty --broken: refreshes the index"},
		},
		{
			name: "remote", about: "lists remotes", args: noArgs,
			flags: []string{"-v --verbose"},
		},
	},
}

// checkGitFormat refuses a format with %G, which runs gpg to verify a
// signature.
func checkGitFormat(c *call) string {
	for _, g := range c.flags {
		switch g.name {
		case "--format", "--pretty":
			if strings.Contains(g.value, "%G") {
				return fmt.Sprintf("%s: %%G in %s runs gpg", c.prog.full, g.name)
			}
		}
	}
	return ""
}
