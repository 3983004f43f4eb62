package hub_test

import "net"

// netDialer dials a Unix socket with no check of who serves it: a client
// that is not clai's.
type netDialer struct{}

func (netDialer) dial(socket string) (net.Conn, error) { return net.Dial("unix", socket) }
