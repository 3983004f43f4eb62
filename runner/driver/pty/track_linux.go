// Tracking a program's processes on Linux. Provides (see platform.go)
// AdoptOrphans, newTracker and its tracker, and startOnOwnThread. What is
// Linux's own: the program's cgroup, its session and their descendants found
// through /proc, the orphans adopted as a subreaper, and SIGKILL when clai
// dies (PR_SET_PDEATHSIG), for which the program is started from a thread of
// its own; see tracker. See track_bsd.go for what is done on macOS and the
// BSDs.

package pty

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// AdoptOrphans makes this process a child subreaper: a process that a program
// started and then abandoned (a daemon that left the program's session with
// setsid, whose parent exited) is re-parented to this process instead of to
// init, so that Close finds it and ends it too.
//
// Call it once, early, and only in a process that runs one program at a time
// and starts nothing else that leaves its session: every adopted process
// outside this process's own session, started after the program, is taken for
// the program's. The clai command does. Where the kernel has no subreapers it
// returns the error, and Close ends what it can find without them.
func AdoptOrphans() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a subreaper: %w", err)
	}
	return nil
}

// adopting reports whether this process adopts orphans (AdoptOrphans).
func (*tracker) adopting() bool { return adopting() }

// reapOrphans reaps, while the program runs (until closing), the processes
// adopted from it that exited: init would have, had this process not adopted
// them, and each would hold its PID until the run ends. One that exits at
// the program's very moment (one SIGCHLD for both) waits for the next exit
// (and, for a program without a cgroup, for Close).
func (t *tracker) reapOrphans(program int, closing <-chan struct{}) {
	exited := make(chan os.Signal, 1)
	signal.Notify(exited, syscall.SIGCHLD)
	defer signal.Stop(exited)
	self, selfSid := os.Getpid(), ownSession()
	programExited := false
	for {
		select {
		case <-closing:
			return
		case <-exited:
		}
		if !programExited {
			if p, ok := readProc(program); !ok || p.state == 'Z' {
				// The program's own exit, in most runs the only one:
				// Process.reap reaps it, and every process of /proc is
				// not read for it. The next exits are adopted ones.
				programExited = true
				continue
			}
		}
		t.reapScans.Add(1)
		for pid, p := range readProcs() {
			if p.state == 'Z' && t.adopted(pid, p, program, self, selfSid) {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			}
		}
	}
}

// adopted reports whether process pid (p) is one this process adopted from
// the program: its child, not the program, outside this process's session,
// started after the program.
func (t *tracker) adopted(pid int, p proc, program, self, selfSid int) bool {
	return p.ppid == self && pid != program && p.sid != selfSid && p.start >= t.start
}

// ownSession is the session of this process.
func ownSession() int {
	if sid, err := unix.Getsid(0); err == nil {
		return sid
	}
	return unix.Getpgrp()
}

// adopting reports whether this process is a child subreaper (AdoptOrphans).
func adopting() bool {
	var on int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0)
	return err == nil && on != 0
}

// tracker follows every process a program starts, so that they all end with
// it, whatever they did to leave it:
//
//   - the program runs in a cgroup (v2) of its own, created beside clai's own
//     where that is writable, which nothing it starts can leave without
//     privileges: at the end every process in it is killed (cgroup.kill) and
//     the cgroup removed;
//   - the program's session, and every descendant of a process in it still
//     linked to it by its parent, is killed as well;
//   - where this process adopts orphans (AdoptOrphans), those that came from
//     the program are killed too;
//   - the program gets SIGKILL when clai itself dies, even by SIGKILL (the
//     parent-death signal), so it cannot outlive clai by ignoring SIGHUP.
//
// Without a usable cgroup (no cgroup2, no right to write it, a container) the
// rest still works; nothing here fails a run.
type tracker struct {
	// cgroup is the directory of the program's cgroup, "" when there is none;
	// cgroupFD is open on it until the program started in it.
	cgroup   string
	cgroupFD int
	// start is the program's start time (clock ticks since boot): a process
	// adopted by this one that started before it is not the program's.
	start uint64
	// killed holds the processes killAll signalled, with their start times,
	// for release to wait for and reap.
	killed map[int]uint64
	// noted holds the program's processes found before it was asked to end.
	noted map[int]proc
	// scans counts the reads of every process of /proc, which a program in
	// a cgroup of its own is ended without; reapScans those made to reap
	// adopted processes, none for the program's own exit.
	scans     int
	reapScans atomic.Int32
}

