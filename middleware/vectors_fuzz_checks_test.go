package middleware

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"unicode/utf8"
)

// What FuzzRequest (vectors_fuzz_test.go) asserts of each outcome: that a
// rejection never reached the handler, and that the body, the URL, the
// form and multipart values and the JSON and text bodies an accepted
// request hands a handler hold nothing Strict refuses.

// vecBodyChecked reports whether the middleware under Strict reads and
// checks a body of this Content-Type, by the media type alone (as the
// middleware's documentation states it, not its code): form, JSON, +json,
// multipart/form-data and text/*, the media type read as
// mime.ParseMediaType reads it.
func vecBodyChecked(ct string) bool {
	mt := vecMediaType(ct)
	switch mt {
	case "application/x-www-form-urlencoded", "application/json", "multipart/form-data":
		return true
	}
	return strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json") || strings.HasPrefix(mt, "text/")
}

// vecMediaType is the media type of ct as mime.ParseMediaType and a handler
// using it see it: lower-cased (with strings.ToLower) and trimmed.
func vecMediaType(ct string) string {
	base, _, _ := strings.Cut(ct, ";")
	return strings.TrimSpace(strings.ToLower(base))
}

// problems returns what is wrong with the outcome of the current request.
func (fz *vecFuzzer) problems(req *http.Request, rec *httptest.ResponseRecorder, logs []byte, refBody []byte, refErr error) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	s := fz.seen

	rejections := 0
	for line := range bytes.SplitSeq(logs, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if !json.Valid(line) || json.Unmarshal(line, &m) != nil {
			bad("log line is not a JSON object: %q", line)
			continue
		}
		switch m["message"] {
		case "utf8guard: request rejected", "utf8guard: reading the request body failed":
			rejections++
		}
		for _, c := range line {
			if c < 0x20 || c >= 0x80 {
				bad("raw octet %#x in the log line %q", c, line)
				break
			}
		}
	}
	if rejections > 1 {
		bad("%d rejection lines for one request", rejections)
	}
	if rejections == 1 {
		if s.ran {
			bad("the handler ran for a rejected request")
		}
		if rec.Code != http.StatusBadRequest && rec.Code != http.StatusRequestEntityTooLarge &&
			rec.Code != http.StatusUnsupportedMediaType {
			bad("rejected with status %d", rec.Code)
		}
		return out
	}
	if !s.ran {
		return out // not routed (405 and the like): nothing read
	}

	// The body: what the parser delivered, whole, or nothing.
	if refErr != nil {
		if vecBodyChecked(req.Header.Get("Content-Type")) {
			bad("the handler ran although the body could not be read whole (%v)", refErr)
		}
	} else {
		if s.bodyErr != nil {
			bad("the handler's body read failed: %v", s.bodyErr)
		}
		if !bytes.Equal(s.body, refBody) {
			bad("the handler read the body %q, the parser delivered %q", s.body, refBody)
		}
	}

	// The URL.
	if p := vecFuzzRefused(s.path, true, true); p != "" {
		bad("URL.Path %q: %s", s.path, p)
	}
	for _, v := range s.params {
		if p := vecFuzzRefused(v, false, true); p != "" {
			bad("path parameter %q: %s", v, p)
		}
	}
	for k, vs := range s.query {
		bad2 := func(what, v string, name bool) {
			if p := vecFuzzRefused(v, true, name); p != "" {
				bad("query %s %q: %s", what, v, p)
			}
		}
		bad2("key", k, true)
		for _, v := range vs {
			bad2("value", v, false)
		}
	}

	// Form and multipart values, as net/http parses them.
	for _, vals := range []url.Values{s.form, s.postForm} {
		for k, vs := range vals {
			if p := vecFuzzBodyRefused(k, true); p != "" {
				bad("form key %q: %s (Content-Type %q)", k, p, s.ctype)
			}
			for _, v := range vs {
				if p := vecFuzzBodyRefused(v, false); p != "" {
					bad("form value %q: %s (Content-Type %q)", v, p, s.ctype)
				}
			}
		}
	}
	if mf := s.multipart; mf != nil {
		for k, vs := range mf.Value {
			if p := vecFuzzBodyRefused(k, true); p != "" {
				bad("multipart field name %q: %s", k, p)
			}
			for _, v := range vs {
				if p := vecFuzzBodyRefused(v, false); p != "" {
					bad("multipart field value %q: %s", v, p)
				}
			}
		}
		for k, fhs := range mf.File {
			if p := vecFuzzBodyRefused(k, true); p != "" {
				bad("multipart field name %q: %s", k, p)
			}
			for _, fh := range fhs {
				if p := vecFuzzBodyRefused(fh.Filename, true); p != "" {
					bad("multipart file name %q: %s", fh.Filename, p)
				}
				for _, hv := range fh.Header {
					for _, v := range hv {
						if p := vecFuzzBodyRefused(v, true); p != "" {
							bad("multipart part header %q: %s", v, p)
						}
					}
				}
			}
		}
	}

	// A multipart/form-data body streamed part by part (r.MultipartReader),
	// as an upload handler reads it: every octet it gets before an error
	// counts, not only those of a form that parsed whole.
	if d, params, err := mime.ParseMediaType(s.ctype); err == nil && d == "multipart/form-data" && params["boundary"] != "" {
		for _, p := range vecFuzzStreamProblems(s.body, params["boundary"]) {
			bad("multipart, streamed: %s", p)
		}
	}

	// JSON and text bodies, by media type as a handler reads it.
	mt := vecMediaType(s.ctype)
	switch {
	case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
		if !utf8.Valid(s.body) {
			bad("a JSON body that is not UTF-8: %q", s.body)
		}
		for _, p := range vecFuzzJSONProblems(s.body) {
			bad("JSON body: %s", p)
		}
	case strings.HasPrefix(mt, "text/"):
		if p := vecFuzzBodyRefused(string(s.body), false); p != "" {
			bad("text body: %s", p)
		}
	}
	return out
}

