package middleware

import (
	"strings"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// checkPairs checks an application/x-www-form-urlencoded text, a query or a
// form body, key by key and value by value. Unlike url.ParseQuery, it skips
// nothing: a malformed escape anywhere is a rejection. When the check
// repairs ill-formed UTF-8, it returns the re-encoded text and true.
func (s *scratch) checkPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) (string, bool, *Rejection) {
	n, repair := 0, false
	for rest := raw; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		if n++; lim.Fields >= 0 && n > lim.Fields {
			return "", false, tooLarge(loc, "")
		}
		key, val, _ := strings.Cut(pair, "=")
		s.buf = s.buf[:0]
		kb, rj := s.field(key, loc, "", c, mode, lim)
		if rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && isEncodingReason(rj.Reason)) {
				rj.Field = safeField(key)
				return "", false, rj
			}
			repair = true
		}
		name := key
		if kb != nil && rj == nil {
			name = bytesString(kb) // s.buf is not reset before the value is checked
		}
		if _, rj := s.field(val, loc, name, c, mode, lim); rj != nil {
			if rj.Reason == sanitize.TooLarge || !(c.Repair && isEncodingReason(rj.Reason)) {
				rj.Field = safeField(rj.Field)
				return "", false, rj
			}
			repair = true
		}
	}
	if !repair {
		return "", false, nil
	}
	return rebuildPairs(raw, loc, c, mode)
}

// field decodes and checks one key or value, in s.buf after what is there.
// It returns the decoded value (aliasing s.buf, or raw itself when nothing
// was escaped).
func (s *scratch) field(raw string, loc rules.Location, name string, c *rules.Check, mode sanitize.EscapeMode, lim *rules.Limits) ([]byte, *Rejection) {
	var err error
	var dec []byte
	if !needsDecoding(raw, mode) {
		if lim.FieldBytes >= 0 && len(raw) > lim.FieldBytes {
			return nil, tooLarge(loc, name)
		}
		if err = sanitize.CheckString(raw, c.Forbid); err != nil {
			return nil, reject(err, loc, name, raw)
		}
		return nil, nil
	}
	start := len(s.buf)
	s.buf, err = sanitize.AppendUnescape(s.buf, raw, mode)
	dec = s.buf[start:]
	if err != nil {
		rj := reject(err, loc, name, dec)
		if rj.Reason == sanitize.BadEscape || rj.Reason == sanitize.DoubleEncoding {
			rj.Sample = sample(raw, rj.Offset)
		}
		return nil, rj
	}
	if lim.FieldBytes >= 0 && len(dec) > lim.FieldBytes {
		return nil, tooLarge(loc, name)
	}
	if err = sanitize.CheckClasses(dec, c.Forbid); err != nil {
		return nil, reject(err, loc, name, dec)
	}
	return dec, nil
}

func needsDecoding(s string, mode sanitize.EscapeMode) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c == '+' && mode&^sanitize.RefuseDoubleEncoding == sanitize.EscapeQuery {
			return true
		}
	}
	return false
}

// rebuildPairs re-encodes raw with every ill-formed sequence of every key
// and value replaced by U+FFFD. raw has passed checkPairs but for encoding
// errors, so what fails here is a forbidden character that the repair
// exposed.
func rebuildPairs(raw string, loc rules.Location, c *rules.Check, mode sanitize.EscapeMode) (string, bool, *Rejection) {
	out := make([]byte, 0, len(raw)+16)
	for rest := raw; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, '&')
		}
		key, val, hasVal := strings.Cut(pair, "=")
		for i, part := range [2]string{key, val} {
			if i == 1 {
				if !hasVal {
					break
				}
				out = append(out, '=')
			}
			dec, _ := sanitize.AppendUnescape(nil, part, mode&^sanitize.RefuseDoubleEncoding)
			dec = sanitize.ToValid(dec)
			if err := sanitize.CheckClasses(dec, c.Forbid); err != nil {
				return "", false, reject(err, loc, safeField(key), dec)
			}
			out = sanitize.AppendEscape(out, bytesString(dec), sanitize.EscapeQuery)
		}
	}
	return string(out), true, nil
}
