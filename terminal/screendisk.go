package terminal

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
)

// This file keeps a pane's screen history on disk as well (see
// [ScreenHistory.OpenDisk]): every screen the history stores is appended
// to a journal, so that screens dropped from memory can still be searched
// and replayed, and a pane whose server restarted (its session restored)
// finds the screens its program showed before.
//
// # Format
//
// A journal is two segment files, PATH.0 (the newer) and PATH.1 (the
// older). Each starts with the 8-byte magic diskMagic and holds frames:
//
//	u32 n, u32 raw, u32 crc   (little-endian; crc is CRC-32/IEEE of the n bytes)
//	n bytes                   (raw bytes, deflated)
//
// The raw bytes are screens back to back, each: uvarint seq, varint
// first and varint last (Unix nanoseconds), uvarint seen, uvarint
// generation, uvarint length, then the screen's text (rows joined with
// '\n'). Screen numbers grow by one from screen to screen, across frames
// and segments. Screens are gathered in memory and written as one frame
// once they hold diskFrameRaw bytes (and when the journal is flushed or
// closed): a server that crashes loses at most that much. When PATH.0
// would pass half the journal's bound, it becomes PATH.1 (the older one
// is deleted) and a new PATH.0 is started, so the journal stays within
// its bound (plus a frame). A screen shown again after it was written
// keeps the First, Last and Seen it had then.
//
// A file that is not a journal, a frame cut short, a checksum that does
// not match or screens out of order make the whole journal refused: its
// files are moved aside (PATH.0.corrupt, PATH.1.corrupt) and a new one is
// started.

// diskMagic starts each segment file.
const diskMagic = "PFSCRN1\n"

// diskFrameHeader is a frame's header size.
const diskFrameHeader = 12

// diskFrameRawMax bounds a frame's raw size when reading (a larger one is
// corruption).
const diskFrameRawMax = 64 << 20

// MinScreenDiskBytes is the smallest bound [ScreenHistory.OpenDisk]
// accepts.
const MinScreenDiskBytes = 64 << 10

// diskFrameRaw is how many raw bytes of screens a frame gathers before it
// is written, for a journal bounded to limit bytes.
func diskFrameRaw(limit int) int { return min(64<<10, max(4<<10, limit/16)) }

// diskFrame is a frame written to a segment.
type diskFrame struct {
	older       bool  // in PATH.1
	off         int64 // its header's offset
	n, raw      uint32
	first, last uint64 // its screens' numbers
	filter      []byte // trigram filter of its screens' text
}

// diskScreen is one screen read back from a journal.
type diskScreen struct {
	seq         uint64
	first, last int64
	seen        int
	gen         uint64
	text        []byte
}

// screenDisk is a pane's journal. Its methods named in lower case
// without "Locked" lock mu; warn is called with mu held (it must not call
// back into the history).
type screenDisk struct {
	mu    sync.Mutex
	path  string
	limit int
	warn  func(string)

	f       *os.File // PATH.0, open to append; nil once writing failed
	size    int64    // PATH.0's size
	frames  []diskFrame
	pending []byte // screens not written yet
	pFirst  uint64 // the first screen in pending (0: none)
	last    uint64 // the newest screen, written or pending
}

// segment is the path of the newer (older=false) or older segment.
func (d *screenDisk) segment(older bool) string {
	if older {
		return d.path + ".1"
	}
	return d.path + ".0"
}

