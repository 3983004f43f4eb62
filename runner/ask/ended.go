package ask

// ErrEnded is the error of a request to a session whose run has ended: its
// socket is gone, or nobody listens on it any more. It is how a session
// leaves, not something that went wrong; a client marks such an error with
// it (errors.Is). (A value of its own type: it costs no work at start-up,
// which every clai command would pay.)
var ErrEnded error = runEnded{}

// runEnded is the type of ErrEnded.
type runEnded struct{}

func (runEnded) Error() string { return "the run has ended" }