// vecFuzzStreamProblems reads a multipart body part by part and checks
// the names, file names, part headers and the contents of form fields and
// text parts that a streaming handler reads, up to the first error.
func vecFuzzStreamProblems(body []byte, boundary string) []string {
	var out []string
	add := func(what, v string, name bool) {
		if p := vecFuzzBodyRefused(v, name); p != "" {
			out = append(out, fmt.Sprintf("%s %q: %s", what, v, p))
		}
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextPart()
		if err != nil {
			return out
		}
		add("field name", part.FormName(), true)
		add("file name", part.FileName(), true)
		for _, vs := range part.Header {
			for _, v := range vs {
				add("part header", v, true)
			}
		}
		data, _ := io.ReadAll(io.LimitReader(part, 1<<20))
		if part.FileName() == "" || strings.HasPrefix(vecMediaType(part.Header.Get("Content-Type")), "text/") {
			add("part content", string(data), false)
		}
	}
}

// vecFuzzJSONProblems decodes every JSON value of body, as a json.Decoder
// (Echo's Bind) would, and checks each string and key.
func vecFuzzJSONProblems(body []byte) []string {
	var out []string
	hasFFFD := bytes.Contains(body, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
	var walk func(v any)
	checkStr := func(s string, name bool) {
		if p := vecFuzzBodyRefused(s, name); p != "" {
			out = append(out, fmt.Sprintf("string %q: %s", s, p))
		}
		if !hasFFFD && strings.ContainsRune(s, utf8.RuneError) {
			out = append(out, fmt.Sprintf("string %q: U+FFFD that the body does not hold (a lone surrogate, replaced)", s))
		}
	}
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			checkStr(v, false)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				checkStr(k, true)
				walk(x)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		walk(v)
	}
	return out
}

// vecFuzzRefused says what is wrong with a path or query value under
// Strict, or "" if nothing is: not UTF-8, or a character of the URL
// classes (NUL, C0 with TAB, LF and CR, C1, bidi controls; bidi marks too
// when name is set, for the path and query keys; a BOM leading it when bom
// is set). It is written from the preset's documentation, independently of
// package sanitize.
func vecFuzzRefused(s string, bom, name bool) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for i, r := range s {
		if r < 0x20 || vecFuzzC1Bidi(r) || name && vecFuzzMark(r) || bom && i == 0 && r == 0xFEFF {
			return fmt.Sprintf("refused character %U at %d", r, i)
		}
	}
	return ""
}

// vecFuzzBodyRefused is vecFuzzRefused for bodies: TAB, LF and CR are
// allowed, a BOM is. name says that s is a name (a form key, a JSON member
// name, a multipart field or file name or part header), where the bidi
// marks are refused.
func vecFuzzBodyRefused(s string, name bool) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for i, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || vecFuzzC1Bidi(r) || name && vecFuzzMark(r) {
			return fmt.Sprintf("refused character %U at %d", r, i)
		}
	}
	return ""
}

func vecFuzzC1Bidi(r rune) bool {
	switch {
	case 0x80 <= r && r <= 0x9F:
		return true // C1
	case 0x202A <= r && r <= 0x202E, 0x2066 <= r && r <= 0x2069:
		return true // bidi controls (Trojan Source)
	}
	return false
}

// vecFuzzMark reports whether r is a bidi mark (ALM, LRM, RLM): ordinary
// in right-to-left text, refused by Strict in names only.
func vecFuzzMark(r rune) bool { return r == 0x061C || r == 0x200E || r == 0x200F }
