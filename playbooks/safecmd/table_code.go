package safecmd

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// projectPrograms is the allow-list ProjectCode adds to ReadOnly's: the
// project's own tests and builds. They run code the agent may have written;
// their flags are those that neither run another program nor write outside
// the project, and their arguments stay inside it.
var projectPrograms = []*program{
	{
		name: "go", about: "tests, builds and vets Go packages of the project", code: true,
		subs: []*program{
			{
				name: "test", about: "runs the tests", style: single, args: goPackages, check: checkGoPackages,
				flags: append([]string{
					"-run=TEXT", "-skip=TEXT", "-count=NUM", "-short", "-failfast", "-json", "-timeout=TEXT",
					"-bench=TEXT", "-benchmem", "-benchtime=TEXT", "-cpu=TEXT", "-parallel=NUM",
					"-shuffle=TEXT", "-covermode=TEXT", "-coverpkg=TEXT", "-coverprofile=PATH",
					"-vet=TEXT", "-fullpath", "-list=TEXT",
				}, goBuildFlags...),
				refused: append([]string{
					"-exec: runs the tests through another program",
					"-args: passes the rest to the test binary, unchecked",
					"-o: writes the test binary",
					"-cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir -fuzz -fuzztime -fuzzminimizetime: writes files or runs long",
				}, goRefused...),
			},
			{
				name: "build", about: "builds", style: single, args: goPackages, check: checkGoPackages,
				flags:   append([]string{"-o=PATH"}, goBuildFlags...),
				refused: goRefused,
			},
			{
				name: "vet", about: "vets", style: single, args: goPackages, check: checkGoPackages,
				flags:   []string{"-tags=TEXT", "-json", "-v", "-x", "-n"},
				refused: goRefused,
			},
		},
	},
	{
		name: "npm", about: "runs the project's package.json scripts", code: true,
		subs: []*program{
			{name: "test", about: "runs the test script", args: noArgs, flags: npmFlags, refused: npmRefused},
			{name: "t", about: "runs the test script", args: noArgs, flags: npmFlags, refused: npmRefused},
			{name: "run", about: "runs a script (without arguments)", args: npmScript, flags: npmFlags, refused: npmRefused, check: checkNpmScript},
			{name: "run-script", about: "runs a script (without arguments)", args: npmScript, flags: npmFlags, refused: npmRefused, check: checkNpmScript},
		},
	},
	{
		name: "make", about: "makes targets of the project's Makefile", code: true,
		args: args{max: -1, what: "[TARGET…]", noGlob: true},
		flags: []string{
			"-j --jobs[=NUM]", "-k --keep-going", "-s --silent --quiet", "-n --dry-run --just-print --recon",
			"-B --always-make", "-q --question", "-w --print-directory", "--no-print-directory",
			"-O --output-sync[=TEXT]", "-C --directory=PATH", "-f --file --makefile=PATH", "-i --ignore-errors",
			"-S --no-keep-going --stop", "-r --no-builtin-rules", "-R --no-builtin-variables", "--trace",
			"-l --load-average[=NUM]",
		},
		refused: []string{
			"-e --environment-overrides: lets the environment override the Makefile",
			"-E --eval: evaluates a Makefile text",
			"-I --include-dir: reads Makefiles from elsewhere",
			"-o --old-file -W --what-if --assume-new --assume-old --new-file: changes what is made",
		},
		check: func(c *call) string {
			for _, w := range c.pos {
				if strings.Contains(w.value, "=") {
					return fmt.Sprintf("make: %s sets a variable", w.value)
				}
			}
			return ""
		},
	},
	{
		name: "cargo", about: "tests and builds the project's Rust crates", code: true,
		subs: []*program{
			{name: "test", about: "runs the tests", args: args{max: -1, what: "[TESTNAME]", noGlob: true}, flags: cargoFlags, refused: cargoRefused, check: noCargoPassThrough},
			{name: "build", about: "builds", args: noArgs, flags: cargoFlags, refused: cargoRefused},
			{name: "check", about: "checks", args: noArgs, flags: cargoFlags, refused: cargoRefused},
			{name: "clippy", about: "lints (-- -D LINT …)", args: args{max: -1, what: "[-- -D|-W|-A LINT…]", noGlob: true}, flags: cargoFlags, refused: cargoRefused, check: checkClippyLints},
		},
	},
	{
		name: "pytest", about: "runs the project's Python tests", code: true,
		args: files, flags: pytestFlags, refused: pytestRefused,
	},
	{
		name: "python", about: "only as python -m pytest", code: true,
		subs: []*program{{name: "-m pytest", about: "runs the project's Python tests", args: files, flags: pytestFlags, refused: pytestRefused}},
	},
	{
		name: "python3", about: "only as python3 -m pytest", code: true,
		subs: []*program{{name: "-m pytest", about: "runs the project's Python tests", args: files, flags: pytestFlags, refused: pytestRefused}},
	},
}

