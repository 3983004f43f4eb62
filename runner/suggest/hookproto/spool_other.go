//go:build !unix

package hookproto

// noFollow is nothing where opens have no such flag: the spool folder is the
// user's alone.
const noFollow = 0
