package main

// What clai --help says of the commands only the full clai has, which the
// lean clai (built with the tag clai_lean) lists too and hands over to it
// (docs/performance.md#two-binaries).
const (
	dashboardUsage     = "serve a web page of this user's running sessions, to watch them and answer their questions"
	daemonUsage        = "serve the shell-history suggestions: learn from the shell hooks' commands, answer clai suggest"
	hubUsage           = "the per-user hub that owns the phone channels for every run (docs/hub.md)"
	historyUsage       = "what the suggestion daemon keeps of the shells' commands"
	suggestRulesUsage  = "propose rules from the answers people repeated to a playbook's questions"
	suggestForgetUsage = "forget the answers learned from people, of one playbook or of all"
)
