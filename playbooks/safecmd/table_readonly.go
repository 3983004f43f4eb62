package safecmd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// readOnlyPrograms is the allow-list of ReadOnly, one entry a program. The
// flags are GNU's (coreutils, grep, findutils) and ripgrep's, git's and
// tree's, as their manuals give them; a flag is listed only when it neither
// writes, deletes nor runs anything, and when in doubt it is left out.
var readOnlyPrograms = []*program{
	{
		name: "ls", about: "lists folders", args: files,
		flags: []string{
			"-a --all", "-A --almost-all", "-b --escape", "--block-size=TEXT", "-B --ignore-backups",
			"-c", "-C", "--color[=TEXT]", "-d --directory", "-f", "-F", "--classify[=TEXT]", "--file-type",
			"--format=TEXT", "--full-time", "-g", "--group-directories-first", "-G --no-group",
			"-h --human-readable", "--si", "-H --dereference-command-line", "--hide=TEXT",
			"--indicator-style=TEXT", "-i --inode", "-I --ignore=TEXT", "-k --kibibytes", "-l",
			"-L --dereference", "-m", "-n --numeric-uid-gid", "-N --literal", "-o", "-p",
			"-q --hide-control-chars", "--show-control-chars", "-Q --quote-name", "--quoting-style=TEXT",
			"-r --reverse", "-R --recursive", "-s --size", "-S", "--sort=TEXT", "--time=TEXT",
			"--time-style=TEXT", "-t", "-T --tabsize=NUM", "-u", "-U", "-v", "-w --width=NUM", "-x",
			"-X", "-1",
		},
	},
	{name: "pwd", about: "prints the working folder", args: noArgs, flags: []string{"-L --logical", "-P --physical"}},
	{
		name: "cd", about: "changes the shell's folder, to a folder inside the project",
		args: args{max: 1, what: "FOLDER (absolute, or ./…)", noGlob: true}, check: checkCd,
	},
	{
		name: "cat", about: "prints files", args: files,
		flags: []string{
			"-A --show-all", "-b --number-nonblank", "-e", "-E --show-ends", "-n --number",
			"-s --squeeze-blank", "-t", "-T --show-tabs", "-u", "-v --show-nonprinting",
		},
	},
	{
		name: "head", about: "prints the start of files", args: files, digits: true,
		flags: []string{"-c --bytes=NUM", "-n --lines=NUM", "-q --quiet --silent", "-v --verbose", "-z --zero-terminated"},
	},
	{
		name: "tail", about: "prints the end of files", args: files, digits: true,
		flags: []string{"-c --bytes=NUM", "-n --lines=NUM", "-q --quiet --silent", "-v --verbose", "-z --zero-terminated"},
		refused: []string{
			"-f --follow -F --retry --pid -s --sleep-interval: waits for the file to grow, without end",
		},
	},
	{
		name: "wc", about: "counts lines, words and bytes", args: files,
		flags:   []string{"-c --bytes", "-m --chars", "-l --lines", "-L --max-line-length", "-w --words", "--total=TEXT"},
		refused: []string{"--files0-from: reads the names of files from a file, unchecked"},
	},
	{
		name: "grep", about: "searches files", args: args{max: -1, what: "PATTERN FILE…"}, digits: true,
		flags: []string{
			"-E --extended-regexp", "-F --fixed-strings", "-G --basic-regexp", "-P --perl-regexp",
			"-e --regexp=TEXT", "-f --file=PATH", "-i --ignore-case", "--no-ignore-case", "-y",
			"-v --invert-match", "-w --word-regexp", "-x --line-regexp", "-c --count",
			"--color --colour[=TEXT]", "-L --files-without-match", "-l --files-with-matches",
			"-m --max-count=NUM", "-o --only-matching", "-q --quiet --silent", "-s --no-messages",
			"-b --byte-offset", "-H --with-filename", "-h --no-filename", "--label=TEXT",
			"-n --line-number", "-T --initial-tab", "-Z --null", "-z --null-data",
			"-A --after-context=NUM", "-B --before-context=NUM", "-C --context=NUM",
			"-a --text", "--binary-files=TEXT", "-I", "-r --recursive", "-R --dereference-recursive",
			"--include=TEXT", "--exclude=TEXT", "--exclude-dir=TEXT", "-U --binary", "--line-buffered",
		},
		refused: []string{
			"--exclude-from -d --directories -D --devices: reads what it is told, unchecked",
		},
	},
	{
		name: "rg", about: "searches files (ripgrep)", args: args{max: -1, what: "PATTERN PATH…"},
		flags: []string{
			"-e --regexp=TEXT", "-f --file=PATH", "-A --after-context=NUM", "-B --before-context=NUM",
			"-C --context=NUM", "-c --count", "--count-matches", "-i --ignore-case", "-S --smart-case",
			"-s --case-sensitive", "-F --fixed-strings", "-w --word-regexp", "-x --line-regexp",
			"-v --invert-match", "-l --files-with-matches", "--files-without-match", "--files",
			"-g --glob=TEXT", "--iglob=TEXT", "-t --type=TEXT", "-T --type-not=TEXT", "--type-list",
			"-m --max-count=NUM", "-d --max-depth=NUM", "--max-filesize=TEXT", "-n --line-number",
			"-N --no-line-number", "--column", "--no-column", "-H --with-filename", "-I --no-filename",
			"--heading", "--no-heading", "-o --only-matching", "-r --replace=TEXT", "-p --pretty",
			"--color=TEXT", "--json", "--vimgrep", "-0 --null", "-q --quiet", "-U --multiline",
			"--multiline-dotall", "-P --pcre2", "--sort=TEXT", "--sortr=TEXT", "--trim", "--stats",
			"-M --max-columns=NUM", "--max-columns-preview", "-L --follow", "--no-messages", "-a --text",
			"-j --threads=NUM", "--passthru", "-b --byte-offset", "--line-buffered", "--no-config",
		},
		refused: []string{
			"--pre --pre-glob: runs a program on each file",
			"-z --search-zip: runs decompression programs",
			"--hostname-bin: runs a program",
			"-u --unrestricted --hidden --no-ignore --no-ignore-vcs: reads hidden and ignored files such as .env",
		},
	},
	{
		name: "find", about: "walks folders", style: findExpr, args: args{max: -1, what: "PATH… EXPRESSION"},
		flags: []string{
			"-H", "-L", "-P",
			"-name=TEXT", "-iname=TEXT", "-path=TEXT", "-ipath=TEXT", "-wholename=TEXT", "-iwholename=TEXT",
			"-regex=TEXT", "-iregex=TEXT", "-regextype=TEXT", "-lname=TEXT", "-ilname=TEXT",
			"-type=TEXT", "-xtype=TEXT", "-maxdepth=NUM", "-mindepth=NUM",
			"-mtime=TEXT", "-mmin=TEXT", "-atime=TEXT", "-amin=TEXT", "-ctime=TEXT", "-cmin=TEXT",
			"-newer=PATH", "-anewer=PATH", "-cnewer=PATH", "-samefile=PATH", "-size=TEXT", "-perm=TEXT",
			"-user=TEXT", "-group=TEXT", "-uid=NUM", "-gid=NUM", "-links=TEXT", "-inum=TEXT", "-used=TEXT",
			"-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-true", "-false",
			"-not", "-a", "-and", "-o", "-or", "-print", "-print0", "-printf=TEXT", "-ls", "-prune",
			"-quit", "-depth", "-d", "-xdev", "-mount", "-noleaf", "-follow", "-daystart",
		},
		refused: []string{
			"-delete: deletes files",
			"-exec -execdir -ok -okdir: runs a program",
			"-fprint -fprint0 -fprintf -fls: writes a file",
		},
	},
	{
		name: "tree", about: "draws folders as a tree", args: files,
		flags: []string{
			"-a", "-d", "-l", "-f", "-x", "-L=NUM", "-P=TEXT", "-I=TEXT", "--gitignore", "--ignore-case",
			"--matchdirs", "--prune", "--filelimit=NUM", "--noreport", "-i", "-q", "-N", "-Q", "-p", "-u",
			"-g", "-s", "-h", "--si", "--du", "-D", "--timefmt=TEXT", "-F", "--inodes", "--device",
			"-v", "-t", "-c", "-U", "-r", "--dirsfirst", "--filesfirst", "--sort=TEXT", "-n", "-C",
			"-A", "-S", "-J", "-X", "--charset=TEXT",
		},
		refused: []string{
			"-o: writes its output to a file",
			"-R: runs tree again in every folder, writing a file in each",
			"-H --fromfile: reads or writes what it is told",
		},
	},
	{
		name: "stat", about: "prints what a file is", args: files,
		flags: []string{"-L --dereference", "-f --file-system", "-c --format=TEXT", "--printf=TEXT", "-t --terse", "--cached=TEXT"},
	},
	{
		name: "du", about: "sums the size of folders", args: files,
		flags: []string{
			"-a --all", "--apparent-size", "-B --block-size=TEXT", "-b --bytes", "-c --total",
			"-D --dereference-args", "-d --max-depth=NUM", "-h --human-readable", "--inodes", "-k",
			"-L --dereference", "-l --count-links", "-m", "-P --no-dereference", "-S --separate-dirs",
			"--si", "-s --summarize", "-t --threshold=TEXT", "--time[=TEXT]", "--time-style=TEXT",
			"-x --one-file-system", "--exclude=TEXT", "-0 --null",
		},
		refused: []string{"--files0-from -X --exclude-from: reads the names of files from a file, unchecked"},
	},
	{name: "echo", about: "prints its arguments", args: textArgs, flags: []string{"-n", "-e", "-E"}},
	{
		name: "sort", about: "sorts lines", args: files,
		flags: []string{
			"-b --ignore-leading-blanks", "-d --dictionary-order", "-f --ignore-case",
			"-g --general-numeric-sort", "-h --human-numeric-sort", "-i --ignore-nonprinting",
			"-M --month-sort", "-n --numeric-sort", "-R --random-sort", "-r --reverse",
			"-V --version-sort", "-k --key=TEXT", "-m --merge", "-c --check", "-C", "-s --stable",
			"-t --field-separator=TEXT", "-u --unique", "-z --zero-terminated", "-S --buffer-size=TEXT",
			"--parallel=NUM", "--sort=TEXT",
		},
		refused: []string{
			"-o --output: writes a file",
			"-T --temporary-directory: writes temporary files where it is told",
			"--compress-program: runs a program",
			"--files0-from --random-source: reads a file named, unchecked",
		},
		check: checkSortKeys,
	},
	{
		name: "uniq", about: "drops repeated lines", args: args{max: -1, what: "[FILE]", noGlob: true},
		flags: []string{
			"-c --count", "-d --repeated", "-D", "--all-repeated[=TEXT]", "-f --skip-fields=NUM",
			"--group[=TEXT]", "-i --ignore-case", "-s --skip-chars=NUM", "-u --unique",
			"-z --zero-terminated", "-w --check-chars=NUM",
		},
		check: func(c *call) string {
			if len(c.pos) > 1 {
				return "uniq: a second file is its output, which it writes"
			}
			return ""
		},
	},
	{
		name: "diff", about: "compares files", args: args{max: -1, what: "FILE FILE", noGlob: true},
		flags: []string{
			"-q --brief", "-s --report-identical-files", "-c", "-C --context=NUM", "-u", "-U --unified=NUM",
			"-e --ed", "-n --rcs", "-y --side-by-side", "-W --width=NUM", "--left-column",
			"--suppress-common-lines", "-p --show-c-function", "-F --show-function-line=TEXT",
			"--label=TEXT", "-t --expand-tabs", "-T --initial-tab", "--tabsize=NUM",
			"--suppress-blank-empty", "-r --recursive", "--no-dereference", "-N --new-file",
			"--unidirectional-new-file", "--ignore-file-name-case", "--no-ignore-file-name-case",
			"-x --exclude=TEXT", "-S --starting-file=TEXT", "--from-file=PATH", "--to-file=PATH",
			"-i --ignore-case", "-E --ignore-tab-expansion", "-Z --ignore-trailing-space",
			"-b --ignore-space-change", "-w --ignore-all-space", "-B --ignore-blank-lines",
			"-I --ignore-matching-lines=TEXT", "-a --text", "--strip-trailing-cr", "--color[=TEXT]",
			"--normal", "-d --minimal", "--horizon-lines=NUM", "--speed-large-files",
		},
		refused: []string{"-l --paginate: runs pr", "-X --exclude-from: reads patterns from a file, unchecked"},
	},
	{name: "basename", about: "strips folders from names", args: textArgs, flags: []string{"-a --multiple", "-s --suffix=TEXT", "-z --zero"}},
	{name: "dirname", about: "strips the last part of names", args: textArgs, flags: []string{"-z --zero"}},
	{
		name: "realpath", about: "prints absolute names", args: files,
		flags: []string{
			"-e --canonicalize-existing", "-m --canonicalize-missing", "-L --logical", "-P --physical",
			"-q --quiet", "-s --strip --no-symlinks", "-z --zero", "--relative-to=PATH", "--relative-base=PATH",
		},
	},
	{name: "which", about: "finds programs in PATH", args: textArgs, flags: []string{"-a"}},
	{
		name: "file", about: "guesses what files hold", args: files,
		flags: []string{
			"-b --brief", "-i --mime", "--mime-type", "--mime-encoding", "-L --dereference",
			"-h --no-dereference", "-k --keep-going", "-E", "-N --no-pad", "-0 --print0", "-r --raw",
		},
		refused: []string{
			"-z --uncompress -Z --uncompress-noreport: runs decompression programs",
			"-C --compile: writes a magic file",
			"-p --preserve-date: changes the files' access times",
			"-f --files-from -m --magic-file: reads a file named, unchecked",
		},
	},
	{
		name: "date", about: "prints the date (no arguments, or +FORMAT)", args: args{max: 1, what: "[+FORMAT]", noGlob: true},
		refused: []string{"-s --set: sets the clock"},
		check: func(c *call) string {
			if len(c.pos) == 1 && !strings.HasPrefix(c.pos[0].value, "+") {
				return "date: an argument other than +FORMAT sets the clock"
			}
			return ""
		},
	},
	{
		name: "cut", about: "prints columns of lines", args: files,
		flags: []string{
			"-b --bytes=TEXT", "-c --characters=TEXT", "-d --delimiter=TEXT", "-f --fields=TEXT", "-n",
			"--complement", "-s --only-delimited", "--output-delimiter=TEXT", "-z --zero-terminated",
		},
	},
	{
		name: "tr", about: "translates characters from its input", args: args{max: 2, what: "SET [SET]", noGlob: true},
		flags: []string{"-c -C --complement", "-d --delete", "-s --squeeze-repeats", "-t --truncate-set1"},
	},
	{
		name: "sed", about: "prints lines by number only (sed -n 'N,Mp' FILE…)", args: args{max: -1, what: "N,Mp FILE…"},
		flags:   []string{"-n --quiet --silent", "-E -r --regexp-extended"},
		refused: []string{"-i --in-place: writes the file", "-e --expression -f --file: takes a script, which can write files or run programs"},
		check:   checkSed,
	},
	{name: "whoami", about: "prints the user's name", args: noArgs},
	{
		name: "uname", about: "prints what the system is", args: noArgs,
		flags: []string{
			"-a --all", "-s --kernel-name", "-n --nodename", "-r --kernel-release", "-v --kernel-version",
			"-m --machine", "-p --processor", "-i --hardware-platform", "-o --operating-system",
		},
	},
	gitProgram,
}

