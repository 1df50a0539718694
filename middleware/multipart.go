package middleware

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Multipart bodies (every multipart/* media type: Request.MultipartReader
// takes multipart/form-data and multipart/mixed, and multipart.NewReader
// any) are read here exactly as Go's multipart.Reader hands them to a
// handler, part by part, and every octet a handler can read through it is
// checked:
//
//   - the part's header values, and the decoded parameters of its
//     Content-Disposition and Content-Type (the field name and the file
//     name as mime.ParseMediaType decodes them, filename* and name*
//     included), under the names classes (namesForbid);
//   - the content of every text part: every field (a part without a file
//     name, one without a Content-Disposition included) and every file
//     part whose media type the policy lists as text; a part without a
//     Content-Type is text/plain (RFC 7578, section 4.4);
//   - the content as NextPart reads it: a quoted-printable part decoded,
//     as NextPart decodes it;
//   - nested bodies: a part whose Content-Type is multipart/* with a
//     boundary is read again as a multipart body (a handler may hand it
//     to multipart.NewReader), and checked as text besides when it is a
//     field (Request.ParseMultipartForm makes it a form value).
//
// Two ways a handler can read more than a parser that stops at the first
// error are closed too. After a syntax error (a line where a delimiter
// must be, a malformed part header) a handler that calls NextPart again
// reads on, line by line, to the next delimiter line: the scan does the
// same, and checks the parts it finds there. A quoted-printable decoding
// error leaves the reader somewhere inside the part, at a place that
// depends on how the part was read, and a handler that ignores the error
// (data, _ := io.ReadAll(part)) and calls NextPart reads on from there,
// into octets no check read as a part: such a body is refused
// (bad_escape). So is a boundary longer than the 70 octets RFC 2046
// allows (bad_media_type): no client sends one, and past about 4 KiB a
// delimiter no longer fits Go's reader's buffer and it fails inside a part
// the same way.

// maxBoundary is the longest boundary RFC 2046 (section 5.1.1) allows.
// multipart.Writer refuses longer ones; multipart.Reader takes them, but
// with one of more than about 4 KiB a delimiter no longer fits its buffer
// and the reader fails in the middle of a part.
const maxBoundary = 70

// maxMultipartDepth is the deepest nesting of multipart bodies read: a
// top-level body is at depth 0, a multipart part of it at 1. RFC 7578
// forms nest once at most (RFC 2388's multipart/mixed for several files).
const maxMultipartDepth = 8

// mimePart is one part of a multipart body, as multipart.Reader.NextPart
// hands it to a handler.
type mimePart struct {
	raw *multipart.Part // read with NextRawPart: content not decoded
	// header is the part's header as NextPart gives it: a
	// quoted-printable part without its Content-Transfer-Encoding.
	header textproto.MIMEHeader
	qp     bool // the content is quoted-printable, decoded on reading

	// The Content-Disposition, as multipart.Part reads it: its type (lower
	// case) and decoded parameters, nil when it is missing or does not
	// parse (Part.FormName and Part.FileName are then empty).
	disp       string
	dispParams map[string]string
	name, file string // the "name" and "filename" parameters

	// The Content-Type: type and subtype, lower case, and the decoded
	// parameters. Missing or empty, it is text/plain (RFC 7578, section
	// 4.4); a value mime.ParseMediaType cannot read a type from is
	// text/plain too, so that its content is checked rather than
	// skipped.
	media      string // type/subtype
	typ, sub   string
	typeParams map[string]string
}

// isFile reports whether the part is a file part: one with a file name, as
// multipart.Part.FileName and Reader.ReadForm tell. An empty filename="" is
// a form value, and so is a field named "filename".
func (pt *mimePart) isFile() bool { return pt.file != "" }

// nestedBoundary returns the boundary of a part whose content is itself a
// multipart body, or "".
func (pt *mimePart) nestedBoundary() string {
	if pt.typ != "multipart" {
		return ""
	}
	return pt.typeParams["boundary"]
}

// readContent reads the part's content as NextPart hands it to a handler:
// quoted-printable decoded. truncated says that the body ends inside the
// part (the content is what came before). qpOff is -1, or, when the
// quoted-printable content does not decode, the offset in raw (the content
// as sent) of the line where Go's decoder fails: content is then what it
// decoded before.
func (pt *mimePart) readContent() (content, raw []byte, truncated bool, qpOff int) {
	raw, err := io.ReadAll(pt.raw)
	// The only error a part of a body in memory can end with, given a
	// boundary of at most maxBoundary octets, is io.ErrUnexpectedEOF:
	// the body ends before the part's delimiter. Any other is taken as
	// that too.
	truncated = err != nil
	if !pt.qp {
		return raw, raw, truncated, -1
	}
	content, err = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
	if err == nil {
		return content, raw, truncated, -1
	}
	return content, raw, truncated, qpErrorLine(raw)
}

// qpErrorLine returns the offset of the first line of raw that Go's
// quoted-printable decoder refuses. The decoder works a line at a time
// (each read up to '\n', in a buffer of 4 KiB), so decoding each line on
// its own fails on the same line; this runs only once decoding has failed.
func qpErrorLine(raw []byte) int {
	off := 0
	for line := range bytes.SplitAfterSeq(raw, []byte("\n")) {
		if _, err := io.Copy(io.Discard, quotedprintable.NewReader(bytes.NewReader(line))); err != nil {
			return off
		}
		off += len(line)
	}
	return 0
}

// mpScanner reads the parts of one multipart body in the order a handler
// gets them from multipart.Reader.NextPart, the quoted-printable decoding
// aside (mimePart.readContent does it, to tell its errors from the body's
// end).
type mpScanner struct {
	mr    *multipart.Reader
	steps int // NextRawPart calls
	limit int // at most this many: each call that fails reads an octet at least
	done  bool
	// broken is set when the body is not well formed to its closing
	// delimiter: a syntax error, or a body that ends early.
	broken bool
}

func newScanner(body []byte, boundary string) *mpScanner {
	return &mpScanner{mr: multipart.NewReader(bytes.NewReader(body), boundary), limit: len(body) + 2}
}

// next returns the next part, or nil after the last one.
//
// A syntax error does not end the scan: a handler that calls NextPart
// again after an error gets the next part the reader finds, reading on
// from the line after the error, so the scan reads on too (and marks the
// body broken). Request.ParseMultipartForm stops at the error, and so sees
// a prefix of these parts. The scan ends at the closing delimiter or where
// the body ends.
func (s *mpScanner) next() *mimePart {
	for !s.done {
		if s.steps++; s.steps > s.limit {
			s.done, s.broken = true, true // cannot happen: no progress
			break
		}
		raw, err := s.mr.NextRawPart()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			s.broken = true
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				s.done = true
			}
			continue
		}
		return newMimePart(raw)
	}
	return nil
}

// newMimePart reads the header of a part read with NextRawPart as NextPart
// would present it.
func newMimePart(raw *multipart.Part) *mimePart {
	pt := &mimePart{raw: raw, header: raw.Header}
	// As NextPart does: the first Content-Transfer-Encoding decides, and
	// every one goes.
	const cte = "Content-Transfer-Encoding"
	if strings.EqualFold(pt.header.Get(cte), "quoted-printable") {
		pt.header.Del(cte)
		pt.qp = true
	}
	if disp, params, err := mime.ParseMediaType(pt.header.Get("Content-Disposition")); err == nil {
		pt.disp, pt.dispParams = disp, params
		pt.name, pt.file = params["name"], params["filename"]
	}
	pt.media, pt.typ, pt.sub, pt.typeParams = partType(pt.header)
	return pt
}

// partType reads a part's Content-Type as a handler reads it with
// mime.ParseMediaType, with RFC 7578's default: a part without one (or
// with an empty one) is text/plain. A value whose media type does not
// parse is taken as text/plain as well, so that its content is checked
// as text rather than passed unread; one whose parameters do not parse
// keeps its type, without parameters (as ParseMediaType returns it).
func partType(hdr textproto.MIMEHeader) (mt, typ, sub string, params map[string]string) {
	ct := hdr.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return "text/plain", "text", "plain", nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if mt == "" {
		return "text/plain", "text", "plain", nil
	}
	if err != nil {
		params = nil
	}
	typ, sub, _ = strings.Cut(mt, "/")
	return mt, typ, sub, params
}

// textPart reports whether the content of pt is checked (and
// canonicalized) as text: a field always; a file part when the policy
// lists its media type as text and its charset leaves it UTF-8. badCharset
// reports a listed file part with another charset, which the policy
// refuses with RefuseCharsets and otherwise passes as binary.
func (p *policy) textPart(pt *mimePart) (text, badCharset bool) {
	if !pt.isFile() {
		return true, false
	}
	if !matchMedia(p.multiTypes, pt.typ, pt.sub) {
		return false, false
	}
	if !utf8Charset(pt.typeParams["charset"]) {
		return false, true
	}
	return true, false
}

// namesForbid is the set of classes refused in the names of a multipart
// body: field names, file names, every other decoded parameter of a part's
// Content-Disposition and Content-Type, and every part header value. They
// are names and header text, so the header classes apply on top of the
// multipart ones: in the strict preset, every C0 control, TAB, LF and CR
// included, where a field's content may hold line breaks.
func (p *policy) namesForbid() sanitize.Class { return p.Multipart.Forbid | p.Header.Forbid }

// checkMultipart checks a multipart body (any multipart/* media type), as
// the package comment above says. Multipart bodies are never repaired:
// under Repair an ill-formed part is rejected all the same.
func checkMultipart(r *http.Request, body []byte, p *policy) *Rejection {
	ct := r.Header.Get("Content-Type")
	_, params, err := mime.ParseMediaType(ct)
	boundary := params["boundary"]
	if err != nil || boundary == "" {
		// No multipart reader can read it, but a handler that reads the
		// body as it is (io.ReadAll, json.NewDecoder) would get octets
		// no check has seen: refused (FuzzOracle found "multipArt").
		rj := badMediaType(rules.Multipart, ct)
		rj.Field = "boundary"
		return rj
	}
	if rj := checkOutsideParts(body, boundary, &p.Multipart); rj != nil {
		return rj
	}
	return p.checkParts(body, boundary)
}

// checkOutsideParts checks, as text, the octets of a multipart body that
// lie outside its parts: the preamble before the first delimiter (all of
// the body if it has none) and the epilogue after the last. No multipart
// reader hands them out, but a handler that reads the body as it is does,
// and a JSON decoder (json.NewDecoder(r.Body), which ignores the
// Content-Type) decodes the first value it finds there.
func checkOutsideParts(body []byte, boundary string, c *rules.Check) *Rejection {
	delim := []byte("--" + boundary)
	first, last := outsideParts(body, delim)
	for _, seg := range [2][2]int{{0, first}, {last, len(body)}} {
		if err := sanitize.Check(body[seg[0]:seg[1]], c.Forbid); err != nil {
			rj := reject(err, rules.Multipart, "", body)
			rj.Offset += seg[0]
			rj.Sample = sample(body, rj.Offset)
			return rj
		}
		// The escapes a JSON or XML decoder would read there.
		if rj := checkEscapes(body[seg[0]:seg[1]], rules.Multipart, c.Forbid, seg[0]); rj != nil {
			return rj
		}
	}
	return nil
}

// outsideParts returns where the preamble of a multipart body ends and
// where its epilogue starts, as multipart.Reader finds them. The first
// part starts at the first line that is a delimiter: delim, then only
// spaces and tabs, then a line end (a line that merely starts with delim,
// "--bX", is preamble); a close delimiter line (delim, "--", spaces and
// tabs, then a line end or the body's end) before any part ends the body
// there. The parts end at the first close delimiter after a line end,
// which no part's content can hold without ending at it; the epilogue
// follows its line. A body without one ends inside a part: no epilogue.
func outsideParts(body, delim []byte) (first, last int) {
	first, last = len(body), len(body)
	for i := 0; i < len(body); {
		if bytes.HasPrefix(body[i:], delim) {
			switch rest := body[i+len(delim):]; {
			case bytes.HasPrefix(rest, []byte("--")):
				if end, ok := lineEnd(rest[2:]); ok {
					return i, i + len(delim) + 2 + end
				}
			default:
				if end, ok := lineEnd(rest); ok && end > 0 {
					first = i
				}
			}
		}
		if first < len(body) {
			break
		}
		j := bytes.IndexByte(body[i:], '\n')
		if j < 0 {
			return first, last
		}
		i += j + 1
	}
	nlDelim := append([]byte{'\n'}, delim...)
	for i := first; ; {
		j := bytes.Index(body[i:], nlDelim)
		if j < 0 {
			return first, last // ends inside a part
		}
		at := i + j + len(nlDelim)
		if rest := body[at:]; bytes.HasPrefix(rest, []byte("--")) {
			if end, ok := lineEnd(rest[2:]); ok {
				return first, at + 2 + end
			}
			return first, at // a broken close line: the rest is outside too
		}
		i = at
	}
}

// lineEnd reports whether p is spaces and tabs up to a line end (CRLF or
// LF) or its end, and returns the length up to and including the line
// end.
func lineEnd(p []byte) (int, bool) {
	k := 0
	for k < len(p) && (p[k] == ' ' || p[k] == '\t') {
		k++
	}
	switch {
	case k == len(p):
		return k, true
	case p[k] == '\n':
		return k + 1, true
	case p[k] == '\r' && k+1 < len(p) && p[k+1] == '\n':
		return k + 2, true
	}
	return 0, false
}

// checkParts checks the multipart body body, delimited by boundary.
func (p *policy) checkParts(body []byte, boundary string) *Rejection {
	var n mpCounts
	return p.checkLevel(body, boundary, 0, &n)
}

// mpCounts counts the parts and fields of a body, nested ones included.
type mpCounts struct{ parts, fields int }

// checkLevel checks one multipart body, the top-level one at depth 0 or a
// nested one.
func (p *policy) checkLevel(body []byte, boundary string, depth int, n *mpCounts) *Rejection {
	if rj := boundaryRejection(boundary, depth); rj != nil {
		return rj
	}
	s := newScanner(body, boundary)
	for pt := s.next(); pt != nil; pt = s.next() {
		if rj := p.checkPart(pt, depth, n); rj != nil {
			return rj
		}
	}
	return nil
}

// boundaryRejection refuses a body nested deeper than maxMultipartDepth
// (too_large, a count: 400) and a boundary longer than maxBoundary
// (bad_media_type: the Content-Type's boundary is outside RFC 2046).
func boundaryRejection(boundary string, depth int) *Rejection {
	if depth > maxMultipartDepth {
		return tooMany(rules.Multipart)
	}
	if len(boundary) > maxBoundary {
		return &Rejection{Reason: sanitize.BadMediaType, Location: rules.Multipart, Field: "boundary",
			Offset: maxBoundary, Sample: sample(boundary, maxBoundary), Err: sanitize.ErrBadMediaType}
	}
	return nil
}

// checkPart checks one part: its names and header values first, so that a
// rejection names the field rather than the header that carries it, then
// its content.
func (p *policy) checkPart(pt *mimePart, depth int, n *mpCounts) *Rejection {
	if n.parts++; p.Limits.MultipartParts >= 0 && n.parts > p.Limits.MultipartParts {
		return tooMany(rules.Multipart)
	}
	if rj := p.checkPartNames(pt); rj != nil {
		return rj
	}
	field := safeField(pt.name)
	if !pt.isFile() {
		if n.fields++; p.Limits.Fields >= 0 && n.fields > p.Limits.Fields {
			return tooMany(rules.Multipart)
		}
	}
	text, badCharset := p.textPart(pt)
	if badCharset && p.RefuseCharsets {
		return &Rejection{Reason: sanitize.BadCharset, Location: rules.Multipart, Field: field, Err: sanitize.ErrBadCharset}
	}
	nested := pt.nestedBoundary()
	if !text && nested == "" && !pt.qp {
		return nil // binary: not read (NextRawPart drains it)
	}
	// A broken part (the body ends inside it) fails the handler's parser
	// too, but only after a streaming handler has read what came before
	// the break: that much is checked all the same, and the scan ends.
	content, raw, _, qpOff := pt.readContent()
	if qpOff >= 0 {
		return qpRejection(field, raw, qpOff)
	}
	if text {
		if rj := p.checkPartText(pt, content); rj != nil {
			return rj
		}
	}
	if nested != "" {
		return p.checkLevel(content, nested, depth+1, n)
	}
	return nil
}

// checkPartText checks the content of a text part: a field's against the
// field length limit (a text file part is bounded by the body), and every
// one against the multipart classes.
func (p *policy) checkPartText(pt *mimePart, content []byte) *Rejection {
	field := safeField(pt.name)
	if !pt.isFile() && p.Limits.FieldBytes >= 0 && len(content) > p.Limits.FieldBytes {
		return tooLarge(rules.Multipart, field)
	}
	if err := sanitize.Check(content, p.Multipart.Forbid); err != nil {
		return reject(err, rules.Multipart, field, content)
	}
	return nil
}

// qpRejection refuses a quoted-printable part that Go's decoder fails on
// (bad_escape: an '=' not followed by two hexadecimal digits or a line
// break, a control octet, a line longer than the decoder's buffer), at the
// offset of the failing line in the raw content.
func qpRejection(field string, raw []byte, off int) *Rejection {
	return &Rejection{Reason: sanitize.BadEscape, Location: rules.Multipart, Field: field, Offset: off,
		Sample: sample(raw, off), Err: &sanitize.Error{Reason: sanitize.BadEscape, Offset: off}}
}

// checkPartNames checks what a handler reads of a part's header: the field
// name and the file name (as mime decodes them), each against the field
// length limit too, the other decoded parameters of the Content-Disposition
// and the Content-Type, and every header value as it came. Where several
// parameters or headers break the policy, the one whose name sorts first
// is reported, so that a request is always refused the same way.
func (p *policy) checkPartNames(pt *mimePart) *Rejection {
	forbid := p.namesForbid()
	field := safeField(pt.name)
	for _, v := range [...]string{pt.name, pt.file} {
		if p.Limits.FieldBytes >= 0 && len(v) > p.Limits.FieldBytes {
			return tooLarge(rules.Multipart, field)
		}
		if err := sanitize.CheckString(v, forbid); err != nil {
			return reject(err, rules.Multipart, field, v)
		}
	}
	for _, params := range [...]map[string]string{pt.dispParams, pt.typeParams} {
		if k, err := firstBad(params, func(v string) error { return sanitize.CheckString(v, forbid) }); err != nil {
			return reject(err, rules.Multipart, field, params[k])
		}
	}
	name, err := firstBad(pt.header, func(vals []string) error {
		for _, v := range vals {
			if err := sanitize.CheckString(v, forbid); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, v := range pt.header[name] {
			if err := sanitize.CheckString(v, forbid); err != nil {
				return reject(err, rules.Multipart, safeField(name), v)
			}
		}
	}
	return nil
}

// firstBad returns the smallest key of m whose value check refuses, and
// check's error for it; "" and nil when check refuses none. It sorts
// nothing: a clean map is walked once.
func firstBad[V any](m map[string]V, check func(V) error) (string, error) {
	var key string
	var first error
	for k, v := range m {
		if first != nil && k >= key {
			continue
		}
		if err := check(v); err != nil {
			key, first = k, err
		}
	}
	return key, first
}