// goBuildFlags are the build flags of go test and go build that run no other
// program and write nothing outside the project.
var goBuildFlags = []string{"-v", "-race", "-msan", "-asan", "-cover", "-tags=TEXT", "-trimpath", "-a", "-n", "-x", "-p=NUM"}

// goRefused are the go flags that run another program or read files not
// checked.
var goRefused = []string{
	"-toolexec -vettool: runs another program",
	"-ldflags -gcflags -asmflags -gccgoflags -compiler: passes flags to the toolchain, which can run programs",
	"-overlay -modfile -pgo -mod -C -work -buildmode -linkshared -pkgdir: reads or writes files elsewhere",
}

// goPackages are go's package arguments: the project's own only.
var goPackages = args{max: -1, what: "./… PACKAGE…", noGlob: true}

// checkGoPackages allows only packages of the project (., ./…): an import path
// would fetch and run code from elsewhere.
func checkGoPackages(c *call) string {
	for _, w := range c.pos {
		if w.value != "." && !strings.HasPrefix(w.value, "./") {
			return fmt.Sprintf("%s: %s is not a package of the project (write ./…)", c.prog.full, w.value)
		}
	}
	return ""
}

var (
	npmFlags   = []string{"-s --silent", "--if-present", "-w --workspace=TEXT", "--workspaces", "--ignore-scripts"}
	npmRefused = []string{"--script-shell: runs the scripts with another program", "--prefix: runs another folder's scripts"}
	npmScript  = args{max: 1, what: "SCRIPT", noGlob: true}
)

// scriptName is what an npm script's name may be.
var scriptName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9:._-]*$`) })

// checkNpmScript allows a script by name, without arguments for it.
func checkNpmScript(c *call) string {
	if len(c.pos) == 1 && !scriptName().MatchString(c.pos[0].value) {
		return fmt.Sprintf("%s: %q is not a script's name", c.prog.full, c.pos[0].value)
	}
	return ""
}

var (
	cargoFlags = []string{
		"--release", "-r", "--all-targets", "--workspace", "--all", "-p --package=TEXT", "--exclude=TEXT",
		"-F --features=TEXT", "--all-features", "--no-default-features", "--lib", "--bins", "--bin=TEXT",
		"--tests", "--test=TEXT", "--examples", "--example=TEXT", "--benches", "--doc", "--no-run",
		"--no-fail-fast", "-q --quiet", "-v --verbose", "-j --jobs=NUM", "--locked", "--offline",
		"--frozen", "--target-dir=PATH", "--manifest-path=PATH", "--profile=TEXT", "--color=TEXT",
		"--message-format=TEXT", "--keep-going",
	}
	cargoRefused = []string{
		"--config -Z: sets configuration, which can name programs to run",
		"--target: builds for another target, whose runner may be any program",
	}
)

// noCargoPassThrough refuses arguments after --, which go to the test binary.
func noCargoPassThrough(c *call) string {
	if c.afterDashDash >= 0 {
		return fmt.Sprintf("%s: arguments after -- go to the test binary, unchecked", c.prog.full)
	}
	return ""
}

// clippyLint is one argument of cargo clippy after --: -D, -W, -A or -F and a
// lint, in one word or two.
var clippyLint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[DWAF]([a-z][a-z0-9_:-]*)?$|^[a-z][a-z0-9_:-]*$`) })

// checkClippyLints allows after -- only the levels of lints.
func checkClippyLints(c *call) string {
	if c.afterDashDash < 0 {
		if len(c.pos) > 0 {
			return "cargo clippy: takes no arguments before --"
		}
		return ""
	}
	for i, w := range c.pos[c.afterDashDash:] {
		level := strings.HasPrefix(w.value, "-")
		if !clippyLint().MatchString(w.value) || (!level && i == 0) {
			return fmt.Sprintf("cargo clippy: %q after -- is not a lint level (-D LINT)", w.value)
		}
	}
	return ""
}

var (
	pytestFlags = []string{
		"-q --quiet", "-v --verbose", "-x --exitfirst", "-s", "--capture=TEXT", "-k=TEXT", "-m=TEXT",
		"--maxfail=NUM", "--tb=TEXT", "-r=TEXT", "-l --showlocals", "--lf --last-failed",
		"--ff --failed-first", "--nf --new-first", "--sw --stepwise", "--co --collect-only",
		"--durations=NUM", "--no-header", "--disable-warnings", "-n --numprocesses=TEXT",
		"--strict-markers", "--color=TEXT", "--runxfail",
	}
	pytestRefused = []string{
		"-p: loads a plugin",
		"--basetemp: deletes the folder it names",
		"-c --rootdir --confcutdir --junitxml --junit-xml --resultlog --pdb --pdbcls --trace: reads or writes files elsewhere, or waits for a person",
	}
)