// openScreenDisk opens the journal at path, reading what an earlier run
// wrote. A journal it refuses is moved aside and started afresh: the
// disk is returned with refused saying why. err is set (and the disk
// nil) when no journal can be written at path.
func openScreenDisk(path string, limit int, warn func(string)) (d *screenDisk, refused, err error) {
	d = &screenDisk{path: path, limit: limit, warn: warn}
	if refused = d.load(); refused != nil {
		for _, older := range []bool{true, false} {
			p := d.segment(older)
			if _, err := os.Stat(p); err == nil {
				os.Rename(p, p+".corrupt")
			}
		}
		d.frames, d.last = nil, 0
	}
	f, err := os.OpenFile(d.segment(false), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, refused, fmt.Errorf("screen history on disk: %w", err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() == 0 {
		_, err = f.Write([]byte(diskMagic))
		st, _ = f.Stat()
	}
	if err != nil {
		f.Close()
		return nil, refused, fmt.Errorf("screen history on disk: %s: %w", d.segment(false), err)
	}
	d.f, d.size = f, st.Size()
	return d, refused, nil
}

// load reads the segments' frames into d.frames (missing segments are
// empty), checking every frame.
func (d *screenDisk) load() error {
	for _, older := range []bool{true, false} {
		data, err := os.ReadFile(d.segment(older))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("screen history on disk: %w", err)
		}
		if err := d.loadSegment(data, older); err != nil {
			return fmt.Errorf("screen history on disk: %s: %w; moved aside to %s.corrupt, a new history started", d.segment(older), err, d.segment(older))
		}
	}
	return nil
}

// loadSegment checks one segment's bytes and indexes its frames.
func (d *screenDisk) loadSegment(data []byte, older bool) error {
	if len(data) == 0 {
		return nil
	}
	if !bytes.HasPrefix(data, []byte(diskMagic)) {
		return errors.New("not a screen history file")
	}
	var z inflater
	for off := len(diskMagic); off < len(data); {
		if len(data)-off < diskFrameHeader {
			return fmt.Errorf("truncated: a frame header at byte %d is cut short", off)
		}
		n := binary.LittleEndian.Uint32(data[off:])
		raw := binary.LittleEndian.Uint32(data[off+4:])
		sum := binary.LittleEndian.Uint32(data[off+8:])
		if raw > diskFrameRawMax || int64(n) > int64(len(data)-off-diskFrameHeader) {
			return fmt.Errorf("truncated: the frame at byte %d is cut short", off)
		}
		body := data[off+diskFrameHeader : off+diskFrameHeader+int(n)]
		if crc32.ChecksumIEEE(body) != sum {
			return fmt.Errorf("damaged: the frame at byte %d does not match its checksum", off)
		}
		text, err := z.inflate(nil, body, raw)
		if err != nil {
			return fmt.Errorf("damaged: the frame at byte %d: %w", off, err)
		}
		fr := diskFrame{older: older, off: int64(off), n: n, raw: raw}
		var all []byte
		err = eachDiskScreen(text, func(s diskScreen) bool {
			if d.last != 0 && s.seq != d.last+1 {
				err = fmt.Errorf("damaged: screen %d follows screen %d", s.seq, d.last)
				return false
			}
			if fr.first == 0 {
				fr.first = s.seq
			}
			fr.last, d.last = s.seq, s.seq
			all = append(append(all, s.text...), '\n')
			return true
		})
		if err == nil && fr.first == 0 {
			err = errors.New("damaged: a frame holds no screen")
		}
		if err != nil {
			return fmt.Errorf("the frame at byte %d: %w", off, err)
		}
		fr.filter = trigramFilter(all)
		d.frames = append(d.frames, fr)
		off += diskFrameHeader + int(n)
	}
	return nil
}

// inflate appends to dst the raw bytes of a frame's deflated body.
func (f *inflater) inflate(dst, body []byte, raw uint32) ([]byte, error) {
	zr := bytes.NewReader(body)
	if f.r == nil {
		f.r = flate.NewReader(zr)
	} else if err := f.r.(flate.Resetter).Reset(zr, nil); err != nil {
		return nil, err
	}
	at := len(dst)
	dst = append(dst, make([]byte, raw)...)
	if _, err := io.ReadFull(f.r, dst[at:]); err != nil {
		return nil, fmt.Errorf("does not inflate: %v", err)
	}
	if n, _ := f.r.Read(make([]byte, 1)); n != 0 {
		return nil, errors.New("inflates to more than it says")
	}
	return dst, nil
}

// appendDiskScreen appends s's encoding.
func appendDiskScreen(dst []byte, s diskScreen) []byte {
	dst = binary.AppendUvarint(dst, s.seq)
	dst = binary.AppendVarint(dst, s.first)
	dst = binary.AppendVarint(dst, s.last)
	dst = binary.AppendUvarint(dst, uint64(s.seen))
	dst = binary.AppendUvarint(dst, s.gen)
	dst = binary.AppendUvarint(dst, uint64(len(s.text)))
	return append(dst, s.text...)
}

// errDiskScreen is a screen's encoding cut short or out of range.
var errDiskScreen = errors.New("damaged: a screen's encoding is cut short")

// eachDiskScreen calls fn with each screen of raw (text aliases raw)
// until fn returns false; it returns errDiskScreen for bad bytes.
func eachDiskScreen(raw []byte, fn func(diskScreen) bool) error {
	for len(raw) > 0 {
		var s diskScreen
		var v [6]uint64
		for i := range v {
			var n int
			if i == 1 || i == 2 {
				var x int64
				x, n = binary.Varint(raw)
				v[i] = uint64(x)
			} else {
				v[i], n = binary.Uvarint(raw)
			}
			if n <= 0 {
				return errDiskScreen
			}
			raw = raw[n:]
		}
		if v[5] > uint64(len(raw)) || v[0] == 0 || v[3] > 1<<31 {
			return errDiskScreen
		}
		s.seq, s.first, s.last, s.seen, s.gen = v[0], int64(v[1]), int64(v[2]), int(v[3]), v[4]
		s.text, raw = raw[:v[5]], raw[v[5]:]
		if !fn(s) {
			return nil
		}
	}
	return nil
}

// add appends screen s (its seq must follow d.last) and writes a frame
// once enough is pending.
func (d *screenDisk) add(s diskScreen) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return
	}
	if d.pFirst == 0 {
		d.pFirst = s.seq
	}
	d.pending = appendDiskScreen(d.pending, s)
	d.last = s.seq
	if len(d.pending) >= diskFrameRaw(d.limit) {
		d.flush()
	}
}

