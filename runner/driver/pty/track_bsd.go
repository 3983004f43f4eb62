// Tracking a program's processes on macOS and the BSDs. Provides the same as
// track_linux.go (see platform.go): AdoptOrphans, newTracker and its tracker,
// and startOnOwnThread; here the tracker does nothing, and the process group
// is all that is followed. Close and context cancellation send SIGHUP, SIGTERM and SIGCONT to the
// program's process group, then SIGKILL to it; closing the terminal hangs up
// whatever still has it open. Not done here, for want of the kernel's help
// (Linux has it, see track_linux.go): no cgroup; no walk of /proc for the
// session's other process groups (what a job-control shell moved out of the
// program's group) or for descendants that left the session (daemons); no
// adoption of orphans (AdoptOrphans reports errors.ErrUnsupported); no signal
// to the program when clai itself dies (PR_SET_PDEATHSIG). Such processes can
// outlive the run.

//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package pty

import (
	"errors"
	"syscall"
)

// AdoptOrphans makes this process the reaper of the orphans of the programs
// it starts, where the system has such a thing (Linux); here it has not, and
// it returns errors.ErrUnsupported.
func AdoptOrphans() error { return errors.ErrUnsupported }

// tracker follows the processes a program starts; here the process group
// signal, which Close sends, has to do.
type tracker struct{}

func newTracker(bool) *tracker                    { return &tracker{} }
func (*tracker) dropCgroup()                      {}
func (*tracker) procAttr(*syscall.SysProcAttr)    {}
func (*tracker) started(int)                      {}
func (*tracker) note(int)                         {}
func (*tracker) killAll(int, bool)                {}
func (*tracker) release(int)                      {}
func (*tracker) adopting() bool                   { return false }
func (*tracker) reapOrphans(int, <-chan struct{}) {}
func (*tracker) usesCgroup() bool                 { return false }

// startOnOwnThread runs start, and once it succeeded the reaper it is handed
// on a goroutine of its own: no thread here is the program's parent.
func startOnOwnThread(start func() error, reaper <-chan func()) error {
	if err := start(); err != nil {
		return err
	}
	go func() { (<-reaper)() }()
	return nil
}
