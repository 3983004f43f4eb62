package pty

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// waitExited blocks until process pid exited without reaping it, so its PID
// stays reserved. It reports false if it could not wait.
func waitExited(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		return err == nil
	}
}

// killSession sends SIGKILL to every live process of session sid, again until
// a pass finds none it has not signalled (a member may fork meanwhile).
func killSession(sid int) {
	killed := make(map[int]bool)
	for range 100 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || killed[pid] {
				continue
			}
			if s, state, ok := procSession(pid); ok && s == sid && state != 'Z' {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				killed[pid] = true
				found = true
			}
		}
		if !found {
			return
		}
	}
}

// procSession reads the session id and state of process pid from
// /proc/PID/stat: "pid (comm) state ppid pgrp session ...", where comm may
// itself contain spaces and parentheses.
func procSession(pid int) (sid int, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return 0, 0, false
	}
	sid, err = strconv.Atoi(string(f[3]))
	if err != nil {
		return 0, 0, false
	}
	return sid, f[0][0], true
}

// termEcho reports whether the terminal behind fd echoes input. On Linux the
// master of a pseudo-terminal reports the modes of its slave.
func termEcho(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ECHO != 0, nil
}

// ignoredSignals returns those of sigs whose disposition in this process is
// SIG_IGN, from /proc/self/status (signal.Ignored does not see the SIG_IGN
// that signal.Stop restores).
func ignoredSignals(sigs ...syscall.Signal) []os.Signal {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ignoredSignalsPortable(sigs...)
	}
	for line := range bytes.Lines(b) {
		hex, ok := bytes.CutPrefix(line, []byte("SigIgn:"))
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(string(bytes.TrimSpace(hex)), 16, 64)
		if err != nil {
			break
		}
		var out []os.Signal
		for _, s := range sigs {
			if mask&(1<<(uint(s)-1)) != 0 {
				out = append(out, s)
			}
		}
		return out
	}
	return ignoredSignalsPortable(sigs...)
}