// checkCd allows cd to a folder that is not looked up in CDPATH (an absolute
// one, which checkValue keeps inside the project, or ./…), so that the paths
// of the commands after it stay inside the project.
func checkCd(c *call) string {
	if len(c.pos) != 1 {
		return "cd: without a folder it goes to the home folder"
	}
	v := c.pos[0].value
	if v != "." && !strings.HasPrefix(v, "./") && !strings.HasPrefix(v, "/") {
		return fmt.Sprintf("cd: %s may be looked up in CDPATH (write ./%s)", v, v)
	}
	return ""
}

// sortKey is a KEYDEF of sort -k.
var sortKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?[bdfgiMhnRrV]*(,[0-9]+(\.[0-9]+)?[bdfgiMhnRrV]*)?$`)
})

// checkSortKeys refuses a -k that is not a KEYDEF.
func checkSortKeys(c *call) string {
	for _, g := range c.flags {
		if (g.name == "-k" || g.name == "--key") && !sortKey().MatchString(g.value) {
			return fmt.Sprintf("sort: %q is not a key", g.value)
		}
	}
	return ""
}

// sedPrint is the one sed script allowed: print lines N to M.
var sedPrint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+|\$)(,([0-9]+|\$))?p$`) })

// checkSed allows only a script that prints lines by number.
func checkSed(c *call) string {
	if len(c.pos) == 0 || !sedPrint().MatchString(c.pos[0].value) {
		return "sed: a script other than N,Mp can write files or run programs"
	}
	return ""
}
