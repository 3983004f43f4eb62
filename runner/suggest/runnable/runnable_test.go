package runnable_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/clai-sh/clai/runner/suggest/runnable"
)

// check is a command and whether shell can run it.
type check struct {
	command string
	ok      bool
}

// posixCases hold for bash, zsh and an unknown shell alike.
var posixCases = []check{
	{"git status", true},
	{"git commit -m <msg>", true},
	{"cp <path> <path>", true},
	{"go test -count=<num> <path>", true},
	{"FOO=<num> make", true},
	{"cat < <path> > <path>", true},
	{"git checkout <sha> && make test | tee <path>", true},
	{"curl -fsSL <url> | sh", true},
	{"echo '<msg>'", true},     // a slot in single quotes reads as a word too
	{`echo "<msg>"`, true},     // and in double quotes
	{"<path> --version", true}, // a slot as the command
	{"sleep <num> & echo done", true},
	{"for f in <path>; do gofmt -l \"$f\"; done", true},
	{"[[ -d <path> ]] && rm -rf <path>", true},
	{"(cd <path> && make)", true},
	{"echo $((<num> + 1))", true},
	{"make 2>&1 | less", true},
	{"# only a comment", false},
	{"", false},
	{"   ", false},
	{"sleep <num> &; echo done", false}, // the stored template of the issue
	{"echo 'unfinished", false},
	{"if true; then echo", false},
	{"a && && b", false},
	{"a |", false},
	{"cat <<EOF", false}, // a here-document without its body
	{"ls <pat>", false},  // not a slot: a redirection with no target
	{"echo )", false},
}

func TestCheckBash(t *testing.T) {
	t.Parallel()
	cases := append([]check{
		{"echo ${x^^}", true},
		{"cmd |& less", true},
		{"echo ${(U)x}", false},
		{"ls **/*.go(.)", false},
		{"for f in *.go\n  echo $f\nend", false},
		{"echo (date)", false},
	}, posixCases...)
	for _, shell := range []string{"bash", "", "sh", "ksh"} {
		for _, c := range cases {
			expect(t, shell, c)
		}
	}
}

func TestCheckZsh(t *testing.T) {
	t.Parallel()
	cases := append([]check{
		{"echo ${(U)x}", true},
		{"ls **/*.go(.)", true},
		{"a &| b", true},
		{"diff =(ls <path>) =(ls <path>)", true},
		{"{ echo a }", true},
		{"echo ${x^^}", false}, // bash's case operator
		{"for f in *.go\n  echo $f\nend", false},
	}, posixCases...)
	for _, c := range cases {
		expect(t, "zsh", c)
	}
}

// fishCase is a command, whether fish can run it, and whether fish's own
// parser takes it all the same: a line fish parses but would run as
// something else than meant (backticks are plain text in fish, "[[" a
// missing command, "<(…)" a file named by a substitution).
type fishCase struct {
	check
	fishParses bool
}