// sync writes what is pending.
func (d *screenDisk) sync() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flush()
}

// flush writes the pending screens as a frame (d.mu held). A failure (a full disk, a
// directory gone) is warned about once and ends writing: the history
// goes on in memory only.
func (d *screenDisk) flush() {
	if d.f == nil || len(d.pending) == 0 {
		return
	}
	body := deflate(d.pending)
	if d.size > int64(len(diskMagic)) && d.size+int64(diskFrameHeader+len(body)) > int64(d.limit/2) {
		if err := d.rotate(); err != nil {
			d.fail(err)
			return
		}
	}
	frame := make([]byte, diskFrameHeader, diskFrameHeader+len(body))
	binary.LittleEndian.PutUint32(frame, uint32(len(body)))
	binary.LittleEndian.PutUint32(frame[4:], uint32(len(d.pending)))
	binary.LittleEndian.PutUint32(frame[8:], crc32.ChecksumIEEE(body))
	frame = append(frame, body...)
	if _, err := d.f.WriteAt(frame, d.size); err != nil {
		d.f.Truncate(d.size) // leave no partial frame behind
		d.fail(err)
		return
	}
	var all []byte
	eachDiskScreen(d.pending, func(s diskScreen) bool {
		all = append(append(all, s.text...), '\n')
		return true
	})
	d.frames = append(d.frames, diskFrame{off: d.size, n: uint32(len(body)), raw: uint32(len(d.pending)), first: d.pFirst, last: d.last, filter: trigramFilter(all)})
	d.size += int64(len(frame))
	d.pending, d.pFirst = d.pending[:0], 0
}

