package pty

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// spawnMu serialises starting programs while clai itself ignores SIGHUP or
// SIGINT (see startWithDefaultSignals).
var spawnMu sync.Mutex

// startWithDefaultSignals runs start (which forks and execs the program) so
// that the program gets the default action for SIGHUP and SIGINT even when
// clai was started with them ignored (nohup, a background job of a script,
// some CI runners). An ignored signal stays ignored across exec, and Go leaves
// these two as it found them, so without this Ctrl-C typed into the program's
// terminal would do nothing. Expect's spawn resets signals the same way.
//
// The trick: while a channel is registered with signal.Notify, the runtime has
// its own handler installed, and a forked child resets handled signals to the
// default; signal.Stop then puts SIG_IGN back. A signal clai receives in
// between goes to the unread channel, so clai still ignores it.
func startWithDefaultSignals(start func() error) error {
	spawnMu.Lock()
	defer spawnMu.Unlock()
	sigs := ignoredSignals(syscall.SIGHUP, syscall.SIGINT)
	if len(sigs) == 0 {
		return start()
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	defer signal.Stop(ch)
	return start()
}

func ignoredSignalsPortable(sigs ...syscall.Signal) []os.Signal {
	var out []os.Signal
	for _, s := range sigs {
		if signal.Ignored(s) {
			out = append(out, s)
		}
	}
	return out
}
