package usage

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"time"
)

// maxLine is the longest record line read; a longer line (a tool's huge
// output in a transcript) is skipped whole, never buffered beyond this.
const maxLine = 32 << 20

// readChunk is how much one read call takes.
const readChunk = 64 << 10

// tail follows one file as it grows, reading each byte once: an agent's
// session record, appended to while the agent works. It notices a file
// truncated (read again from its start) and one replaced at its path
// (the old file is read to its end, then the new one from its start). It
// holds the file open between polls, so a file removed while being read
// is still read to its end. The zero value is not usable: see newTail. A
// tail is used by one goroutine at a time.
type tail struct {
	path    string
	f       *os.File
	id      os.FileInfo // f's identity, for os.SameFile
	off     int64       // next byte to read
	partial []byte      // a line's start, without its newline yet
	long    bool        // skipping the rest of an overlong line
	buf     []byte
	maxLine int // maxLine, or less in tests
	// since: a file first found last written before it holds nothing
	// of interest and is read from its end (a resumed session's history).
	since time.Time
}

// newTail returns a tail of path for records written from since on.
func newTail(path string, since time.Time) *tail {
	return &tail{path: path, since: since, maxLine: maxLine}
}

// poll reads what was appended since the last poll, at most budget bytes
// (at least up to the next line's end is not guaranteed: a line is given
// once complete), handing each complete line to line (the slice is valid
// only during the call). reset is called before the lines of a file read
// from its start again (truncated or replaced). more reports that the
// budget ran out before the end. A missing file is no error: there is
// nothing to read yet.
func (t *tail) poll(budget int64, line func([]byte), reset func()) (more bool, err error) {
	st, err := os.Stat(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if t.f == nil {
			return false, nil
		}
		// Removed or renamed: what its writer still appends is read
		// from the open file until another file takes the path.
		return t.read(budget, line, reset)
	case err != nil:
		return false, err
	case !st.Mode().IsRegular():
		return false, nil
	}
	if t.f != nil {
		if os.SameFile(t.id, st) {
			if st.Size() == t.off {
				return false, nil // nothing new: one stat per poll
			}
			return t.readTo(st.Size(), budget, line, reset)
		}
		// Another file took the path: the old one's end, then the new.
		if more, err := t.read(budget, line, reset); more || err != nil {
			return more, err
		}
		t.close()
	}
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			return false, err
		}
		id, err := f.Stat()
		if err != nil {
			f.Close()
			return false, err
		}
		first := t.id == nil
		t.f, t.id, t.off, t.partial, t.long = f, id, 0, t.partial[:0], false
		if first && !t.since.IsZero() && id.ModTime().Before(t.since) {
			t.off = id.Size() // nothing in it is this session's
		} else if !first && reset != nil {
			reset()
		}
	}
	return t.read(budget, line, reset)
}

// read reads from the open file up to its current end or budget; a file
// that shrank (truncated) is read again from its start, after reset.
func (t *tail) read(budget int64, line func([]byte), reset func()) (bool, error) {
	st, err := t.f.Stat()
	if err != nil {
		return false, err
	}
	return t.readTo(st.Size(), budget, line, reset)
}

// readTo is read with the open file's size known (from a stat of its
// path that found the same file): one system call less per poll.
func (t *tail) readTo(size, budget int64, line func([]byte), reset func()) (bool, error) {
	if size < t.off {
		t.off, t.partial, t.long = 0, t.partial[:0], false
		if reset != nil {
			reset()
		}
	}
	if t.buf == nil {
		t.buf = make([]byte, readChunk)
	}
	end := min(size, t.off+budget)
	for t.off < end {
		n, err := t.f.ReadAt(t.buf[:min(int64(len(t.buf)), end-t.off)], t.off)
		t.off += int64(n)
		t.feed(t.buf[:n], line)
		if err == io.EOF || n == 0 {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return end < size, nil
}

// feed splits data into lines.
func (t *tail) feed(data []byte, line func([]byte)) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if t.long || len(t.partial)+len(data) > t.maxLine {
				t.long, t.partial = true, t.partial[:0]
			} else {
				t.partial = append(t.partial, data...)
			}
			return
		}
		l := data[:i]
		data = data[i+1:]
		if t.long {
			t.long = false
			continue
		}
		if len(t.partial) > 0 {
			if len(t.partial)+len(l) > t.maxLine {
				t.partial = t.partial[:0]
				continue
			}
			t.partial = append(t.partial, l...)
			l = t.partial
		}
		line(bytes.TrimSuffix(l, []byte{'\r'}))
		t.partial = t.partial[:0]
	}
}

// close closes the file; the next poll opens the path again from its
// start.
func (t *tail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
