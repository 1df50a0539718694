package upload

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/media"
	"github.com/utf8guard/utf8guard/middleware/internal/octets"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// headScan bounds the header blocks of a multipart body as the body
// passes, before multipart.Reader parses them: Go's reader allocates for
// every header line and takes up to 10,000 of them per part, so the
// lines must be counted before it reads them, not after.
//
// It counts more lines than the reader parses, never fewer. The reader
// parses a header block after a delimiter line ("--" boundary, spaces
// and tabs, a line end), which it looks for where a line starts, or,
// on a line longer than its buffer, every PeekBufferSize octets of it
// (bufio.Reader.ReadSlice hands a long line out in pieces of that
// size). The scan takes every such place, and either line end (CRLF or
// LF: the reader's depends on the first delimiter line), as a delimiter
// line, and counts the lines after it up to the first empty line: the
// reader's header block ends there at the latest (textproto stops at an
// empty line, or at a malformed line before it, after which the reader
// looks for the next delimiter line, which the scan counts as more lines
// of the same block). It goes on past the close delimiter: a handler
// that calls NextPart after io.EOF reads on into the epilogue.
//
// Past max lines in one block, over is set, and write returns where the
// body is cut: after the line that went over, so that the reader parses
// max+1 lines of the block at most.
type headScan struct {
	// delim is "--" + boundary: buf[:n] (a slice into the value itself
	// would put it on the heap); n is 0 while the scan is off.
	buf  [maxBoundary + 2]byte
	n    int
	max  int
	over bool

	// col is the length of the line being read, up to the octets seen.
	col int64
	// m is how many octets of delim a candidate delimiter line has
	// matched, at a place it may start, across writes; -1 when none is
	// being matched.
	m int
	// after is set once a candidate matched delim: spaces and tabs may
	// follow (cr: and then a '\r'), then a line end.
	after, cr bool

	// In a header block: lines counted, and the line being read, which is
	// empty if it is "" or "\r" (lineLen, up to 2; lineCR: it starts with
	// '\r').
	head    bool
	lines   int
	lineLen int
	lineCR  bool
}

// start starts the scan of a body with boundary (at most maxBoundary
// octets: boundaryRejection refuses longer ones), with a limit of max
// lines.
func (h *headScan) start(boundary string, max int) {
	*h = headScan{max: max, m: -1}
	h.n = copy(h.buf[2:], boundary) + 2
	h.buf[0], h.buf[1] = '-', '-'
}

// on reports whether the scan is started.
func (h *headScan) on() bool { return h.n > 0 }

// delim returns "--" + boundary.
func (h *headScan) delim() []byte { return h.buf[:h.n] }

// candidate reports whether a delimiter line may start at column col:
// where the reader reads a line from.
func candidate(col int64) bool { return col%PeekBufferSize == 0 }

// write shows the scan the next octets of the body. It returns -1, or,
// when a header block has just gone over max lines, the length of the
// prefix of p that the reader may read.
func (h *headScan) write(p []byte) int {
	if h.over {
		return 0
	}
	for pos := 0; pos < len(p); {
		switch {
		case h.head:
			j := bytes.IndexByte(p[pos:], '\n')
			if j < 0 {
				h.lineOctets(p[pos:])
				return -1
			}
			h.lineOctets(p[pos : pos+j])
			pos += j + 1
			if h.lineLen == 0 || h.lineLen == 1 && h.lineCR {
				h.head = false // the empty line that ends the block
			} else if h.lines++; h.lines > h.max {
				h.over = true
				return pos
			}
			h.lineLen, h.lineCR, h.col = 0, false, 0
		case h.after:
			c := p[pos]
			switch {
			case c == '\n':
				h.after, h.cr = false, false
				h.head, h.lines, h.col = true, 0, 0
			case !h.cr && (c == ' ' || c == '\t'):
				h.col++
			case !h.cr && c == '\r':
				h.cr = true
				h.col++
			default:
				// Not a delimiter line: search on from this octet.
				h.after, h.cr = false, false
				continue
			}
			pos++
		case h.m >= 0:
			// A candidate that began in an earlier write.
			n := min(len(p)-pos, len(h.delim())-h.m)
			if !bytes.Equal(p[pos:pos+n], h.delim()[h.m:h.m+n]) {
				h.m = -1 // search on from pos: the octets seen are in col
				continue
			}
			pos += n
			h.col += int64(n)
			if h.m += n; h.m == len(h.delim()) {
				h.m, h.after = -1, true
			}
		default:
			pos = h.search(p, pos)
		}
	}
	return -1
}

