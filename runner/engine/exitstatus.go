package engine

import "github.com/clai-sh/clai/runner/driver/exitstatus"

// ExitStatus is how the program ended, as the driver reports it and the engine
// observes it.
type ExitStatus = exitstatus.Status
