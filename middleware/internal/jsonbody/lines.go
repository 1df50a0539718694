package jsonbody

import (
	"bytes"
	"strconv"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/escape"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// JSON lines: a body of JSON values, one per line (NDJSON, JSON Lines),
// as log shippers, bulk APIs and streaming clients send them, under
// application/x-ndjson, application/ndjson, application/jsonl,
// application/jsonlines or application/x-jsonlines.
//
// Such a body belongs to the JSON location, whichever the preset: it is
// checked when the route checks JSON (rules.Policy.JSON), under the JSON
// check's classes, repair, depth limit, duplicate-key refusal and
// normalization, and passed on unchecked when JSON is off. Handlers read
// it two ways: line by line, each line decoded on its own (and, by some,
// a line that does not decode skipped), or with one json.Decoder over the
// whole body, which reads values wherever they end. So:
//
//   - a line ends at a line feed or a carriage return: Go's line readers
//     end lines at LF (dropping a CR before it), but Python's universal
//     newlines and str.splitlines end them at a lone CR too, so a CR
//     ends a line here as well (a CRLF ends one line and leaves a blank
//     one);
//   - each line that holds more than JSON white space is checked as a JSON
//     text of its own (checkJSON): strings, escapes, nesting, member
//     names, as a line reader reads them; no JSON string can hold a raw
//     line feed or carriage return, so a json.Decoder reads the same
//     strings;
//   - a line that leaves a string or an array or object open, followed by
//     another such line, refuses the body (bad_media_type): that is not
//     JSON lines, and the two readers would read different values from
//     it (a json.Decoder one value across the lines, with its member
//     names and nesting, where each line was checked apart). A last line
//     left open is the decoder's to report, as any JSON syntax error.
//
// A rejection's offset is into the whole body, and its field is the JSON
// pointer of the offending value with the line's index in front: "/3" for
// the fourth value, "/3/user/name" for a member of it, as if the body were
// the array of its values (blank lines, which readers skip, are not
// counted).

// IsLines reports whether typ/sub, lower case, is a JSON-lines media
// type.
func IsLines(typ, sub string) bool {
	if typ != "application" {
		return false
	}
	switch sub {
	case "x-ndjson", "ndjson", "jsonl", "jsonlines", "x-jsonlines":
		return true
	}
	return false
}

// CheckLines checks a JSON-lines body under p's JSON check, line by
// line. It returns the body to hand on (repaired where the policy
// repairs) or the first violation.
func CheckLines(body []byte, p *compiled.Policy) ([]byte, *finding.Rejection) {
	c := &p.JSON
	if c.Repair && !sanitize.Valid(body) {
		// Mended whole first, so that each line's own repairs (of lone
		// surrogate escapes) are made in place.
		body = sanitize.ToValid(body)
	}
	n := 0         // non-blank lines so far
	open := -1     // the end of the last non-blank line, if it left a value open
	openLine := -1 // and that line's index
	for start := 0; start < len(body); {
		end := jsonLineEnd(body, start)
		line := body[start:end]
		if !jsonBlank(line) {
			if open >= 0 {
				return nil, &finding.Rejection{Reason: sanitize.BadMediaType, Location: rules.JSON,
					Field: linePointer(openLine, ""), Offset: open, Sample: finding.Sample(body, open), Err: sanitize.ErrBadMediaType}
			}
			if _, rj := checkJSON(line, p); rj != nil {
				return nil, inLine(rj, body, start, n)
			}
			if jsonLineOpen(line) {
				open, openLine = end, n
			}
			n++
		}
		start = end + 1
	}
	// The escapes of an XML decoder (package escape), here so that the
	// rejection names its line.
	if rj := escape.Check(body, rules.JSON, c.Forbid, 0); rj != nil {
		rj.Field = linePointer(lineIndex(body, rj.Offset), rj.Field)
		return nil, rj
	}
	return body, nil
}

// inLine makes rj, found in the line of index n starting at start in
// body, with its offset into the line, a rejection of the body: offset,
// sample and field.
func inLine(rj *finding.Rejection, body []byte, start, n int) *finding.Rejection {
	rj.Offset += start
	if e, ok := rj.Err.(*sanitize.Error); ok && start > 0 {
		e.Offset += start
	}
	rj.Sample = finding.Sample(body, rj.Offset)
	rj.Field = linePointer(n, rj.Field)
	return rj
}

// linePointer is the field of a rejection in the line of index n, at the
// JSON pointer ptr within it.
func linePointer(n int, ptr string) string {
	return "/" + strconv.Itoa(n) + ptr
}

// lineIndex returns the index, among the non-blank lines of body, of the
// line holding body[off].
func lineIndex(body []byte, off int) int {
	n := 0
	for start := 0; start < len(body); {
		end := jsonLineEnd(body, start)
		if off <= end {
			return n
		}
		if !jsonBlank(body[start:end]) {
			n++
		}
		start = end + 1
	}
	return n
}

// jsonLineEnd returns the offset of the line feed or carriage return that
// ends the line starting at body[start], or len(body).
func jsonLineEnd(body []byte, start int) int {
	rest := body[start:]
	k := bytes.IndexByte(rest, '\n')
	if k < 0 {
		k = len(rest)
	}
	if cr := bytes.IndexByte(rest[:k], '\r'); cr >= 0 {
		k = cr
	}
	return start + k
}

// jsonBlank reports whether line holds JSON white space only (a line
// feed or carriage return ends it): a blank line, which JSON-lines
// readers skip.
func jsonBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// jsonLineOpen reports whether line, read as the JSON scanner reads it
// (a backslash in a string escapes the octet after it; brackets count
// outside strings, a closing one never below zero), ends inside a string
// or with an array or object open.
func jsonLineOpen(line []byte) bool {
	depth, inString := 0, false
	for i := 0; i < len(line); i++ {
		if inString {
			k := bytes.IndexAny(line[i:], `"\`)
			if k < 0 {
				return true
			}
			i += k
			if line[i] == '\\' {
				i++ // the escaped octet
			} else {
				inString = false
			}
			continue
		}
		k := bytes.IndexAny(line[i:], `"[]{}`)
		if k < 0 {
			break
		}
		i += k
		switch line[i] {
		case '"':
			inString = true
		case '[', '{':
			depth++
		default:
			if depth > 0 {
				depth--
			}
		}
	}
	return inString || depth > 0
}

// NameLine puts the index of the line of a JSON-lines body that holds
// rj's offset in front of rj's field: for a rejection found in the body as
// a whole (its canonical form), which names a JSON pointer in the line.
func NameLine(body []byte, rj *finding.Rejection) *finding.Rejection {
	rj.Field = linePointer(lineIndex(body, rj.Offset), rj.Field)
	return rj
}