// lineOctets adds seg to the line of a header block being read.
func (h *headScan) lineOctets(seg []byte) {
	if len(seg) == 0 {
		return
	}
	if h.lineLen == 0 {
		h.lineCR = seg[0] == '\r'
	}
	h.lineLen = min(h.lineLen+len(seg), 2)
}

// search looks for a delimiter at a candidate place in p from pos on. It
// returns where the scan goes on: after the delimiter (after set), or at
// the end of p, which it has seen (m set when p ends in the start of a
// delimiter at a candidate place).
func (h *headScan) search(p []byte, pos int) int {
	for {
		i := bytes.Index(p[pos:], h.delim())
		if i < 0 {
			break
		}
		i += pos
		h.advance(p, pos, i)
		if candidate(h.col) {
			h.col += int64(len(h.delim()))
			h.after = true
			return i + len(h.delim())
		}
		h.advance(p, i, i+1)
		pos = i + 1
	}
	h.advance(p, pos, len(p))
	// The end of p may start a delimiter: at a candidate place in the
	// last len(delim)-1 octets, not before a line end (the delimiter
	// holds none).
	end := int64(len(p))
	for s := len(p) - 1; s >= max(pos, len(p)-len(h.delim())+1) && p[s] != '\n'; s-- {
		if candidate(h.col-(end-int64(s))) && bytes.HasPrefix(h.delim(), p[s:]) {
			h.m = len(p) - s
			break
		}
	}
	return len(p)
}

// advance moves col over p[from:to].
func (h *headScan) advance(p []byte, from, to int) {
	if k := bytes.LastIndexByte(p[from:to], '\n'); k >= 0 {
		h.col = int64(to - (from + k + 1))
		return
	}
	h.col += int64(to - from)
}

// headersRejection refuses a part whose header has more than limit lines
// (too_large, a count: 400).
func headersRejection(limit int) *finding.Rejection { return finding.TooMany(rules.Multipart, limit) }

// A part's header block is text, wherever it is read from: a handler
// reads its values through Part.Header, FormName and FileName, and one
// that reads the body whole (an XML decoder, which skips the text before
// its first element, delimiters and header blocks included) reads the
// block as it came. So beyond its values' octets (checkPartNames), the
// escapes a JSON or XML decoder would decode (package escape) are checked in
// every header value and every decoded parameter, under the names
// classes: a character a header value may not hold as it is, it may not
// hold as an escape either ("X-Note: &#x202e;", name="b&#x202e;"). The
// multipart classes alone would let through, as an escape, what the same
// value refuses as an octet.
//
// RFC 2231 and RFC 8187 extended values (filename*=UTF-8''a%C3%A9, and
// continuations filename*0*=...; filename*1*=...) are checked too, in the
// Content-Disposition and the Content-Type, the two that
// mime.ParseMediaType reads. Go drops one that does not decode, so that a
// handler reads nothing (or the plain filename beside it) where a parser
// that decodes %u, or a charset Go does not know, reads what no check
// saw. An extended value must be UTF-8 or US-ASCII (any case;
// bad_charset otherwise, whatever the policy: no handler on Go reads
// another, and RFC 7578 forbids filename* in forms, so no form a browser
// sends is lost), and every '%' in it must start an escape of two hex
// digits (bad_escape). Its decoded octets are the parameter Go reads,
// checked as any name.
//
// Under RefuseAmbiguousParts, the block must read the same to every
// parser (ambiguous_header): no field given twice (Go's reader takes the
// first, others the last) and no parameter given twice. A plain value
// beside an extended one (filename and filename*) passes when the two
// read alike: RFC 6266 has senders write both for parsers that know only
// one, and .NET's HttpClient writes both in forms; where they differ Go
// reads the extended one and older parsers the plain one, which is
// refused. So is an extended value beside continuations of the same
// parameter, and a continuation Go does not join (a gap, filename*1
// without filename*0, a number written 01), which another parser may
// join.

