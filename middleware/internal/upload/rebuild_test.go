package upload

import (
	"bytes"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
)

// TestMultipartRebuildBoundary: the fresh boundary occurs in no header
// block and no content: a candidate that does is drawn again, and after
// too many the body is refused rather than written with one.
func TestMultipartRebuildBoundary(t *testing.T) {
	t.Parallel()
	lv := &rebuiltLevel{parts: []rebuiltPart{
		{header: map[string][]string{"Content-Disposition": {`form-data; name="HEADB"`}}, content: []byte("x"), name: "HEADB", hasDisp: true},
		{header: map[string][]string{"Content-Disposition": {`form-data; name="c"`}}, content: []byte("--CONTENTB\r\n"), name: "c", hasDisp: true},
	}}
	draws := []string{"HEADB", "CONTENTB", "FRESH"}
	draw := func() string { d := draws[0]; draws = draws[1:]; return d }
	if rj := lv.write(draw); rj != nil {
		t.Fatal(rj)
	}
	if lv.boundary != "FRESH" {
		t.Errorf("boundary %q, want FRESH (the first that occurs nowhere)", lv.boundary)
	}
	if _, ok := lv.verify(); !ok {
		t.Errorf("the body written does not read back: %q", lv.out)
	}
	if rj := lv.write(func() string { return "CONTENTB" }); rj == nil || rj.Reason.String() != "canonical_syntax" {
		t.Errorf("every candidate occurs: %v, want canonical_syntax", rj)
	}
	// verify catches a body that does not read back as its parts.
	lv.out = bytes.Replace(lv.out, []byte("--CONTENTB"), []byte("\r\n--FRESH\r\nX: 1\r\n\r\n"), 1)
	if _, ok := lv.verify(); ok {
		t.Error("verify accepts a body with a part too many")
	}
}

// TestMultipartRebuildMixed: a multipart/mixed body is rebuilt as it came,
// multipart/mixed with a fresh boundary, its parts without a
// Content-Disposition left without one.
func TestMultipartRebuildMixed(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(mptest.StrictForm(normalize.NFC)())
	body := mptest.Build("BB", "\r\n", mptest.Spec{Header: nil, Data: "e\u0301"}, mptest.Spec{Header: []string{"Content-Type: text/plain; charset=utf-8"}, Data: mptest.QPAll("\r\n--BB\r\n" + mptest.Smuggled("\r\n"))})
	body = strings.Replace(body, "charset=utf-8", "charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable", 1)
	r := req(http.MethodPost, "/", "multipart/mixed; boundary=BB; type=\"text/plain\"", strings.NewReader(body))
	if rj := checkMultipart(r, []byte(body), p); rj != nil {
		t.Fatal(rj)
	}
	out, rj := canonMultipart(p, r, []byte(body))
	if rj != nil || out == nil {
		t.Fatalf("canonMultipart = %q, %v", out, rj)
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" || params["type"] != "text/plain" || params["boundary"] == "BB" {
		t.Fatalf("Content-Type %q", r.Header.Get("Content-Type"))
	}
	got := mptest.Stream(multipart.NewReader(bytes.NewReader(out), params["boundary"]), 0, nil)
	if len(got) != 2 || string(got[0].Content) != "\u00e9" || string(got[1].Content) != "\r\n--BB\r\n"+mptest.Smuggled("\r\n") {
		t.Errorf("parts %+v", got)
	}
	for _, g := range got {
		if g.Header.Get("Content-Disposition") != "" || g.Header.Get("Content-Transfer-Encoding") != "" {
			t.Errorf("part header %q", g.Header)
		}
	}
}
