package engine

// Config is what an Engine needs besides the playbook.
type Config struct {
	// Vars are the playbook variables after --var overrides.
	Vars map[string]string
	// Environ is the environment expressions see as env.
	Environ map[string]string
	// Interactive is set when a person sits at the terminal: MANUAL then hands
	// the program to them instead of waiting for the prompt timeout.
	Interactive bool
	// DryRun turns every send into a would-send.
	DryRun bool
	// Replay is set when the output comes from a recording: it goes on whatever
	// clai would have answered, so a dry run does not end at the first answer.
	Replay bool
	// Rows and Cols are the terminal size, for screen matching (default 24x80).
	Rows, Cols int
	// Attached is set when the program is not clai's (a tmux target pane): once the
	// steps are done and no rule is left to watch for, clai leaves it running.
	Attached bool
	// Redact masks the run's secrets in a text of the program's (nil: there
	// are none). The engine applies it before it cuts, quotes or keeps such a
	// text in an event, so no piece of a secret survives a cut or an escape.
	Redact func(string) string
	// Session is the id of the session, for its questions.
	Session string
	// Person is who sits at the terminal (a user name), for the questions
	// they answer there.
	Person string
	// Remote is set when a person may answer from elsewhere: a headless run
	// handed over to a person then waits timeouts.prompt for an answer
	// instead of ending at once.
	Remote bool
	// Project is the folder the program works in, an absolute path, which
	// readOnly(cmd) and projectCode(cmd) check paths against.
	Project string
}
