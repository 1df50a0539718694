// Package finding is the value of a violation the middleware finds in a
// request, the Rejection, with its HTTP status set where it is made, and
// the helpers that make one: the escaped sample and field name that are
// all of the request a log line may hold.
//
// It imports only the rules and sanitize packages: every format engine of
// the middleware reports through it, and it knows none of them.
package finding

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Rejection is the first violation found in a request: what the log line,
// the OnReject hook and the error handler are told. In Monitor mode the
// request is passed on and the Rejection only logged.
type Rejection struct {
	// Reason is the kind of violation, a name of the rejection taxonomy.
	Reason sanitize.Reason
	// Location is the part of the request it was found in.
	Location rules.Location
	// Field is the query or form key, the JSON pointer, the multipart field
	// or the header name; empty for the path and raw bodies. A key that is
	// itself the violation is given hex-escaped, like Sample; one longer
	// than 64 octets is cut there and ends in "...".
	Field string
	// Offset is the 0-based octet offset of the offending sequence in the
	// decoded value, for every reason (the body itself for JSON and text
	// bodies): for bad_escape and double_encoding in the path, the query
	// and form bodies, the number of octets decoded before the offending
	// escape, where its first octet would be once decoded; for a
	// quoted-printable multipart part that Go's reader fails on, where
	// the failing line starts in the decoded content.
	Offset int
	// Sample is the offending octets and a few around them, hex-escaped:
	// printable ASCII other than '\' as is, every other octet as \xNN. It
	// never holds a raw attacker byte. For bad_escape and double_encoding
	// in the path, the query and form bodies it is taken from the escaped
	// text around the offending escape, which it shows as sent ("%zz").
	Sample string
	// Class is the matched character class, for forbidden_char.
	Class sanitize.Class
	// Limit is the limit exceeded, for too_large: the octets of a body,
	// a field or a path, the number of fields or parts, the depth of a
	// JSON or multipart nesting (rules.Limits); zero otherwise.
	Limit int64
	// Route is the route template, such as "/users/:id".
	Route string
	// Mode is the policy's mode: Enforce (rejected) or Monitor (flagged).
	Mode rules.Mode
	// Err is the underlying error, a *sanitize.Error where there is one.
	Err error

	// status is the HTTP status the middleware gave the rejection where
	// it made it, when the reason, location and field do not tell it
	// (statusOf): a count over its limit (400), a file part over its
	// limit (413), a body the server could not spool (500).
	status int
}

// Error returns a one-line description that never holds raw request bytes,
// such as "utf8guard: overlong in query field \"q\" at offset 3".
func (r *Rejection) Error() string {
	msg := "utf8guard: " + r.Reason.String() + " in " + r.Location.String()
	if r.Field != "" {
		msg += " field " + strconv.Quote(r.Field)
	}
	return msg + " at offset " + strconv.Itoa(r.Offset)
}

// Unwrap returns Err, so that errors.Is(rej, sanitize.ErrOverlong) works.
func (r *Rejection) Unwrap() error {
	if r.Err != nil {
		return r.Err
	}
	return r.Reason.Sentinel()
}

// Status is the HTTP status of the rejection: 413 Request Entity Too Large
// for a body over its limit (or a file part over Limits.FileBytes), 415
// Unsupported Media Type for a media type the policy does not accept
// (unsupported_media_type) or a content coding the middleware does not
// decode (unsupported_encoding), 500 Internal Server Error for a form
// parsed before the middleware ran (parsed_before_check: the server's
// mistake) and for a body the server could not spool (body_unreadable, a
// full disk), 503 Service Unavailable for a body over the spool's disk
// budget (spool_full, which a client may send again), 400 Bad Request
// otherwise (a field, a path, a query or a
// JSON nesting over its limit, too many fields or parts, and every other
// reason). A query over its limit is 400, not 414 URI Too Long, as a path
// over its limit is: 413 is for a body over its limit, and every other
// limit answers 400, the rejection's reason (too_large), location
// (query) and limit saying which.
//
// A Rejection an adapter makes itself (Pipeline.Refuse) gets its status
// from its reason, location and field by the same rules.
func (r *Rejection) Status() int {
	if r.status != 0 {
		return r.status
	}
	switch {
	case r.Reason == sanitize.ParsedBeforeCheck:
		return http.StatusInternalServerError // the server's mistake
	case r.Reason == sanitize.UnsupportedMediaType || r.Reason == sanitize.UnsupportedEncoding:
		return http.StatusUnsupportedMediaType
	case r.Reason == sanitize.SpoolFull:
		return http.StatusServiceUnavailable // the server's want of room: a client may try again
	case r.Reason == sanitize.TooLarge && r.Field == "" && isBodyLocation(r.Location):
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}

// ErrTooMany is the Err of a too_large rejection for a count (query, form
// or multipart fields, multipart parts), which is not a body over its size
// limit: it answers 400, not 413. It unwraps to sanitize.ErrTooLarge.
var ErrTooMany = fmt.Errorf("utf8guard: too many fields or parts: %w", sanitize.ErrTooLarge)

// ErrFileTooLarge is the Err of a too_large rejection of one file part over
// Limits.FileBytes: it answers 413, as a body over its limit does. It
// unwraps to sanitize.ErrTooLarge.
var ErrFileTooLarge = fmt.Errorf("utf8guard: file over its size limit: %w", sanitize.ErrTooLarge)

// TooMany is the Rejection of a count over its limit at loc: 400.
func TooMany(loc rules.Location, limit int) *Rejection {
	return &Rejection{Reason: sanitize.TooLarge, Location: loc, Limit: int64(limit), Err: ErrTooMany, status: http.StatusBadRequest}
}

// FileTooLarge is the Rejection of the file part field over limit octets:
// 413.
func FileTooLarge(field string, limit int64) *Rejection {
	return &Rejection{Reason: sanitize.TooLarge, Location: rules.Multipart, Field: field, Limit: limit, Err: ErrFileTooLarge,
		status: http.StatusRequestEntityTooLarge}
}

// Unreadable is the Rejection of a body at loc whose read failed with err:
// the client's failure (400), or, where serverFault says that the server
// could not keep it (a full disk), the server's (500).
func Unreadable(loc rules.Location, err error, serverFault bool) *Rejection {
	rj := &Rejection{Reason: sanitize.BodyUnreadable, Location: loc, Err: err, status: http.StatusBadRequest}
	if serverFault {
		rj.status = http.StatusInternalServerError
	}
	return rj
}

func isBodyLocation(l rules.Location) bool {
	switch l {
	case rules.Form, rules.JSON, rules.XML, rules.Multipart, rules.Body:
		return true
	}
	return false
}

// SampleRadius is how many octets the sample shows on each side of the
// offset.
const SampleRadius = 8

// Sample returns up to SampleRadius octets of p on each side of off,
// escaped as Rejection.Sample documents.
func Sample[T string | []byte](p T, off int) string {
	lo, hi := max(off-SampleRadius, 0), min(off+SampleRadius, len(p))
	if lo > hi {
		lo = hi
	}
	return EscapeBytes(p[lo:hi])
}

// EscapeBytes returns p with every octet outside printable ASCII, and '\',
// written as \xNN.
func EscapeBytes[T string | []byte](p T) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(p)*2)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x20 && c < 0x7F && c != '\\' {
			b = append(b, c)
			continue
		}
		b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
	}
	return string(b)
}

