package escape

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/utf8guard/utf8guard/rules"
	"github.com/utf8guard/utf8guard/sanitize"
)

// TestHTMLEntityNamesAreReadAsHTMLReadsThem: every name of xml.HTMLEntity,
// which encoding/xml's non-Strict decoder reads with that map, is read by
// the scan as the characters encoding/xml yields, as far as a policy can
// tell them apart: their classes.
func TestHTMLEntityNamesAreReadAsHTMLReadsThem(t *testing.T) {
	t.Parallel()
	for name, want := range xml.HTMLEntity {
		ref := "&" + name + ";"
		d := xml.NewDecoder(strings.NewReader("<a>" + ref + "</a>"))
		d.Strict, d.Entity = false, xml.HTMLEntity
		var v struct {
			V string `xml:",chardata"`
		}
		if err := d.Decode(&v); err != nil || v.V != want {
			t.Errorf("encoding/xml reads %q as %+q (%v), not %+q", ref, v.V, err, want)
		}
		text, n := htmlNamed([]byte(ref + "x"))
		if got, want := classesOf(text), classesOf(want); got != want || want != 0 && n != len(ref) {
			t.Errorf("htmlNamed(%q) = %+q, %d: classes %v, want %v", ref, text, n, got, want)
		}
	}
}

func classesOf(s string) sanitize.Class {
	var c sanitize.Class
	for _, r := range s {
		c |= sanitize.ClassOf(r)
	}
	return c
}

// TestYAMLBinaryScanAllocatesNothing: text with a '!' and no binary tag,
// the common case where the binary scan runs at all, costs no allocation.
func TestYAMLBinaryScanAllocatesNothing(t *testing.T) {
	body := []byte(`{"title":"Hello! <b>bold</b> and !important, a binary file"}`)
	forbid := rules.Strict().Body.Forbid
	if n := testing.AllocsPerRun(100, func() { _ = binaryEscapes(body, forbid) }); n != 0 {
		t.Errorf("%v allocations per scan, want 0", n)
	}
}

// TestHTMLClassedNamesWithoutSemicolonAreLegacy: htmlNamed skips the table
// for a name without ';' that no legacy name starts, which holds only
// while every classed name without ';' is a legacy one.
func TestHTMLClassedNamesWithoutSemicolonAreLegacy(t *testing.T) {
	for name := range htmlClassed {
		if !strings.HasSuffix(name, ";") && !slices.Contains(htmlLegacyClassed, name) {
			t.Errorf("the classed name %q has no ';' and is not in htmlLegacyClassed", name)
		}
	}
}
