package middleware

import (
	"errors"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Rejection is the first violation found in a request: what the log line,
// the OnReject hook and the error handler are told. In Monitor mode the
// request is passed on and the Rejection only logged. Its fields and
// methods are documented at finding.Rejection; Status gives its HTTP
// status.
type Rejection = finding.Rejection

// unreadable is the Rejection of a body at loc whose read failed with err:
// the client's failure (400), or, when the server could not spool it, the
// server's (500).
func unreadable(loc rules.Location, err error) *Rejection {
	return finding.Unreadable(loc, err, errors.Is(err, errSpool))
}

// firstViolation returns err, or, when err is a UTF-8 error at offset k of
// the decoded text dec, the first character of dec[:k] that forbid
// refuses: the violation at the lowest offset, as sanitize.Check reports
// it for text without escapes.
func firstViolation(err error, dec []byte, forbid sanitize.Class) error {
	if e, ok := err.(*sanitize.Error); ok && forbid != 0 && isEncodingReason(e.Reason) && e.Offset <= len(dec) {
		if cerr := sanitize.CheckClasses(dec[:e.Offset], forbid); cerr != nil {
			return cerr
		}
	}
	return err
}

// isEncodingReason reports whether r is a UTF-8 malformation, the kind a
// Repair check mends.
func isEncodingReason(r sanitize.Reason) bool {
	return r >= sanitize.Overlong && r <= sanitize.UnexpectedContinuation
}