var fishCases = []fishCase{
	{check{"git commit -m <msg>", true}, true},
	{check{"echo '<msg>'", true}, true},
	{check{"sleep <num> & echo done", true}, true},
	{check{"sleep <num> &; echo done", true}, true}, // fish reads "&;" as "&" then an empty statement
	{check{"for f in <path>; echo $f; end", true}, true},
	{check{"for f in *.go\n  gofmt -l $f\nend", true}, true},
	{check{"begin; echo a; echo b; end | less", true}, true},
	{check{"if test -d <path>\n  make\nelse if true\n  echo\nelse\n  echo no\nend", true}, true},
	{check{"switch $x; case 'a*'; echo a; case '*'; echo b; end", true}, true},
	{check{"while read -l line; echo $line; end < <path>", true}, true},
	{check{"function f -a x; echo $x; end", true}, true},
	{check{"make test; and git push; or echo failed", true}, true},
	{check{"not test -f <path>", true}, true},
	{check{"! test -f <path>", true}, true},
	{check{"make && git push || echo failed", true}, true},
	{check{"make &&\n  git push", true}, true},
	{check{"echo (date +%s)", true}, true},
	{check{"echo $(date) \"at $(pwd)\"", true}, true},
	{check{"set x (echo a | string upper)", true}, true},
	{check{"echo $x[1] $x[2..-1] $$name {$x}suffix {a,b}", true}, true},
	{check{"FOO=<num> make", true}, true},
	{check{"make 2>&1 | tee <path>", true}, true},
	{check{"make &> <path>; make 2>| less; echo >? <path>", true}, true},
	{check{"echo 'it\\'s' \"a \\\"b\\\"\" a\\ b", true}, true},
	{check{"echo a # a comment", true}, true},
	{check{"set -gx EDITOR vim", true}, true},
	{check{"echo ()", true}, true},
	{check{"[ -f <path> ]; and echo yes", true}, true},
	{check{"", false}, true},
	{check{"if true; then echo a; fi", false}, false},
	{check{"for f in *.go; do gofmt -l $f; done", false}, false},
	{check{"case $x in a) echo;; esac", false}, false},
	{check{"echo ${HOME}", false}, false},
	{check{"echo ${#x}", false}, false},
	{check{"echo $?", false}, false},
	{check{"echo $$", false}, false},
	{check{"echo $#", false}, false},
	{check{"echo $@", false}, false},
	{check{"echo $!", false}, false},
	{check{"grep \"foo$\" <path>", false}, false},
	{check{"echo $((1 + 2))", false}, false},
	{check{"(( x++ ))", false}, false},
	{check{"(cd <path> && make)", false}, false},
	{check{"$(echo ls) -l", false}, false},
	{check{"f() { echo a; }", false}, false},
	{check{"function f() { echo a; }", false}, false},
	{check{"cat <<EOF", false}, false},
	{check{"cat <<< <msg>", false}, false},
	{check{"FOO=<num>", false}, false},
	{check{"FOO=a; echo $FOO", false}, false},
	{check{"echo 'unfinished", false}, false},
	{check{"echo (unfinished", false}, false},
	{check{"echo )", false}, false},
	{check{"echo }", false}, false},
	{check{"echo {", false}, false},
	{check{"echo a[", false}, false},
	{check{"echo a\\", false}, false},
	{check{"end", false}, false},
	{check{"echo a; end", false}, false},
	{check{"else", false}, false},
	{check{"begin; echo a", false}, false},
	{check{"make &&", false}, false},
	{check{"make && && b", false}, false},
	{check{"make &&; echo", false}, false},
	{check{"make | ; b", false}, false},
	{check{"&& echo", false}, false},
	{check{"echo a >", false}, false},
	{check{"for f (a b); echo; end", false}, false},
	{check{"echo `date`", false}, true},
	{check{"[[ -d <path> ]] && make", false}, true},
	{check{"diff <(ls a) <(ls b)", false}, true},
	{check{"{ echo a; echo b; }", false}, true},
}

func TestCheckFish(t *testing.T) {
	t.Parallel()
	for _, c := range fishCases {
		expect(t, "fish", c.check)
	}
}

func TestCheckRefusesALongCommandUnread(t *testing.T) {
	t.Parallel()
	long := "echo " + strings.Repeat("a", runnable.MaxLen)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if err := runnable.Check(shell, long); !errors.Is(err, runnable.ErrTooLong) {
			t.Errorf("%s: Check of %d bytes = %v, want ErrTooLong", shell, len(long), err)
		}
		if err := runnable.Check(shell, long[:runnable.MaxLen]); err != nil {
			t.Errorf("%s: Check of %d bytes = %v", shell, runnable.MaxLen, err)
		}
	}
}

func TestCheckFishBoundsNesting(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("echo (", 1000) + strings.Repeat(")", 1000)
	if err := runnable.Check("fish", deep); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("Check of substitutions 1000 deep = %v, want an error that says they nest too deep", err)
	}
	if err := runnable.Check("fish", strings.Repeat("echo (", 10)+strings.Repeat(")", 10)); err != nil {
		t.Errorf("Check of substitutions 10 deep = %v", err)
	}
}

// expect checks c in shell.
func expect(t *testing.T, shell string, c check) {
	t.Helper()
	err := runnable.Check(shell, c.command)
	if (err == nil) != c.ok {
		t.Errorf("Check(%q, %q) = %v, want ok=%v", shell, c.command, err, c.ok)
	}
}

// TestCheckReadsTheLongestCommands checks commands of MaxLen bytes shaped
// to make a reader go back and forth (open quotes, nested substitutions and
// braces, many blocks): each gets an answer, for each shell.
func TestCheckReadsTheLongestCommands(t *testing.T) {
	t.Parallel()
	fill := func(unit string) string { return strings.Repeat(unit, runnable.MaxLen/len(unit)) }
	shapes := []string{
		fill(`echo "a'b `),
		fill("echo (a "),
		fill("{a,"),
		fill("begin; "),
		fill("a && "),
		fill(`"$(`),
		fill("$x[1 "),
		fill("<path> "),
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		for _, s := range shapes {
			_ = runnable.Check(shell, s)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, c := range fishCases {
		f.Add(c.command)
	}
	for _, c := range posixCases {
		f.Add(c.command)
	}
	f.Fuzz(func(t *testing.T, command string) {
		for _, shell := range []string{"bash", "zsh", "fish"} {
			_ = runnable.Check(shell, command)
		}
	})
}
