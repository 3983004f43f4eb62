//go:build e2e

package runner_test

import (
	"testing"

	"github.com/clai-sh/clai/internal/testprog"
	"github.com/clai-sh/clai/runner"
)

// bc turns on bracketed paste as it starts, after the first step's would-send.
func TestRunDryRunBC(t *testing.T) {
	t.Parallel()
	bc := testprog.RequireProgram(t, "bc", "bc")
	pb := playbook(t, `
version: 1
name: bc
spawn: {command: [%q, -q]}
timeouts: {total: 20s}
steps:
  - send: "1+1\n"
  - expect: "2"
  - send: "quit\n"
  - expect: eof
`, bc)
	wantDryRunOutcome(t, run(t, pb, runner.WithDryRun(true)), `"1+1\n"`)
}

// Node's readline writes its question, then a cursor move in a write of its own.
func TestRunDryRunNodeReadline(t *testing.T) {
	t.Parallel()
	node := testprog.RequireProgram(t, "node", "nodejs")
	pb := playbook(t, `
version: 1
name: node
spawn:
  command: [%q, -e, "require('readline').createInterface({input:process.stdin,output:process.stdout}).question('package name: (demo) ', a=>{console.log(a);process.exit(0)})"]
timeouts: {total: 20s}
rules:
  - {name: pkg, match: "package name:", line: "my-pkg", limit: 1}
`, node)
	wantDryRunOutcome(t, run(t, pb, runner.WithDryRun(true)), `"my-pkg\r"`)
}