// nameCheck checks v, a name or a part header value, under forbid: its
// octets (sanitize.CheckString), then the escapes a JSON or XML decoder
// would decode in it. It returns a *sanitize.Error at the offending
// octet or escape.
func nameCheck(v string, forbid sanitize.Class) error {
	if err := sanitize.CheckString(v, forbid); err != nil {
		return err
	}
	if rj := escape.Check(octets.StringBytes(v), rules.Multipart, forbid, 0); rj != nil {
		return rj.Err
	}
	return nil
}

// headerField is the field a rejection in a part's header names: the
// part's field name when it has one, else the header's name.
func headerField(pt *mimePart, header string) string {
	if pt.name != "" {
		return finding.SafeField(pt.name)
	}
	return header
}

// paramHeaders are the part headers whose parameters mime.ParseMediaType
// reads.
var paramHeaders = [...]string{"Content-Disposition", "Content-Type"}

// checkExtendedParams refuses an extended parameter value of the part's
// Content-Disposition or Content-Type that is not UTF-8 or US-ASCII
// (bad_charset) or holds a '%' that starts no escape (bad_escape), as
// the comment above says.
func checkExtendedParams(pt *mimePart) *finding.Rejection {
	for _, h := range paramHeaders {
		v := pt.header.Get(h)
		if strings.IndexByte(v, '*') < 0 {
			continue // no extended value: the common header
		}
		var arr [8]media.Param
		ps, _ := media.Params(arr[:0], v) // disposition.go
		for _, mp := range ps {
			first, ext := extendedKey(mp.Key)
			if !ext {
				continue
			}
			raw := v[mp.ValueStart:mp.ValueEnd]
			value := raw
			if value[0] == '"' {
				value = media.Unquote(value[1 : len(value)-1])
			}
			text := value
			if first {
				charset, rest, ok1 := strings.Cut(value, "'")
				_, t, ok2 := strings.Cut(rest, "'")
				if !ok1 || !ok2 {
					// Not charset'language'value: Go drops it. A
					// malformed escape of the whole value.
					return &finding.Rejection{Reason: sanitize.BadEscape, Location: rules.Multipart, Field: headerField(pt, h),
						Sample: finding.Sample(raw, 0), Err: &sanitize.Error{Reason: sanitize.BadEscape}}
				}
				if !strings.EqualFold(charset, "utf-8") && !strings.EqualFold(charset, "us-ascii") {
					return &finding.Rejection{Reason: sanitize.BadCharset, Location: rules.Multipart, Field: headerField(pt, h),
						Sample: finding.Sample(raw, 0), Err: sanitize.ErrBadCharset}
				}
				text = t
			}
			if at, dec := badPercent(text); at >= 0 {
				return &finding.Rejection{Reason: sanitize.BadEscape, Location: rules.Multipart, Field: headerField(pt, h),
					Offset: dec, Sample: finding.Sample(text, at), Err: &sanitize.Error{Reason: sanitize.BadEscape, Offset: dec}}
			}
		}
	}
	return nil
}

// extendedKey reports whether key, a parameter name in lower case,
// names an extended value as mime.ParseMediaType reads one: name* or a
// continuation name*N* (ext), and, of those, whether it carries the
// charset and language (first: name* and name*0*).
func extendedKey(key string) (first, ext bool) {
	base, suffix, star := strings.Cut(key, "*")
	if !star || base == "" || !strings.HasSuffix(suffix, "*") && suffix != "" {
		return false, false
	}
	if suffix == "" {
		return true, true
	}
	n, ok := pieceNumber(suffix[:len(suffix)-1])
	return ok && n == 0, ok
}

// pieceNumber reads the number of a continuation, as Go writes it
// (fmt's %d: no sign, no leading zero), the only way Go matches it.
func pieceNumber(s string) (int, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// badPercent returns the offset in s of the first '%' not followed by
// two hex digits, and the number of octets decoded before it; -1 when
// there is none.
func badPercent(s string) (at, dec int) {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			dec++
			continue
		}
		if i+2 >= len(s) || !octets.IsHex(s[i+1]) || !octets.IsHex(s[i+2]) {
			return i, dec
		}
		dec++
		i += 2
	}
	return -1, 0
}