// newTracker prepares the tracking of a program about to start: its cgroup, if
// one can be made.
func newTracker(useCgroup bool) *tracker {
	t := &tracker{cgroupFD: -1, killed: map[int]uint64{}, noted: map[int]proc{}}
	if useCgroup {
		t.makeCgroup()
	}
	return t
}

// makeCgroup creates a cgroup for the program below clai's own, and opens it
// for the program to be started in (clone3's CLONE_INTO_CGROUP). It leaves t
// without one on any failure.
func (t *tracker) makeCgroup() {
	parent, err := ownCgroup()
	if err != nil {
		return
	}
	removeStaleCgroups(parent)
	dir := filepath.Join(parent, "clai-"+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(rand.Uint64(), 36))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return
	}
	t.cgroup, t.cgroupFD = dir, fd
}

// removeStaleCgroups removes the empty cgroups that a clai which was killed
// before it could remove them left in parent.
func removeStaleCgroups(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "clai-*-*"))
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.Split(filepath.Base(dir), "-")[1])
		if err == nil && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			_ = os.Remove(dir) // fails, as it should, while a process is in it
		}
	}
}

// ownCgroup returns the directory of this process's cgroup in the cgroup v2
// hierarchy, from /proc/self/cgroup ("0::/path") and the mount of cgroup2 in
// /proc/self/mountinfo.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var path string
	found := false
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			path, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE ...
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+1 >= len(fields) || fields[sep+1] != "cgroup2" {
			continue
		}
		root, mount := fields[3], fields[4]
		rel, ok := strings.CutPrefix(path, root)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/") && root != "/") {
			continue
		}
		return filepath.Join(mount, rel), nil
	}
	return "", errors.New("cgroup2 is not mounted")
}

// usesCgroup reports whether the program is to start in a cgroup of its own.
func (t *tracker) usesCgroup() bool { return t.cgroupFD >= 0 }

// dropCgroup gives up the cgroup (the program could not be started in it).
func (t *tracker) dropCgroup() {
	t.closeCgroupFD()
	if t.cgroup != "" {
		_ = os.Remove(t.cgroup)
		t.cgroup = ""
	}
}

func (t *tracker) closeCgroupFD() {
	if t.cgroupFD >= 0 {
		_ = unix.Close(t.cgroupFD)
		t.cgroupFD = -1
	}
}

// procAttr sets what the program is started with: its cgroup, and SIGKILL
// when the thread that starts it ends (startOnOwnThread keeps that thread for
// as long as the program runs).
func (t *tracker) procAttr(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
	attr.UseCgroupFD, attr.CgroupFD = t.cgroupFD >= 0, t.cgroupFD
}

// started records that the program runs as pid.
func (t *tracker) started(pid int) {
	t.closeCgroupFD()
	if info, ok := readProc(pid); ok {
		t.start = info.start
	}
}

// startOnOwnThread runs start, which forks the program, on an OS thread that
// stays alive and locked until the program was reaped: once start succeeded,
// the thread runs the reaper it is handed, which waits in the kernel for the
// program to end. The kernel sends the parent-death signal when the thread
// that forked ends, not the process; Go may end a thread that a goroutine
// locked and left locked, so the program's thread is one nothing else uses.
// The thread that waits for the program is the one that started it: a run
// holds one thread for both, not two.
func startOnOwnThread(start func() error, reaper <-chan func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := start()
		errc <- err
		if err == nil {
			(<-reaper)()
		}
	}()
	return <-errc
}

// note records the processes of the program, before it is asked to end: a
// process that left its session is found through its parent, and once the
// polite signals ended the parent, only this note leads to it.
//
// A program in a cgroup of its own needs no note: its cgroup holds every
// process it started, whatever became of their parents and sessions.
func (t *tracker) note(program int) {
	if t.cgroup != "" {
		return
	}
	t.scans++
	for pid, p := range t.find(readProcs(), program, true) {
		t.noted[pid] = p
	}
}

