package pty

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// proc is what /proc/PID/stat says of a process.
type proc struct {
	ppid, sid int
	state     byte
	// start is when it started, in clock ticks since boot.
	start uint64
}

// readProcs reads every process of /proc. It runs on every SIGCHLD while a
// program runs and when it ends, over every process of the machine: each stat
// line is read into one buffer and parsed in place, so that a scan allocates
// little beyond the map and the folder's names (a few hundred bytes a process
// were a run's largest allocation, held until a collection that a short run
// never starts: docs/performance.md#memory).
func readProcs() map[int]proc {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, err := dir.Readdirnames(-1)
	_ = dir.Close()
	if err != nil {
		return nil
	}
	out := make(map[int]proc, len(names))
	var r statReader
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := r.read(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// readProc reads one process's /proc/PID/stat.
func readProc(pid int) (proc, bool) {
	var r statReader
	return r.read(pid)
}

// statReader reads /proc/PID/stat lines into a buffer of its own, reused.
type statReader struct {
	// path is "/proc/PID/stat", built in place.
	path [40]byte
	// buf holds a stat line: its fields up to the start time, the 22nd,
	// come within the first 512 bytes (a comm of at most 64, twenty numbers).
	buf [1024]byte
}

// read reads /proc/PID/stat: "pid (comm) state ppid pgrp session ...",
// where comm may itself contain spaces and parentheses, and the start time is
// the 22nd field.
func (r *statReader) read(pid int) (proc, bool) {
	path := append(strconv.AppendInt(append(r.path[:0], "/proc/"...), int64(pid), 10), "/stat"...)
	// The path lives only through the call, which copies it.
	fd, err := unix.Open(unsafe.String(&path[0], len(path)), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return proc{}, false
	}
	n, err := readFull(fd, r.buf[:])
	_ = unix.Close(fd)
	if err != nil {
		return proc{}, false
	}
	return parseStat(r.buf[:n])
}

// readFull reads fd into buf until it ends or buf is full.
func readFull(fd int, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// parseStat parses a stat line (see statReader.read) without allocating.
func parseStat(b []byte) (proc, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	var p proc
	field := 0
	for rest := b[i+1:]; field < 20; field++ {
		rest = bytes.TrimLeft(rest, " \n")
		end := bytes.IndexAny(rest, " \n")
		if end < 0 {
			end = len(rest)
		}
		f := rest[:end]
		if len(f) == 0 {
			return proc{}, false
		}
		rest = rest[end:]
		var ok bool
		switch field {
		case 0:
			p.state, ok = f[0], len(f) == 1
		case 1:
			p.ppid, ok = atoi(f)
		case 3:
			p.sid, ok = atoi(f)
		case 19:
			p.start, ok = parseUint(f)
		default:
			ok = true
		}
		if !ok {
			return proc{}, false
		}
	}
	return p, true
}

// atoi parses a decimal int of /proc, which may be negative (a session of
// -1 never is, but a field may).
func atoi(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := parseUint(b)
	if !ok || u > 1<<62 {
		return 0, false
	}
	if neg {
		return -int(u), true
	}
	return int(u), true
}

// parseUint parses a decimal number of at most 19 digits.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	return u, true
}
