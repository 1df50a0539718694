package middleware

import (
	"errors"
	"net/http"

	"github.com/utf8guard/utf8guard/middleware/internal/bodyio"
	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/rules"
)

// readText reads the body of r, which the route checks as text at loc,
// whole through the body limit, and decodes its content coding. It
// returns the text to check, and, in Monitor mode, the body as the client
// sent it (the same slice when it came without a coding), which Monitor
// hands on. In Enforce mode a decoded body's Content-Encoding is removed
// at once: the handler, if it runs, gets the decoded text (handOn).
func (s *scratch) readText(r *http.Request, p *compiled.Policy, loc rules.Location) (text, sent []byte, rj *Rejection) {
	if len(r.Header["Content-Encoding"]) != 0 {
		return s.readCoded(r, p, loc)
	}
	sent, rj = s.readSent(r, p, loc)
	return sent, sent, rj
}

// readSent reads the body of r as it came, whole through the body limit;
// in Monitor mode r.Body then gives it again, or what was read and the
// rest when it is over the limit or its read fails (readBody).
func (s *scratch) readSent(r *http.Request, p *compiled.Policy, loc rules.Location) ([]byte, *Rejection) {
	limit := p.Limits.BodyBytes
	sent, over, err := s.readBody(r, limit, p.Mode == rules.Monitor)
	if err != nil {
		return nil, unreadable(loc, err)
	} else if over {
		return nil, finding.TooLarge(loc, "", limit)
	}
	return sent, nil
}

// readCoded is readText for a request with a Content-Encoding header.
func (s *scratch) readCoded(r *http.Request, p *compiled.Policy, loc rules.Location) (text, sent []byte, rj *Rejection) {
	c, rj := bodyio.RequestCoding(r, loc)
	if rj != nil {
		return nil, nil, rj
	}
	limit, monitor := p.Limits.BodyBytes, p.Mode == rules.Monitor
	if c == bodyio.Identity || c == bodyio.Gzip && bodyio.DecodedBefore(r) {
		// No coding, or one a decoder before utf8guard has decoded: the
		// octets read are the text, which the handler gets (without the
		// header that no longer says what they are).
		if sent, rj = s.readSent(r, p, loc); rj == nil && c != bodyio.Identity && !monitor {
			delete(r.Header, "Content-Encoding")
		}
		return sent, sent, rj
	}
	d := bodyio.NewDecoder()
	defer d.Release()
	var src bodyio.CodedReader
	if monitor {
		if sent, rj = s.readSent(r, p, loc); rj != nil {
			return nil, nil, rj
		}
		src = d.FromSent(sent)
		// As it came, whatever the check finds (handOn does the same
		// once the text has been checked).
		r.Body = bodyio.NewReader(sent)
	} else {
		// Read into the pooled chunks, which the decoder reads: memory
		// of its own only for the decoded text.
		n, over, err := s.work.ReadChunks(r.Body, limit)
		if err != nil {
			s.work.DropChunks()
			return nil, nil, unreadable(loc, errors.Join(bodyio.ErrRead, err))
		} else if over {
			s.work.DropChunks()
			return nil, nil, finding.TooLarge(loc, "", limit)
		}
		src = d.FromChunks(&s.work, n)
	}
	text, over, err := s.work.Decode(d, src, c, limit)
	s.work.DropChunks()
	switch {
	case err != nil:
		rj := unreadable(loc, errors.Join(bodyio.ErrRead, err))
		rj.Field = "Content-Encoding"
		return nil, nil, rj
	case over:
		return nil, nil, finding.TooLarge(loc, "", limit)
	}
	if !monitor {
		delete(r.Header, "Content-Encoding")
	}
	return text, sent, nil
}

// passText passes on a body of a type checked as text that the route does
// not check (its location is off, or it declares a charset other than
// UTF-8 and the policy leaves such bodies unchecked). One of a declared
// length is passed unread, as passUnread passes it: a length over the
// limit is refused before reading, and net/http delivers no more than the
// length declared. One of unknown length (chunked) is read whole through
// the limit first, so that one over it is refused, 413 with its log line,
// rather than handed to the handler cut off at the limit with a read
// error; and its trailers are checked as a checked body's are. Its
// content coding is left as it came: a body that is not checked is not
// decoded.
func (s *scratch) passText(r *http.Request, p *compiled.Policy, loc rules.Location) *Rejection {
	limit := p.Limits.BodyBytes
	if r.ContentLength >= 0 || limit < 0 {
		return s.passUnread(r, p, limit)
	}
	body, over, err := s.readBody(r, limit, p.Mode == rules.Monitor)
	if err != nil {
		return unreadable(loc, err)
	}
	if over {
		return finding.TooLarge(loc, "", limit)
	}
	rj := checkTrailers(r, p)
	s.handOn(r, p, body, body, rj)
	return rj
}
