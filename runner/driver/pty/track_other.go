//go:build !linux

package pty

import (
	"errors"
	"syscall"
)

// AdoptOrphans makes this process the reaper of the orphans of the programs
// it starts, where the system has such a thing (Linux); here it has not.
func AdoptOrphans() error { return errors.ErrUnsupported }

// tracker follows the processes a program starts; here the process group
// signal, which Close sends, has to do.
type tracker struct{}

func newTracker(bool) *tracker                                     { return &tracker{} }
func (*tracker) dropCgroup()                                       {}
func (*tracker) procAttr(*syscall.SysProcAttr)                     {}
func (*tracker) started(int)                                       {}
func (*tracker) note(int)                                          {}
func (*tracker) killAll(int, bool)                                 {}
func (*tracker) release(int)                                       {}
func (*tracker) adopting() bool                                    { return false }
func (*tracker) reapOrphans(int, <-chan struct{})                  {}
func (*tracker) usesCgroup() bool                                  { return false }
func startOnOwnThread(start func() error, _ <-chan struct{}) error { return start() }
