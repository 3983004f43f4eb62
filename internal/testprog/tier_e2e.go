//go:build e2e

package testprog

// E2E tells whether the tests were built with the tag e2e, the tier that
// runs real programs (make e2e): tmux, dialog, whiptail, zsh, fish,
// Chromium, Node.js and the coding agents from npm.
const E2E = true
