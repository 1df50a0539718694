package upload

import (
	"bytes"

	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// outsideScan finds, as a multipart body streams past, what the tests'
// reference outsideParts finds in a body in memory: where the preamble ends (the first delimiter
// line) and where the epilogue starts (after the first close delimiter
// after a line end); and it keeps those two, which are text, to be
// checked. It holds the preamble, the epilogue and a few octets around
// them, never the parts: the octets between are only searched, a chunk at
// a time, for the close delimiter. What it holds is bounded by limit; past
// it, over is set and it holds no more.
//
// FuzzOutsideScan holds it to outsideParts on the same bodies cut into
// chunks at random.
type outsideScan struct {
	delim []byte // "--" + boundary
	nl    []byte // "\n" + delim
	limit int64  // the most octets held (negative: no limit)
	over  bool
	phase int
	off   int64   // octets seen
	tail  [8]byte // the last octets seen, for the context of samples
	ntail int

	// The preamble (scanPreamble): pre holds the body from its start,
	// i is the start of the line looked at, j where the search for its
	// end goes on. Once the preamble is known, pre keeps it and up to
	// finding.SampleRadius octets after it.
	pre      []byte
	i, j     int
	first    int  // where the preamble ends
	preKnown bool // first is known

	// The parts (scanParts): carry is the proper prefix of nl that the
	// last octets seen form; dashes, once nl is matched, how many of the
	// "--" of a close delimiter follow it (-1: nl not matched).
	carry  []byte
	dashes int

	// The close line and the epilogue (scanClose, scanEpilogue): epi
	// holds the body from epiOff-ctx on; the epilogue is what follows
	// skip octets of it, once settled.
	epi     []byte
	ctx     int   // octets of epi before epiOff, for the context of samples
	epiOff  int64 // where the close line's rest starts (after "\n--boundary"), or the epilogue
	skip    int   // octets of epi from epiOff that are not epilogue
	settled bool  // the epilogue's start is known
	noEpi   bool  // the body ends inside a part: no epilogue
}

const (
	scanPreamble = iota
	scanParts
	scanClose
	scanEpilogue
	scanEnd
)

func newOutsideScan(boundary string, limit int64) *outsideScan {
	delim := []byte("--" + boundary)
	return &outsideScan{delim: delim, nl: append([]byte{'\n'}, delim...), limit: limit, dashes: -1}
}

// hold appends p to buf, unless that goes over the limit: then it sets
// over and keeps buf as it is.
func (o *outsideScan) hold(buf, p []byte) []byte {
	if o.limit >= 0 && int64(len(buf)+len(p))-2*finding.SampleRadius > o.limit {
		o.over = true
		return buf
	}
	return append(buf, p...)
}

// write shows the scan the next octets of the body.
func (o *outsideScan) write(p []byte) {
	if o.over {
		return // refused: nothing it finds matters
	}
	if o.preKnown && len(o.pre) < o.first+finding.SampleRadius {
		o.pre = append(o.pre, p[:min(len(p), o.first+finding.SampleRadius-len(o.pre))]...)
	}
	switch o.phase {
	case scanPreamble:
		o.pre = o.hold(o.pre, p)
		if !o.over {
			o.preamble(false)
		}
	case scanParts:
		o.parts(p)
	case scanClose, scanEpilogue:
		o.epilogue(p)
	}
	o.remember(p)
}

// remember keeps the last octets of p in tail.
func (o *outsideScan) remember(p []byte) {
	o.off += int64(len(p))
	if len(p) >= len(o.tail) {
		copy(o.tail[:], p[len(p)-len(o.tail):])
		o.ntail = len(o.tail)
		return
	}
	keep := min(o.ntail, len(o.tail)-len(p))
	copy(o.tail[:], o.tail[o.ntail-keep:o.ntail])
	copy(o.tail[keep:], p)
	o.ntail = keep + len(p)
}

// end tells the scan that the body has ended.
func (o *outsideScan) end() {
	if o.over {
		return
	}
	if o.phase == scanPreamble {
		o.preamble(true) // decides, and may find the parts and their end
	}
	switch o.phase {
	case scanParts:
		o.noEpi = true // no close delimiter: the body ends inside a part
	case scanClose:
		o.closeLine(true)
	}
	o.phase = scanEnd
}

// preamble looks for the first delimiter line of pre, from the line at i
// on, as outsideParts does; eof says that pre holds the whole body.
func (o *outsideScan) preamble(eof bool) {
	for {
		rest := o.pre[o.i:]
		switch {
		case bytes.HasPrefix(rest, o.delim):
			after := rest[len(o.delim):]
			if !eof && len(after) < 2 && bytes.HasPrefix([]byte("--"), after) {
				return // "--boundary" or "--boundary-": which one is it?
			}
			if bytes.HasPrefix(after, []byte("--")) {
				end, st := lineEndAt(after[2:], eof)
				if st == lineUndecided {
					return
				}
				if st == lineYes {
					// A close delimiter before any part: the body has
					// no parts, and its epilogue follows that line.
					o.startEpilogue(o.pre, o.i+len(o.delim)+2+end)
					o.found(o.i)
					return
				}
			} else {
				end, st := lineEndAt(after, eof)
				if st == lineUndecided {
					return
				}
				if st == lineYes && end > 0 {
					// The parts start here: search them from here on,
					// at this offset in the body.
					parts := o.pre[o.i:]
					off, tail, ntail := o.off, o.tail, o.ntail
					o.off, o.ntail = 0, 0
					o.remember(o.pre[:o.i])
					o.found(o.i)
					o.phase = scanParts
					o.parts(parts)
					o.off, o.tail, o.ntail = off, tail, ntail
					return
				}
			}
		case !eof && len(rest) < len(o.delim) && bytes.HasPrefix(o.delim, rest):
			return // it may yet be a delimiter line
		}
		// Not a delimiter line: the next line.
		o.j = max(o.j, o.i)
		k := bytes.IndexByte(o.pre[o.j:], '\n')
		if k < 0 {
			o.j = len(o.pre)
			if eof {
				// No delimiter line: all of the body is preamble.
				o.found(len(o.pre))
				o.noEpi = true
			}
			return
		}
		o.i = o.j + k + 1
		o.j = o.i
	}
}

// found records that the preamble ends at first: pre keeps it and a few
// octets after it.
func (o *outsideScan) found(first int) {
	o.first, o.preKnown = first, true
	o.pre = o.pre[:min(len(o.pre), first+finding.SampleRadius):min(len(o.pre), first+finding.SampleRadius)]
}

// parts searches buf, the next octets inside the parts (at offset off of
// the body, after the octets in tail), for a close delimiter after a line
// end: nl then "--".
func (o *outsideScan) parts(buf []byte) {
	for pos := 0; pos < len(buf); {
		p := buf[pos:]
		if o.dashes >= 0 {
			// nl matched: a close delimiter if "--" follows.
			if p[0] != '-' {
				o.dashes = -1 // not one: search on from here
				continue
			}
			o.dashes++
			pos++
			if o.dashes == 2 {
				o.phase = scanClose
				o.epi = o.hold(o.epi, []byte("--"))
				o.epilogue(buf[pos:])
				return
			}
			continue
		}
		if len(o.carry) > 0 {
			// The last octets seen began nl: do these go on with it?
			need := len(o.nl) - len(o.carry)
			k := min(need, len(p))
			if bytes.Equal(p[:k], o.nl[len(o.carry):len(o.carry)+k]) {
				if k < need {
					o.carry = append(o.carry, p[:k]...)
					return
				}
				pos += k
				o.matched(buf, pos)
				continue
			}
			// nl holds '\n' only at its start (no boundary holds a line
			// break), so no match starts later in the carry.
			o.carry = o.carry[:0]
		}
		if j := bytes.Index(p, o.nl); j >= 0 {
			pos += j + len(o.nl)
			o.matched(buf, pos)
			continue
		}
		if t := bytes.LastIndexByte(p, '\n'); t >= 0 && bytes.HasPrefix(o.nl, p[t:]) {
			o.carry = append(o.carry[:0], p[t:]...)
		}
		return
	}
}

// matched records that nl ends at k in buf: the close line's rest, if it
// is one, starts there.
func (o *outsideScan) matched(buf []byte, k int) {
	o.carry = o.carry[:0]
	o.dashes = 0
	o.epiOff = o.off + int64(k)
	// The context of samples: the octets before epiOff.
	var ctx []byte
	if k >= finding.SampleRadius {
		ctx = buf[k-finding.SampleRadius : k]
	} else {
		keep := min(o.ntail, finding.SampleRadius-k)
		ctx = append(append(ctx, o.tail[o.ntail-keep:o.ntail]...), buf[:k]...)
	}
	o.epi = append(o.epi[:0], ctx...)
	o.ctx = len(ctx)
}

// startEpilogue records, in the preamble phase, that the epilogue starts
// at off in buf (the body from its start).
func (o *outsideScan) startEpilogue(buf []byte, off int) {
	from := max(off-finding.SampleRadius, 0)
	o.epi = o.hold(nil, buf[from:])
	o.ctx = off - from
	o.epiOff = int64(off)
	o.settled = true
	o.phase = scanEpilogue
}

// epilogue holds p, octets of the close line or of the epilogue.
func (o *outsideScan) epilogue(p []byte) {
	o.epi = o.hold(o.epi, p)
	if o.phase == scanClose && !o.over {
		o.closeLine(false)
	}
}

// closeLine settles where the epilogue starts once the rest of the close
// line is known: after the line if "--" is followed by spaces and tabs
// and a line end (or the body's end), and at the "--" otherwise (a broken
// close line is outside the parts too).
func (o *outsideScan) closeLine(eof bool) {
	rest := o.epi[o.ctx+2:]
	end, st := lineEndAt(rest, eof)
	switch st {
	case lineUndecided:
		return
	case lineYes:
		o.skip = 2 + end
	default:
		o.skip = 0
	}
	o.settled = true
	o.phase = scanEpilogue
}

type lineState uint8

const (
	lineNo lineState = iota
	lineYes
	lineUndecided
)

// lineEndAt is lineEnd for a stream: p is what has arrived, and eof says
// that the body ends with it. lineUndecided says that the octets to come
// decide.
func lineEndAt(p []byte, eof bool) (int, lineState) {
	k := 0
	for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
		k++
	}
	switch {
	case k == len(p):
		if eof {
			return k, lineYes
		}
		return 0, lineUndecided
	case p[k] == '\n':
		return k + 1, lineYes
	case p[k] == '\r':
		switch {
		case k+1 < len(p) && p[k+1] == '\n':
			return k + 2, lineYes
		case k+1 == len(p) && !eof:
			return 0, lineUndecided
		}
	}
	return 0, lineNo
}

