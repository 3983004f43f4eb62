package peer

import "golang.org/x/sys/unix"

// peerUID is the uid of the process at the other end of the Unix socket fd,
// as the kernel saw it when the connection was made (SO_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
