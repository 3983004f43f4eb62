package sessions

import (
	"fmt"
	"net"
	"sync"
)

// peerListener accepts only connections from processes of uid, and at most
// cap(slots) at once. A connection from anyone else is closed at once, before
// a byte of it is read.
type peerListener struct {
	net.Listener
	uid   int
	slots chan struct{}
	// refused, if set, is told of each connection refused.
	refused func(error)

	closeOnce sync.Once
	closed    chan struct{}
}

func newPeerListener(ln net.Listener, uid, conns int) *peerListener {
	return &peerListener{Listener: ln, uid: uid, slots: make(chan struct{}, conns), closed: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection of the listener's uid.
func (l *peerListener) Accept() (net.Conn, error) {
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
		if err := checkPeer(c, l.uid); err != nil {
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
func (l *peerListener) Close() error {
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

// checkPeer checks that the process at the other end of c runs as uid.
func checkPeer(c net.Conn, uid int) error {
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