// ambiguousPart refuses a part whose header block parsers read
// differently (ambiguous_header), as the comment above says: a field
// given twice, or a parameter of its Content-Disposition or Content-Type
// given twice. Where several fields are, the one whose name sorts first
// is reported.
func ambiguousPart(pt *mimePart) *finding.Rejection {
	twice, second := "", ""
	for k, vals := range pt.header {
		if len(vals) > 1 && (twice == "" || k < twice) {
			twice, second = k, vals[1]
		}
	}
	// NextPart drops a quoted-printable part's Content-Transfer-Encoding
	// (every one of them), which the first decides.
	const cte = "Content-Transfer-Encoding"
	if len(pt.dropped) > 1 && (twice == "" || cte < twice) {
		twice, second = cte, pt.dropped[1]
	}
	if twice != "" {
		return ambiguous(pt, twice, second)
	}
	for i, h := range paramHeaders {
		params := pt.dispParams
		if i == 1 {
			params = pt.typeParams
		}
		v := pt.header.Get(h)
		if strings.IndexByte(v, ';') < 0 {
			continue // no parameter
		}
		if key := ambiguousParam(v, params); key != "" {
			return ambiguous(pt, h, v)
		}
	}
	return nil
}

// ambiguous is the Rejection of a part whose header field h is given
// twice (v is its second value) or has a parameter given twice (v is
// its value).
func ambiguous(pt *mimePart, h, v string) *finding.Rejection {
	return &finding.Rejection{Reason: sanitize.AmbiguousHeader, Location: rules.Multipart, Field: headerField(pt, h),
		Sample: finding.Sample(v, 0), Err: sanitize.ErrAmbiguousHeader}
}

// ambiguousParam returns the name of a parameter that the value v, a
// Content-Disposition or Content-Type, gives twice, as the comment above
// says, or "". params are v's parameters as Go reads them (nil when it
// refuses v).
func ambiguousParam(v string, params map[string]string) string {
	var arr [8]media.Param
	ps, _ := media.Params(arr[:0], v) // those before a syntax error too
	// count returns how many parameters are named key: by comparing
	// them all, for the few a header carries, or through a map.
	var counts map[string]int
	if len(ps) > 16 {
		counts = make(map[string]int, len(ps))
		for _, mp := range ps {
			counts[mp.Key]++
		}
	}
	count := func(key string) int {
		if counts != nil {
			return counts[key]
		}
		n := 0
		for _, mp := range ps {
			if mp.Key == key {
				n++
			}
		}
		return n
	}
	for i, mp := range ps {
		if count(mp.Key) > 1 {
			return mp.Key
		}
		base, _, star := strings.Cut(mp.Key, "*")
		if !star {
			continue
		}
		// Each base name once: at its first parameter with a '*'.
		seen := false
		for _, o := range ps[:i] {
			if b, _, s := strings.Cut(o.Key, "*"); s && b == base {
				seen = true
				break
			}
		}
		if seen {
			continue
		}
		// The continuations Go joins: name*0, name*1, ... up to the
		// first missing, each plain or extended (not both: counted
		// below), and every other name* key, which Go ignores.
		run := 0
		for count(base+"*"+strconv.Itoa(run))+count(base+"*"+strconv.Itoa(run)+"*") > 0 {
			run++
		}
		ext, others := count(base+"*"), 0
		for _, o := range ps {
			if b, _, s := strings.Cut(o.Key, "*"); s && b == base && o.Key != base+"*" {
				others++
			}
		}
		if ext > 0 && others > 0 || others != run {
			return mp.Key
		}
		// A plain value beside: it must read as Go reads the
		// parameter.
		for _, o := range ps {
			if o.Key != base {
				continue
			}
			plain := v[o.ValueStart:o.ValueEnd]
			if plain[0] == '"' {
				plain = media.Unquote(plain[1 : len(plain)-1])
			}
			if got, ok := params[base]; !ok || got != plain {
				return base
			}
		}
	}
	return ""
}
