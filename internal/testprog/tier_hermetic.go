//go:build !e2e

package testprog

// E2E tells whether the tests were built with the tag e2e, the tier that
// runs real programs (make e2e). Without it, make test's tier, the tests
// run only Go, git, a POSIX shell and the fakes of testdata/fakes.
const E2E = false
