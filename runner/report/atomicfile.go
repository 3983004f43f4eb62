package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// writeFileAtomic replaces the file at path with what write writes, so that a
// reader, or a run writing the same path at the same time, sees either the old
// file or the new one whole, never a part of either. write writes to a new file
// in the same folder, which is then renamed over path; on any failure the new
// file is removed and the old one is left as it was. The file's mode is 0644
// less the umask, as for any new file. A path that names a symbolic link
// replaces the link's target; a path that names something other than a regular
// file (a named pipe, a device) is written in place, as it cannot be replaced,
// and so is a file in a folder where no file can be made.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	tmp, err := createTemp(path)
	if errors.Is(err, fs.ErrPermission) {
		if _, serr := os.Stat(path); serr == nil {
			// No file can be made beside it, but it may be writable itself.
			return writeInPlace(path, write)
		}
	}
	if err != nil {
		return namePath(err, path)
	}
	if err := fill(tmp, write); err != nil {
		_ = os.Remove(tmp.Name())
		return namePath(err, path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// namePath names path instead of the file beside it in err, so that a failure
// to make or write that file reads as a failure to write path.
func namePath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != path {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// fill writes to f, flushes it to the disk and closes it.
func fill(f *os.File, write func(io.Writer) error) error {
	err := write(f)
	if err == nil {
		// On the disk before the rename: a crash after it must not leave an
		// empty file under the name.
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// createTemp creates a new, empty file beside path, named after it, with mode
// 0644 less the umask (os.CreateTemp would make it 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a file beside %s: too many names taken", path)
}

// writeInPlace writes to the existing file at path, which is not a regular file.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	return errors.Join(write(f), f.Close())
}

// checkWritableAtomic checks, before anything is written, that writeFileAtomic
// can write path, and creates path's folder if it is missing. It tries what
// writeFileAtomic will do without touching what is at path: it makes a file
// beside path and removes it again, or, where writeFileAtomic writes in place,
// opens path for writing without truncating it. A folder at path is an error.
func checkWritableAtomic(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return &fs.PathError{Op: "write", Path: path, Err: syscall.EISDIR}
	case err == nil && !st.Mode().IsRegular():
		return openForWriting(path)
	}
	tmp, err := createTemp(path)
	if errors.Is(err, fs.ErrPermission) && st != nil {
		return openForWriting(path)
	}
	if err != nil {
		return namePath(err, path)
	}
	return errors.Join(tmp.Close(), os.Remove(tmp.Name()))
}

// openForWriting opens the existing file at path for writing, without
// truncating it, and closes it again.
func openForWriting(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}