// MaxField is how many octets of a field name a Rejection and the log
// keep.
const MaxField = 64

// SafeField returns s if it is printable ASCII and short, else its escaped
// and bounded form: a field name that is itself the attack is logged like a
// sample. A name longer than MaxField octets is cut there and marked with
// "..." after the cut, so a reader of the log knows it is not whole.
func SafeField(s string) string {
	cut := len(s) > MaxField
	if cut {
		s = s[:MaxField]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '\\' {
			s = EscapeBytes(s)
			break
		}
	}
	if cut {
		return s + "..."
	}
	return s
}

// Reject builds a Rejection for a sanitize error found in text at loc.
func Reject[T string | []byte](err error, loc rules.Location, field string, text T) *Rejection {
	r := &Rejection{Location: loc, Field: field, Err: err}
	if e, ok := err.(*sanitize.Error); ok {
		r.Reason, r.Offset, r.Class = e.Reason, e.Offset, e.Class
	}
	r.Sample = Sample(text, r.Offset)
	return r
}

// RejectEscaped is Reject for an error found percent-decoding raw into
// dec: the sample is dec's at the offset, but for bad_escape and
// double_encoding, which stop the decoding (dec holds nothing then), it is
// raw's around the offending escape, where sanitize.EscapedOffset puts the
// offset (which, as every offset, counts decoded octets).
func RejectEscaped[T string | []byte](err error, loc rules.Location, field, raw string, dec T) *Rejection {
	r := Reject(err, loc, field, dec)
	if r.Reason == sanitize.BadEscape || r.Reason == sanitize.DoubleEncoding {
		r.Sample = Sample(raw, sanitize.EscapedOffset(raw, r.Offset))
	}
	return r
}

// TooLarge is the Rejection of a size over its limit at loc.
func TooLarge(loc rules.Location, field string, limit int64) *Rejection {
	return &Rejection{Reason: sanitize.TooLarge, Location: loc, Field: field, Limit: limit, Err: sanitize.ErrTooLarge}
}

// FirstViolation returns err, or, when err is a UTF-8 error at offset k of
// the decoded text dec, the first character of dec[:k] that forbid
// refuses: the violation at the lowest offset, as sanitize.Check reports
// it for text without escapes.
func FirstViolation(err error, dec []byte, forbid sanitize.Class) error {
	if e, ok := err.(*sanitize.Error); ok && forbid != 0 && IsEncodingReason(e.Reason) && e.Offset <= len(dec) {
		if cerr := sanitize.CheckClasses(dec[:e.Offset], forbid); cerr != nil {
			return cerr
		}
	}
	return err
}

// IsEncodingReason reports whether r is a UTF-8 malformation, the kind a
// Repair check mends.
func IsEncodingReason(r sanitize.Reason) bool {
	return r >= sanitize.Overlong && r <= sanitize.UnexpectedContinuation
}

// BadMediaType is the Rejection of a Content-Type value that cannot be
// read as one media type.
func BadMediaType(loc rules.Location, ct string) *Rejection {
	return &Rejection{Reason: sanitize.BadMediaType, Location: loc, Field: "Content-Type",
		Sample: Sample(ct, 0), Err: sanitize.ErrBadMediaType}
}