// rotate makes PATH.0 the older segment and starts a new PATH.0.
func (d *screenDisk) rotate() error {
	if err := d.f.Close(); err != nil {
		return err
	}
	d.f = nil
	if err := os.Rename(d.segment(false), d.segment(true)); err != nil {
		return err
	}
	kept := d.frames[:0]
	for _, fr := range d.frames {
		if !fr.older {
			fr.older = true
			kept = append(kept, fr)
		}
	}
	d.frames = kept
	f, err := os.OpenFile(d.segment(false), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(diskMagic)); err != nil {
		f.Close()
		return err
	}
	d.f, d.size = f, int64(len(diskMagic))
	return nil
}

// fail warns that writing failed and stops writing.
func (d *screenDisk) fail(err error) {
	if d.f != nil {
		d.f.Close()
		d.f = nil
	}
	d.pending, d.pFirst = nil, 0
	if d.warn != nil {
		d.warn(fmt.Sprintf("screen history on disk: writing %s: %v; this pane's history is kept in memory only from now on (what was written stays searchable)", d.path, err))
	}
}

// close writes what is pending and closes the file; with remove, the
// journal's files are deleted instead.
func (d *screenDisk) close(remove bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !remove {
		d.flush()
	}
	var err error
	if d.f != nil {
		err = d.f.Close()
		d.f = nil
	}
	if remove {
		for _, older := range []bool{false, true} {
			if rerr := os.Remove(d.segment(older)); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				err = rerr
			}
		}
	}
	return err
}

// span reports the first and last screens the journal holds.
func (d *screenDisk) span() (first, last uint64, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.spanLocked()
}

func (d *screenDisk) spanLocked() (first, last uint64, ok bool) {
	switch {
	case len(d.frames) > 0:
		return d.frames[0].first, d.last, true
	case d.pFirst != 0:
		return d.pFirst, d.last, true
	}
	return 0, 0, false
}

// count reports how many of its screens are numbered below before.
func (d *screenDisk) count(before uint64) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	first, last, ok := d.spanLocked()
	if !ok || first >= before {
		return 0
	}
	return int(min(last, before-1) - first + 1)
}

// screens calls fn with each screen numbered from..before-1, oldest
// first, until fn returns false; frames whose filter cannot hold grams
// (when not nil) are skipped. A frame that cannot be read back is
// skipped with a warning.
func (d *screenDisk) screens(from, before uint64, grams []uint32, fn func(diskScreen) bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var z inflater
	var files [2]*os.File
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for _, fr := range d.frames {
		if fr.last < from || fr.first >= before || (grams != nil && !mayHold(fr.filter, grams)) {
			continue
		}
		raw, err := d.readFrame(&z, &files, fr)
		if err != nil {
			if d.warn != nil {
				d.warn(fmt.Sprintf("screen history on disk: %s: %v; its screens %d–%d are skipped", d.path, err, fr.first, fr.last))
			}
			continue
		}
		more := true
		eachDiskScreen(raw, func(s diskScreen) bool {
			if s.seq >= from && s.seq < before {
				more = fn(s)
			}
			return more && s.seq < before
		})
		if !more {
			return
		}
	}
	if d.pFirst != 0 && d.pFirst < before {
		eachDiskScreen(d.pending, func(s diskScreen) bool {
			return s.seq >= before || s.seq < from || fn(s)
		})
	}
}

// readFrame reads a frame back, checking it.
func (d *screenDisk) readFrame(z *inflater, files *[2]*os.File, fr diskFrame) ([]byte, error) {
	k := 0
	if fr.older {
		k = 1
	}
	if files[k] == nil {
		f, err := os.Open(d.segment(fr.older))
		if err != nil {
			return nil, err
		}
		files[k] = f
	}
	buf := make([]byte, diskFrameHeader+int(fr.n))
	if _, err := files[k].ReadAt(buf, fr.off); err != nil {
		return nil, err
	}
	body := buf[diskFrameHeader:]
	if binary.LittleEndian.Uint32(buf) != fr.n || crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(buf[8:]) {
		return nil, fmt.Errorf("the frame at byte %d changed on disk", fr.off)
	}
	return z.inflate(nil, body, fr.raw)
}

