package pty

import (
	"errors"
	"syscall"
	"time"
)

// terminate ends the program and everything in its session, once; concurrent
// callers wait until it is done.
func (p *Process) terminate() { p.termOnce.Do(p.doTerminate) }

func (p *Process) doTerminate() {
	select {
	case <-p.done:
		// The program exited by itself; whatever it left behind in its
		// group or session holds our terminal and goes at once.
	default:
		if p.grace > 0 {
			p.noteProcesses()
			p.signalGroup(syscall.SIGHUP)
			p.signalGroup(syscall.SIGTERM)
			p.signalGroup(syscall.SIGCONT) // a stopped process cannot act on SIGTERM
			t := time.NewTimer(p.grace)
			select {
			case <-p.done:
			case <-t.C:
			}
			t.Stop()
		}
	}
	p.killAll()
	<-p.done
	p.track.release(p.pid)
}

// signalGroup sends sig to the program's process group, whose id is the
// program's PID. Until the program is reaped its PID cannot be recycled; after
// that the group id stays reserved as long as one member lives. If a process
// with that PID exists once the program is reaped, it is a stranger that got
// the recycled number and none of ours can be left: nothing is sent.
func (p *Process) signalGroup(sig syscall.Signal) {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.recycled() {
		return
	}
	_ = syscall.Kill(-p.pid, sig)
}

// killAll sends SIGKILL to the program's process group and to every other
// process the program started that can be found (see tracker): on Linux those
// of its session (a job-control shell moves them to groups of their own), of
// its cgroup, their descendants and the orphans adopted from it.
func (p *Process) killAll() {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	recycled := p.recycled()
	if !recycled {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	p.track.killAll(p.pid, !recycled)
}

// noteProcesses records the program's processes while they are linked to it,
// before the polite signals end some of them (see tracker.note).
func (p *Process) noteProcesses() {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if !p.recycled() {
		p.track.note(p.pid)
	}
}

// recycled reports, under sigMu, whether the program's PID now belongs to
// another process.
func (p *Process) recycled() bool {
	return p.reaped && !errors.Is(syscall.Kill(p.pid, 0), syscall.ESRCH)
}
