package upload

import (
	"bytes"
	"testing"

	"github.com/utf8guard/utf8guard/middleware/internal/compiled"
	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/middleware/internal/upload/mptest"
	"github.com/utf8guard/utf8guard/normalize"
)

// The rebuilt body is read back and checked again in one walk
// (recheckRebuilt). These tests inject faults into a body after it is
// written, as a rebuild that went wrong would leave it, and require that
// the walk itself refuses every one (canonical_syntax), and that
// recheckRebuilt returns what verifyWith, then checkLevel, returned.

// recheckLevel returns a rebuilt body of three parts, the last a nested
// body of two, written with the boundaries OUTERB and INNERB. first is
// the content of the first part.
func recheckLevel(t *testing.T, first string) *rebuiltLevel {
	t.Helper()
	disp := func(name string) map[string][]string {
		return map[string][]string{"Content-Disposition": {`form-data; name="` + name + `"`}}
	}
	inner := &rebuiltLevel{parts: []rebuiltPart{
		{header: disp("c"), content: []byte("three"), name: "c", hasDisp: true},
		{header: disp("d"), content: []byte("four"), name: "d", hasDisp: true},
	}}
	if rj := inner.write(func() string { return "INNERB" }); rj != nil {
		t.Fatal(rj)
	}
	nh := disp("n")
	nh["Content-Type"] = []string{"multipart/mixed; boundary=INNERB"}
	lv := &rebuiltLevel{parts: []rebuiltPart{
		{header: disp("a"), content: []byte(first), name: "a", hasDisp: true},
		{header: disp("b"), content: []byte("two"), name: "b", hasDisp: true},
		{header: nh, content: inner.out, name: "n", hasDisp: true, nested: inner},
	}}
	if rj := lv.write(func() string { return "OUTERB" }); rj != nil {
		t.Fatal(rj)
	}
	if _, ok := lv.verify(); !ok {
		t.Fatalf("the body written does not read back: %q", lv.out)
	}
	return lv
}

// TestMultipartRecheckFaults: a rebuilt body that a handler's parser
// would not read as the parts written is refused by the walk that checks
// it again, whatever differs: a content, a header, a part too many or
// too few, a nested body, a transfer encoding, the end.
func TestMultipartRecheckFaults(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(mptest.StrictForm(normalize.NFC)())
	faults := []struct {
		name     string
		old, new string
	}{
		{"content differs", "two", "twO"},
		{"content longer", "two", "two\r\n"},
		{"part too many", "two", "two\r\n--OUTERB\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nx"},
		{"part too few", "--OUTERB\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\ntwo\r\n", ""},
		{"header differs", `name="b"`, `name="B"`},
		{"header added", "name=\"b\"\r\n", "name=\"b\"\r\nX-Extra: 1\r\n"},
		{"disposition gone", "Content-Disposition: form-data; name=\"b\"\r\n", ""},
		{"quoted-printable", "name=\"b\"\r\n\r\ntwo", "name=\"b\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ntwo=3D"},
		{"bad quoted-printable", "name=\"b\"\r\n\r\ntwo", "name=\"b\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ"},
		{"nested content differs", "three", "threE"},
		{"nested boundary differs", "boundary=INNERB", "boundary=INNERC"},
		{"nested part too many", "four", "four\r\n--INNERB\r\n\r\nx"},
		{"syntax error", "--OUTERB\r\nContent-Disposition: form-data; name=\"b\"", "--OUTERB\r\nbroken\r\nContent-Disposition: form-data; name=\"b\""},
		{"no closing delimiter", "\r\n--OUTERB--\r\n", ""},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			lv := recheckLevel(t, "one")
			if !bytes.Contains(lv.out, []byte(f.old)) {
				t.Fatalf("%q not in %q", f.old, lv.out)
			}
			lv.out = bytes.Replace(lv.out, []byte(f.old), []byte(f.new), 1)
			n := mpCounts{mem: new(mpMem)}
			n.want[0] = lv
			// The walk alone, without recheckRebuilt's fallback to
			// verifyWith.
			if rj := checkLevel(p, lv.out, lv.boundary, 0, &n); rj == nil || rj.Reason.String() != "canonical_syntax" {
				t.Errorf("walk: %v, want canonical_syntax", rj)
			}
			rj := recheckRebuilt(p, lv, new(mpMem))
			if rj == nil || rj.Reason.String() != "canonical_syntax" {
				t.Fatalf("recheckRebuilt: %v, want canonical_syntax", rj)
			}
			if field, ok := lv.verify(); !ok && rj.Field != finding.SafeField(field) {
				t.Errorf("recheckRebuilt names %q, verifyWith %q", rj.Field, field)
			}
		})
	}
}

// TestMultipartRecheckOrder: a body that reads back is checked again
// (its rejection is the check's), and one that does not is refused as
// such (canonical_syntax), even where a part the check refuses comes
// before the part that differs, as when the body was verified whole
// before it was checked.
func TestMultipartRecheckOrder(t *testing.T) {
	t.Parallel()
	p := compiled.Compile(mptest.StrictForm(normalize.NFC)())
	if rj := recheckRebuilt(p, recheckLevel(t, "one"), new(mpMem)); rj != nil {
		t.Fatalf("a clean body: %v", rj)
	}
	lv := recheckLevel(t, "o\xffne") // ill-formed: the check refuses the first part
	rj := recheckRebuilt(p, lv, new(mpMem))
	if rj == nil || rj.Reason.String() == "canonical_syntax" || rj.Field != "a" {
		t.Fatalf("a body that reads back, refused by the check: %v, want the check's rejection of a", rj)
	}
	lv.out = bytes.Replace(lv.out, []byte("two"), []byte("twO"), 1)
	if rj := recheckRebuilt(p, lv, new(mpMem)); rj == nil || rj.Reason.String() != "canonical_syntax" || rj.Field != "b" {
		t.Errorf("the check refuses a, b differs: %v, want canonical_syntax at b", rj)
	}
	// Encoded, but read back as written (decoded, as a handler reads
	// it): accepted, by verifyWith and the walk alike.
	lv = recheckLevel(t, "one")
	lv.out = bytes.Replace(lv.out, []byte("name=\"b\"\r\n\r\ntwo"),
		[]byte("name=\"b\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nt=77o="), 1)
	if _, ok := lv.verify(); !ok {
		t.Fatalf("verifyWith refuses %q", lv.out)
	}
	if rj := recheckRebuilt(p, lv, new(mpMem)); rj != nil {
		t.Errorf("a body that reads back as written, encoded: %v", rj)
	}
}