// record is s as a ScreenRecord.
func (s diskScreen) record() ScreenRecord {
	return ScreenRecord{Seq: s.seq, First: time.Unix(0, s.first), Last: time.Unix(0, s.last), Seen: s.seen, Generation: s.gen, Text: string(s.text)}
}

// OpenDisk keeps the history on disk as well, in the journal at path
// (files path.0 and path.1, created 0600; the directory must exist),
// bounded to limit bytes (at least [MinScreenDiskBytes]). Screens an
// earlier journal at path holds come first: the history's screens are
// numbered after them, and the screens it holds now are written to the
// journal. From then on every new screen is written too, and screens
// dropped from memory stay searchable and readable (Screens, Screen,
// Len, Span and the emulator's Find read them back from disk).
//
// refused, when not nil, says why an existing journal was not used (it
// was moved aside, a new one started). err, when not nil, says why no
// journal could be kept (the history stays in memory only). warn, when
// not nil, is told later failures (a full disk: writing stops, the
// history goes on in memory); it is called with the history's locks
// held and must not call back into it. A history that already keeps a
// journal closes it first (writing what is pending).
func (h *ScreenHistory) OpenDisk(path string, limit int, warn func(string)) (refused, err error) {
	if limit < MinScreenDiskBytes {
		return nil, fmt.Errorf("screen history on disk: a bound of %d bytes is below %d", limit, MinScreenDiskBytes)
	}
	h.CloseDisk(false)
	d, refused, err := openScreenDisk(path, limit, warn)
	if err != nil {
		return refused, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if d.last > 0 {
		// The journal's screens come first: the held ones are numbered
		// after them.
		shift := d.last
		h.nextSeq += shift
		for i := range h.again {
			h.again[i].seq += shift
		}
	}
	if held := h.heldLocked(); held > 0 {
		entries, ghosts, first, ids, rs, again := h.entries, h.ghosts, h.firstSeqLocked(), h.ids, h.rows.snapshot(), h.again
		rd := rs.reader()
		walkScreens(entries, ids, ghosts, func(i int, m screenMeta, rows []uint32) bool {
			r := record(first+uint64(i-ghosts), m, rows, rd, again)
			d.add(diskScreen{seq: r.Seq, first: r.First.UnixNano(), last: r.Last.UnixNano(), seen: r.Seen, gen: r.Generation, text: []byte(r.Text)})
			return true
		})
	}
	h.disk = d
	return refused, nil
}

// SyncDisk writes the screens gathered for the journal on disk, if any.
func (h *ScreenHistory) SyncDisk() {
	h.mu.Lock()
	d := h.disk
	h.mu.Unlock()
	if d != nil {
		d.sync()
	}
}

// CloseDisk stops keeping the history on disk: it writes what is pending
// and closes the journal, or, with remove, deletes its files (a pane
// closed for good). The screens in memory stay. It does nothing without
// a journal.
func (h *ScreenHistory) CloseDisk(remove bool) error {
	h.mu.Lock()
	d := h.disk
	h.disk = nil
	h.mu.Unlock()
	if d == nil {
		return nil
	}
	return d.close(remove)
}

// findDisk calls add with each row of the screens only the journal holds
// (numbered below before) that q matches, oldest first; it reports
// whether add wants more.
func findDisk(d *screenDisk, q *Query, before uint64, add func(Found) bool) bool {
	more := true
	var starts []uint32
	d.screens(0, before, q.trigrams(), func(s diskScreen) bool {
		text := append(s.text[:len(s.text):len(s.text)], '\n')
		starts = rowStarts(starts[:0], text)
		q.scan(text, starts, 0, func(line int, spans []Span) bool {
			more = add(Found{Source: FoundHistory, Line: line, Screen: s.seq, Shown: time.Unix(0, s.first),
				Text: string(lineText(text, starts, line)), Spans: bytes2spans(spans)})
			return more
		})
		return more
	})
	return more
}