// killAll sends SIGKILL to every process of the program it can find: those
// in its cgroup, which holds them all when the program has one (a process
// forked inside stays in it, whatever becomes of its parent or session;
// only a privileged process can move one out). Without one, it reads every
// process of /proc, again until a pass finds none it has not signalled (a
// process may fork meanwhile): those in the program's session (when session
// is set: the program's PID, which names the session, is not a stranger's),
// those noted before, their descendants, and, where this process adopts
// orphans, those adopted from the program.
func (t *tracker) killAll(program int, session bool) {
	if t.killCgroup() {
		return
	}
	for range 100 {
		found := false
		t.scans++
		for pid, p := range t.find(readProcs(), program, session) {
			if _, done := t.killed[pid]; done {
				continue
			}
			t.killed[pid] = p.start
			if p.state != 'Z' {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// find picks the program's processes out of procs: see killAll.
func (t *tracker) find(procs map[int]proc, program int, session bool) map[int]proc {
	self, selfSid := os.Getpid(), ownSession()
	adopt := adopting()
	ours := map[int]proc{}
	for pid, p := range procs {
		noted, wasNoted := t.noted[pid]
		switch {
		case session && p.sid == program,
			wasNoted && noted.start == p.start,
			adopt && t.adopted(pid, p, program, self, selfSid):
			ours[pid] = p
		}
	}
	// Descendants that left the session, found through their parents.
	for grew := true; grew; {
		grew = false
		for pid, p := range procs {
			_, parent := ours[p.ppid]
			_, killed := t.killed[p.ppid]
			if _, in := ours[pid]; !in && (parent || killed) {
				ours[pid], grew = p, true
			}
		}
	}
	return ours
}

// killCgroup kills every process in the program's cgroup: at once through
// cgroup.kill (Linux 5.14), else one by one until none is left. It reports
// whether it did: false when there is no cgroup, or processes were left in
// it.
func (t *tracker) killCgroup() bool {
	if t.cgroup == "" {
		return false
	}
	for pid := range t.cgroupProcs() {
		if info, ok := readProc(pid); ok {
			t.killed[pid] = info.start
		}
	}
	if os.WriteFile(filepath.Join(t.cgroup, "cgroup.kill"), []byte("1"), 0) == nil {
		return true
	}
	for range 100 {
		procs := t.cgroupProcs()
		if procs == nil {
			return false // unreadable: the scans of /proc look for them
		}
		if len(procs) == 0 {
			return true
		}
		for pid := range procs {
			if _, known := t.killed[pid]; !known {
				if info, ok := readProc(pid); ok {
					t.killed[pid] = info.start
				}
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return false
}

// cgroupProcs lists the processes in the program's cgroup; nil when they
// cannot be read.
func (t *tracker) cgroupProcs() map[int]bool {
	b, err := os.ReadFile(filepath.Join(t.cgroup, "cgroup.procs"))
	if err != nil {
		return nil
	}
	out := map[int]bool{}
	for f := range bytes.FieldsSeq(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil {
			out[pid] = true
		}
	}
	return out
}

// releaseWait bounds how long release waits for killed processes to end (one
// in an uninterruptible sleep, on a hung network file system, may take long).
const releaseWait = 2 * time.Second

// release waits for the processes killAll killed to end, reaps those that were
// re-parented to this process (a subreaper), so none is left a zombie, and
// removes the program's cgroup. The program itself is reaped by Process.reap.
func (t *tracker) release(program int) {
	deadline := time.Now().Add(releaseWait)
	for pid := range t.killed {
		if pid != program {
			waitEnded(pid, deadline)
		}
	}
	self := os.Getpid()
	for pid, start := range t.killed {
		if p, ok := readProc(pid); ok && pid != program && p.ppid == self && p.state == 'Z' && p.start == start {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		}
	}
	clear(t.killed)
	clear(t.noted)
	if t.cgroup != "" {
		// Empty once its processes have exited; they may still be leaving it.
		for time.Now().Before(deadline) {
			if err := os.Remove(t.cgroup); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			waitCgroupEmpty(t.cgroup, deadline)
		}
		t.cgroup = ""
	}
}

// waitEnded waits until process pid has exited (it may be a zombie), or the
// deadline, through a pidfd.
func waitEnded(pid int, deadline time.Time) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // gone already, or no pidfds (Linux 5.3)
	}
	defer unix.Close(fd)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		n, err := unix.Ppoll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, &ts, nil)
		if n > 0 || (err != nil && !errors.Is(err, unix.EINTR)) {
			return
		}
	}
}

// waitCgroupEmpty waits until the cgroup has no process left, or the
// deadline: the kernel signals a change of cgroup.events with POLLPRI.
func waitCgroupEmpty(dir string, deadline time.Time) {
	fd, err := unix.Open(filepath.Join(dir, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	buf := make([]byte, 256)
	for {
		n, err := unix.Pread(fd, buf, 0)
		if err != nil || bytes.Contains(buf[:n], []byte("populated 0")) {
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		ts := unix.NsecToTimespec(left.Nanoseconds())
		if _, err := unix.Ppoll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}, &ts, nil); err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
