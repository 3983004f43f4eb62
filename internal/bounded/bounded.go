// Package bounded reads files whose size is not known in advance, such as a path
// given on the command line that may name a device, a pipe or a huge file, up to
// a limit: past it the read fails with a clear error instead of exhausting memory.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TooLargeError says that an input holds more bytes than its limit allows.
type TooLargeError struct {
	// Name is the input's name, usually its path.
	Name string
	// Limit is the number of bytes allowed.
	Limit int64
}

// Error says what went wrong.
func (e *TooLargeError) Error() string {
	if e.Name == "" {
		return "larger than " + Size(e.Limit)
	}
	return fmt.Sprintf("%s: larger than %s", e.Name, Size(e.Limit))
}

// ReadFile reads the whole file at path, or fails with a *TooLargeError when it
// holds more than limit bytes. It never reads more than limit+1 bytes, so a
// device such as /dev/zero ends in an error too.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	data, err := ReadAll(f, limit)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		tl.Name = path
	}
	return data, err
}

// ReadAll reads r to its end, or fails with a *TooLargeError (with no name) when
// it holds more than limit bytes.
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return data, nil
}

// Size formats a number of bytes the way limits are written: "1 MiB", "64 KiB",
// or "100 bytes" when it is not a whole number of KiB.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