// preambleKnown reports whether the preamble has ended.
func (o *outsideScan) preambleKnown() bool { return o.preKnown }

// checkPreamble checks the preamble, once it has ended, as the tests'
// reference checkOutsideParts does.
func (o *outsideScan) checkPreamble(c *rules.Check) *finding.Rejection {
	return checkSegment(o.pre, 0, 0, o.first, c)
}

// checkEpilogue checks the epilogue, once the body has ended.
func (o *outsideScan) checkEpilogue(c *rules.Check) *finding.Rejection {
	if !o.settled || o.noEpi {
		return nil
	}
	base := o.epiOff - int64(o.ctx) // the offset of epi[0] in the body
	return checkSegment(o.epi, base, o.ctx+o.skip, len(o.epi), c)
}

// checkSegment checks buf[from:to] as checkOutsideParts checks a segment:
// the classes, with the offset and the sample counted in the body (buf
// starts at its offset base), then the escapes a decoder would read.
func checkSegment(buf []byte, base int64, from, to int, c *rules.Check) *finding.Rejection {
	seg := buf[from:to]
	if err := sanitize.Check(seg, c.Forbid); err != nil {
		rj := finding.Reject(err, rules.Multipart, "", seg)
		at := from + rj.Offset
		rj.Offset = int(base) + at
		rj.Sample = finding.Sample(buf, at)
		return rj
	}
	return escape.Check(seg, rules.Multipart, c.Forbid, int(base)+from)
}
