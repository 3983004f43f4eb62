// Package peer serves a Unix socket to the processes of one user only, and
// talks to one only when this user serves it: the kernel tells the uid of the
// process at the other end of each connection, and a connection from anyone
// else is closed before a byte of it is read.
package peer

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"
)

// Listener accepts only connections from processes of one uid, and at most
// a fixed number at once.
type Listener struct {
	net.Listener
	uid   int
	slots chan struct{}
	// refused, if set, is told of each connection refused.
	refused func(error)

	closeOnce sync.Once
	closed    chan struct{}
}

// Listen wraps ln so that it accepts connections of uid only, at most conns
// at once. refused, if not nil, is told of each connection refused.
func Listen(ln net.Listener, uid, conns int, refused func(error)) *Listener {
	return &Listener{Listener: ln, uid: uid, slots: make(chan struct{}, conns), refused: refused, closed: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection of the listener's uid.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
		c, err := l.Listener.Accept()
		if err != nil {
			<-l.slots
			return nil, err
		}
		if err := Check(c, l.uid); err != nil {
			_ = c.Close()
			<-l.slots
			if l.refused != nil {
				l.refused(err)
			}
			continue
		}
		return &slotConn{Conn: c, release: func() { <-l.slots }}, nil
	}
}

// Close stops the listener; an Accept waiting for a slot returns.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// slotConn gives its slot back once, when closed.
type slotConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// Check checks that the process at the other end of c runs as uid.
func Check(c net.Conn, uid int) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("a %T is no Unix socket connection", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	peer, perr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { peer, perr = peerUID(int(fd)) }); err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if perr != nil {
		return fmt.Errorf("peer credentials: %w", perr)
	}
	if peer != uid {
		return fmt.Errorf("a process of uid %d is refused: only uid %d may connect", peer, uid)
	}
	return nil
}

// Dial connects to the Unix socket at path and checks that the process
// serving it runs as this user, so that nothing is told to a socket another
// user put in its place. An error of the connection itself is returned as
// it is; one of the check names the socket.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := Check(c, os.Getuid()); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("socket %s: %w", path, err)
	}
	return c, nil
}
