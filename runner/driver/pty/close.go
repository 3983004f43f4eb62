// Ending the program: reaping it and recording how it ended, Close, the end
// on a cancelled context, and the signals to its process group and to what
// it started (SIGHUP and SIGTERM, SIGKILL after the grace period).

package pty

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/clai-sh/clai/runner/driver"
)

// Close ends the program and what it started if they still run (SIGHUP and
// SIGTERM to the process group, SIGKILL to the group and the session after
// Options.Grace), waits for the program, closes the terminal and waits for
// the driver's goroutines. A pending Read returns io.EOF. Idempotent.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		p.isClosed.Store(true)
		close(p.closing)
		p.endWrites()
		p.terminate()
		p.wakeReader()
		if err := p.master.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			p.closeErr = fmt.Errorf("close pty: %w", err)
		}
		p.wg.Wait()
	})
	return p.closeErr
}

// closed reports whether Close was called.
func (p *Process) closed() bool { return p.isClosed.Load() }

// watch ends the program when ctx is cancelled before Close.
func (p *Process) watch(ctx context.Context) {
	defer p.wg.Done()
	select {
	case <-ctx.Done():
		p.terminate()
	case <-p.closing:
	}
}

// Done is closed once the program has ended and Wait no longer blocks.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the program ended and returns how it ended.
func (p *Process) Wait() (driver.ExitStatus, error) {
	<-p.done
	return p.status, p.waitErr
}

// reap waits for the program to exit, records its status and closes done.
func (p *Process) reap() {
	defer p.wg.Done()
	var err error
	if waitExited(p.pid) {
		// The program is a zombie: its PID, and so its process group
		// id, cannot be recycled until it is reaped under sigMu.
		p.markExited()
		p.sigMu.Lock()
		err = p.cmd.Wait()
		p.reaped = true
		p.sigMu.Unlock()
	} else {
		err = p.cmd.Wait()
		p.sigMu.Lock()
		p.reaped = true
		p.sigMu.Unlock()
	}
	p.markExited()
	p.endWrites()
	p.status, p.waitErr = exitStatus(p.cmd.ProcessState, err)
	if p.linger.period > 0 {
		p.wg.Add(1)
		go p.lingerWatch()
	}
	close(p.done)
}

// markExited records that the program exited: reads start their linger
// period and writes fail.
func (p *Process) markExited() {
	p.linger.exited()
	p.exited.Store(true)
}

func exitStatus(ps *os.ProcessState, err error) (driver.ExitStatus, error) {
	if ps == nil {
		return driver.ExitStatus{Code: -1}, fmt.Errorf("wait: %w", err)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		err = fmt.Errorf("wait: %w", err)
	} else {
		err = nil
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return driver.ExitStatus{Code: 128 + int(ws.Signal()), Signal: ws.Signal().String()}, err
	}
	return driver.ExitStatus{Code: ps.ExitCode()}, err
}

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
