package adaptertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
)

// Reads is what a handler read of a request, each through its framework's
// own API. A target's handler fills one and answers 200 with it as JSON
// (Reads.MarshalJSON), in this shape:
//
//	{
//	  "path": "/api/t/42",            // URL.Path
//	  "params": {"id": "42"},         // the path parameters, by the kit's names
//	  "query": {"x": ["1", "2"]},     // the query as a map (c.QueryParams, URL.Query)
//	  "first": {"x": "1"},            // each key's value by the single-value API (c.QueryParam, Get)
//	  "header": {"X-Name": ["..."]},  // the listed header's values
//	  "cookies": {"sid": "..."},      // the cookies, by name (c.Cookies, Request.Cookies)
//	  "body": "...",                  // the body read whole
//	  "content_length": 3,            // Request.ContentLength
//	  "form": {"a": ["1"]},           // the form body's fields, parsed from "body"; null for other bodies
//	  "body_error": ""                // the error reading the body, if any
//	}
//
// Every string in it, map keys included, is written as strconv.Quote
// writes it, without the surrounding quotes ("\xff" for an octet that is
// not UTF-8), so that what the handler read survives JSON octet for octet.
// The kit reads the document of a HEAD request from the handler's writes,
// since no client gets that answer's body.
type Reads struct {
	// Path is URL.Path as the handler reads it; under a prefix stripped
	// before the handler (http.StripPrefix), with the prefix put back.
	Path string
	// Params are the path parameters by the kit's names (Route.Params):
	// c.Param on Echo, r.PathValue on a ServeMux.
	Params map[string]string
	// Query is the query as a map, First each key's value as the
	// single-value API gives it (which may parse the query by its own code,
	// as Echo v5's c.QueryParam does).
	Query url.Values
	First map[string]string
	// Header holds the values of the header the kit's policies list,
	// X-Name, when the request has it.
	Header map[string][]string
	// Cookies are the request's cookies, by name.
	Cookies map[string]string
	// Body is the body read whole; ContentLength the request's.
	Body          string
	ContentLength int64
	// Form is the form body's fields (url-encoded: parsed as PostForm is;
	// multipart: the MultipartForm's values), parsed from Body; nil for
	// other bodies.
	Form url.Values
	// BodyErr is the error reading the body, if any.
	BodyErr string
}

// ListedHeader is the header the kit's policies list and Reads.Header
// holds.
const ListedHeader = "X-Name"

// ReadRequest fills the framework-neutral part of rd from r, as a handler
// of any router gets it: Path, Header, ContentLength, and the body, read
// whole (Body, BodyErr, Form). The handler fills Params, Query, First and
// Cookies through its framework's API.
func (rd *Reads) ReadRequest(r *http.Request) {
	rd.Path = r.URL.Path
	if v := r.Header.Values(ListedHeader); len(v) > 0 {
		rd.Header = map[string][]string{ListedHeader: v}
	}
	rd.ContentLength = r.ContentLength
	if r.Body == nil {
		return
	}
	body, err := io.ReadAll(r.Body)
	rd.Body = string(body)
	if err != nil {
		rd.BodyErr = err.Error()
		return
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/x-www-form-urlencoded":
		rd.Form, _ = url.ParseQuery(rd.Body)
	case "multipart/form-data":
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		if err := r2.ParseMultipartForm(1 << 20); err == nil {
			rd.Form = url.Values(r2.MultipartForm.Value)
		} else {
			rd.BodyErr = "multipart: " + err.Error() + " (boundary " + params["boundary"] + ")"
		}
	}
}

// Reply answers 200 with rd as JSON, for a handler that writes to an
// http.ResponseWriter.
func Reply(w http.ResponseWriter, rd *Reads) {
	b, _ := rd.MarshalJSON()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// wireReads is the JSON shape of Reads.
type wireReads struct {
	Path          string              `json:"path"`
	Params        map[string]string   `json:"params"`
	Query         map[string][]string `json:"query"`
	First         map[string]string   `json:"first"`
	Header        map[string][]string `json:"header"`
	Cookies       map[string]string   `json:"cookies"`
	Body          string              `json:"body"`
	ContentLength int64               `json:"content_length"`
	Form          map[string][]string `json:"form"`
	BodyErr       string              `json:"body_error"`
}

func quote(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func unquote(s string) (string, error) { return strconv.Unquote(`"` + s + `"`) }

func mapOf[V any](m map[string]V, conv func(V) (V, error), key func(string) (string, error)) (map[string]V, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		k2, err := key(k)
		if err != nil {
			return nil, err
		}
		if out[k2], err = conv(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func listOf(f func(string) (string, error)) func([]string) ([]string, error) {
	return func(v []string) ([]string, error) {
		out := make([]string, len(v))
		for i, s := range v {
			var err error
			if out[i], err = f(s); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

func convert(rd *Reads, f func(string) (string, error)) (*wireReads, error) {
	w := &wireReads{ContentLength: rd.ContentLength}
	var err error
	if w.Path, err = f(rd.Path); err != nil {
		return nil, err
	}
	if w.Body, err = f(rd.Body); err != nil {
		return nil, err
	}
	if w.BodyErr, err = f(rd.BodyErr); err != nil {
		return nil, err
	}
	if w.Params, err = mapOf(rd.Params, f, f); err != nil {
		return nil, err
	}
	if w.First, err = mapOf(rd.First, f, f); err != nil {
		return nil, err
	}
	if w.Cookies, err = mapOf(rd.Cookies, f, f); err != nil {
		return nil, err
	}
	if w.Query, err = mapOf(rd.Query, listOf(f), f); err != nil {
		return nil, err
	}
	if w.Form, err = mapOf(rd.Form, listOf(f), f); err != nil {
		return nil, err
	}
	if w.Header, err = mapOf(rd.Header, listOf(f), f); err != nil {
		return nil, err
	}
	return w, nil
}

// MarshalJSON writes rd in the kit's shape.
func (rd *Reads) MarshalJSON() ([]byte, error) {
	w, _ := convert(rd, func(s string) (string, error) { return quote(s), nil })
	return json.Marshal(w)
}

// UnmarshalJSON reads rd from the kit's shape.
func (rd *Reads) UnmarshalJSON(b []byte) error {
	var w wireReads
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	in := Reads{Path: w.Path, Params: w.Params, Query: w.Query, First: w.First, Header: w.Header,
		Cookies: w.Cookies, Body: w.Body, ContentLength: w.ContentLength, Form: w.Form, BodyErr: w.BodyErr}
	out, err := convert(&in, unquote)
	if err != nil {
		return fmt.Errorf("adaptertest: reads: %w", err)
	}
	*rd = Reads{Path: out.Path, Params: out.Params, Query: out.Query, First: out.First, Header: out.Header,
		Cookies: out.Cookies, Body: out.Body, ContentLength: out.ContentLength, Form: out.Form, BodyErr: out.BodyErr}
	return nil
}

// String shows rd as a failing run reports it, every string Go-quoted.
func (rd *Reads) String() string {
	return fmt.Sprintf("  path %+q params %+q\n  query %+q first %+q\n  header %+q cookies %+q\n  body %+q (length %d) form %+q err %q",
		rd.Path, rd.Params, rd.Query, rd.First, rd.Header, rd.Cookies, rd.Body, rd.ContentLength, rd.Form, rd.BodyErr)
}
