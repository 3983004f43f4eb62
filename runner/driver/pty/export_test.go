package pty

// Pid is the process id of the program, which is also the id of its process
// group and session.
func (p *Process) Pid() int { return p.pid }
