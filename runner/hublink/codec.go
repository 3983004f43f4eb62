package hublink

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// WriteTimeout bounds the writing of one frame: a peer that reads nothing
// is let go rather than waited for.
const WriteTimeout = 10 * time.Second

// Conn is one connection of the wire: frames read one at a time, written
// from any goroutine.
type Conn struct {
	conn net.Conn
	sc   *bufio.Scanner
	mu   sync.Mutex
}

// NewConn reads and writes frames on c.
func NewConn(c net.Conn) *Conn {
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), MaxFrame)
	return &Conn{conn: c, sc: sc}
}

// Read is the next frame; io.EOF once the peer closed. A frame larger than
// MaxFrame, or one that is not JSON, is an error: the connection is done.
func (c *Conn) Read() (Frame, error) {
	if !c.sc.Scan() {
		err := c.sc.Err()
		switch {
		case err == nil:
			return Frame{}, io.EOF
		case errors.Is(err, bufio.ErrTooLong):
			return Frame{}, fmt.Errorf("a frame larger than %d bytes", MaxFrame)
		}
		return Frame{}, err
	}
	var f Frame
	if err := json.Unmarshal(c.sc.Bytes(), &f); err != nil {
		return Frame{}, fmt.Errorf("a frame that is not the wire's: %w", err)
	}
	return f, nil
}

// ReadWithin is Read that fails once d has passed.
func (c *Conn) ReadWithin(d time.Duration) (Frame, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(d))
	defer c.conn.SetReadDeadline(time.Time{})
	return c.Read()
}

// Write sends f, within WriteTimeout.
func (c *Conn) Write(f Frame) error {
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if len(b) >= MaxFrame {
		return fmt.Errorf("a frame of %d bytes, more than %d", len(b), MaxFrame)
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	_ = c.conn.SetWriteDeadline(time.Now().Add(WriteTimeout))
	_, err = c.conn.Write(b)
	return err
}

// Close closes the connection.
func (c *Conn) Close() error { return c.conn.Close() }

// Raw is the connection underneath.
func (c *Conn) Raw() net.Conn { return c.conn }
