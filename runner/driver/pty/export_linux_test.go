package pty

// WithoutCgroup returns opts for a program started without a cgroup of its
// own, as where none can be made.
func WithoutCgroup(opts Options) Options {
	opts.noCgroup = true
	return opts
}

// CgroupAvailable reports whether a program can get a cgroup of its own here.
func CgroupAvailable() bool {
	t := newTracker(true)
	defer t.dropCgroup()
	return t.usesCgroup()
}

// ProcScans is how many times the tracking of p's program read every
// process of /proc.
func ProcScans(p *Process) int { return p.track.scans }

// ReapScans is how many times the tracking of p's program read every
// process of /proc to reap the processes adopted from it.
func ReapScans(p *Process) int { return int(p.track.reapScans.Load()) }
