package middleware

import (
	"errors"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/upload"
	"github.com/utf8guard/utf8guard/rules"
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
	return finding.Unreadable(loc, err, errors.Is(err, upload.ErrSpool))
}
