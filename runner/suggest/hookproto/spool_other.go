//go:build !unix

package hookproto

// openFlags are none where opens have no such flags: the spool folder is the
// user's alone.
const openFlags = 0
