// Package ucd reads the files of the Unicode Character Database (UCD) that
// the quick-check tables of package normalize are computed from, and writes
// those tables: the source of normalize/tables.go. The command
// normalize/internal/mktables runs it; a test of package normalize checks that
// it reproduces the committed file.
//
// A code point is safe in a form (NFC or NFKC) when its
// Canonical_Combining_Class is 0, its quick-check property (NFC_QC or
// NFKC_QC) is Yes, and its compatibility decomposition does not start with
// a non-starter (which the Stream-Safe Text Process counts, as norm does:
// U+FF9E and U+FF9F); surrogate code points never are. The properties come from
// three files of the UCD, under the directory given to Load:
//
//	UnicodeData.txt                      Canonical_Combining_Class (field 3)
//	extracted/DerivedCombiningClass.txt  the same, with a version header
//	DerivedNormalizationProps.txt        NFC_QC and NFKC_QC
//
// UnicodeData.txt has no header and so no version; Load checks that it gives
// every code point the class that DerivedCombiningClass.txt gives it, and
// that the headers of the two other files name the version asked for.
package ucd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Files lists the files of the UCD that Load reads, relative to its
// directory.
var Files = []string{
	"UnicodeData.txt",
	"extracted/DerivedCombiningClass.txt",
	"DerivedNormalizationProps.txt",
}

const maxRune = 0x10FFFF

// Quick-check values, as DerivedNormalizationProps.txt writes them.
const (
	qcYes   = 0 // the default, for a code point the file does not list
	qcNo    = 'N'
	qcMaybe = 'M'
)

// Data holds the properties of every code point, indexed by code point, that
// the tables are computed from.
type Data struct {
	// Version is the version of the UCD, as the file headers name it.
	Version string
	ccc     []uint8 // Canonical_Combining_Class
	nfcQC   []byte  // qcYes, qcNo or qcMaybe
	nfkcQC  []byte
	// leadsNS holds the code points whose full compatibility
	// decomposition starts with a non-starter: a character of class other
	// than 0, or one that combines with the character before it (NFKC_QC
	// Maybe). The Stream-Safe Text Process counts them as non-starters,
	// so they are never safe, whatever their own class and quick check
	// (U+FF9E HALFWIDTH KATAKANA VOICED SOUND MARK: class 0 and NFC_QC Yes,
	// but U+3099 in NFKD).
	leadsNS map[rune]bool
}

// Load reads the files of the UCD in dir and returns their properties. It
// fails if a file is missing or malformed, if a header names another version
// than version, or if UnicodeData.txt and DerivedCombiningClass.txt disagree
// on the Canonical_Combining_Class of any code point.
func Load(dir, version string) (*Data, error) {
	d := &Data{
		Version: version,
		ccc:     make([]uint8, maxRune+1),
		nfcQC:   make([]byte, maxRune+1),
		nfkcQC:  make([]byte, maxRune+1),
	}
	if err := readUnicodeData(filepath.Join(dir, Files[0]), d.ccc); err != nil {
		return nil, err
	}
	derived := make([]uint8, maxRune+1)
	if err := readDerived(filepath.Join(dir, Files[1]), version, func(lo, hi rune, f []string) error {
		if len(f) != 1 {
			return errors.New("want two fields")
		}
		c, err := strconv.ParseUint(f[0], 10, 8)
		if err != nil {
			return err
		}
		for r := lo; r <= hi; r++ {
			derived[r] = uint8(c)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for r, c := range derived {
		if d.ccc[r] != c {
			return nil, fmt.Errorf("ucd: %s gives U+%04X the combining class %d, %s (version %s) gives it %d: %s is not of version %s",
				Files[0], r, d.ccc[r], Files[1], version, c, Files[0], version)
		}
	}
	err := readDerived(filepath.Join(dir, Files[2]), version, func(lo, hi rune, f []string) error {
		var qc []byte
		switch f[0] {
		case "NFC_QC":
			qc = d.nfcQC
		case "NFKC_QC":
			qc = d.nfkcQC
		default:
			return nil // another property
		}
		if len(f) != 2 || len(f[1]) != 1 || f[1][0] != qcNo && f[1][0] != qcMaybe {
			return fmt.Errorf("want N or M for %s", f[0])
		}
		for r := lo; r <= hi; r++ {
			if qc[r] != qcYes {
				return fmt.Errorf("U+%04X listed twice for %s", r, f[0])
			}
			qc[r] = f[1][0]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ms, err := readMappings(filepath.Join(dir, Files[0]))
	if err != nil {
		return nil, err
	}
	d.leadsNS = leadingNonStarters(ms, d.ccc, d.nfkcQC)
	return d, nil
}

// leadingNonStarters returns the code points whose full compatibility
// decomposition starts with a non-starter (see Data.leadsNS).
func leadingNonStarters(ms []Mapping, ccc []uint8, nfkcQC []byte) map[rune]bool {
	to := map[rune][]rune{}
	for _, m := range ms {
		to[m.Rune] = m.To
	}
	firstOf := func(r rune) rune {
		for {
			m, ok := to[r]
			if !ok {
				return r
			}
			r = m[0]
		}
	}
	lead := map[rune]bool{}
	for _, m := range ms {
		if f := firstOf(m.Rune); ccc[f] != 0 || nfkcQC[f] == qcMaybe {
			lead[m.Rune] = true
		}
	}
	return lead
}

// Safe reports whether the code point r is safe in NFKC (nfkc) or NFC.
func (d *Data) Safe(nfkc bool, r rune) bool {
	if r < 0 || r > maxRune || 0xD800 <= r && r <= 0xDFFF {
		return false
	}
	qc := d.nfcQC
	if nfkc {
		qc = d.nfkcQC
	}
	return d.ccc[r] == 0 && qc[r] == qcYes && !d.leadsNS[r]
}

// readUnicodeData reads field 3 of UnicodeData.txt into ccc.
func readUnicodeData(name string, ccc []uint8) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("ucd: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fail := func(n int, msg string) error {
		return fmt.Errorf("ucd: %s:%d: %s", name, n, msg)
	}
	next := rune(0)   // code points below next are done
	first := rune(-1) // the start of a range, after its First line
	var rangeName string
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" {
			continue
		}
		fields := strings.Split(line, ";")
		if len(fields) != 15 {
			return fail(n, "want 15 fields")
		}
		r, err := parseRune(fields[0])
		if err != nil || r < next {
			return fail(n, "bad or out of order code point "+strconv.Quote(fields[0]))
		}
		c, err := strconv.ParseUint(fields[3], 10, 8)
		if err != nil {
			return fail(n, "bad combining class "+strconv.Quote(fields[3]))
		}
		lo := r
		switch cpName := fields[1]; {
		case strings.HasSuffix(cpName, ", First>"):
			if first >= 0 {
				return fail(n, "range in a range")
			}
			first, rangeName = r, strings.TrimSuffix(cpName, ", First>")
		case strings.HasSuffix(cpName, ", Last>"):
			if first < 0 || strings.TrimSuffix(cpName, ", Last>") != rangeName {
				return fail(n, "Last without its First")
			}
			if ccc[first] != uint8(c) {
				return fail(n, "First and Last differ")
			}
			lo, first = first, -1
		default:
			if first >= 0 {
				return fail(n, "First without its Last")
			}
		}
		for x := lo; x <= r; x++ {
			ccc[x] = uint8(c)
		}
		next = r + 1
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ucd: %s: %w", name, err)
	}
	if first >= 0 {
		return fail(n, "First without its Last")
	}
	if n == 0 {
		return fail(n, "empty file")
	}
	return nil
}

// readDerived reads a file of the form of DerivedNormalizationProps.txt, whose
// first line must be "# Name-version.txt", and calls line for each of its
// data lines with the code points and the fields after the first.
func readDerived(name, version string, line func(lo, hi rune, fields []string) error) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("ucd: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	base := strings.TrimSuffix(filepath.Base(name), ".txt")
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if n == 1 {
			v, ok := strings.CutPrefix(text, "# "+base+"-")
			v, ok2 := strings.CutSuffix(v, ".txt")
			if !ok || !ok2 {
				return fmt.Errorf("ucd: %s: first line %q does not name the version", name, text)
			}
			if v != version {
				return fmt.Errorf("ucd: %s is of version %s, not %s", name, v, version)
			}
		}
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, ";")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		lo, hi, err := parseRange(fields[0])
		if err == nil {
			err = line(lo, hi, fields[1:])
		}
		if err != nil {
			return fmt.Errorf("ucd: %s:%d: %v", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ucd: %s: %w", name, err)
	}
	return nil
}

// parseRune parses a code point in hexadecimal, as the UCD writes it.
func parseRune(s string) (rune, error) {
	if len(s) < 4 || len(s) > 6 {
		return 0, fmt.Errorf("bad code point %q", s)
	}
	r, err := strconv.ParseUint(s, 16, 32)
	if err != nil || r > maxRune {
		return 0, fmt.Errorf("bad code point %q", s)
	}
	return rune(r), nil
}

// parseRange parses "XXXX" or "XXXX..YYYY".
func parseRange(s string) (lo, hi rune, err error) {
	a, b, ok := strings.Cut(s, "..")
	if lo, err = parseRune(a); err != nil {
		return 0, 0, err
	}
	if !ok {
		return lo, lo, nil
	}
	if hi, err = parseRune(b); err != nil || hi < lo {
		return 0, 0, fmt.Errorf("bad range %q", s)
	}
	return lo, hi, nil
}

// Generate loads the UCD in dir, checked to be of version version, and
// returns the source of tables.go.
func Generate(dir, version string) ([]byte, error) {
	d, err := Load(dir, version)
	if err != nil {
		return nil, err
	}
	return d.Tables()
}

// Tables returns the source of normalize/tables.go: for NFC and NFKC, the
// code point above which every code point is safe, and below it an index of
// blocks of 256 code points into a shared set of rows of 256 safe bits.
func (d *Data) Tables() ([]byte, error) {
	forms := []struct {
		name string
		nfkc bool
	}{{"nfc", false}, {"nfkc", true}}
	type row = [4]uint64
	rows := []row{{}} // row 0: nothing safe (surrogates; the fallback index)
	rowOf := map[row]uint8{{}: 0}
	limits := make([]rune, len(forms))
	notSafe := make([]int, len(forms))
	for k, fm := range forms {
		for r := rune(0); r <= maxRune; r++ {
			if !d.Safe(fm.nfkc, r) {
				notSafe[k]++
				if !(0xD800 <= r && r <= 0xDFFF) {
					limits[k] = (r>>8 + 1) << 8
				}
			}
		}
	}
	indexLen := max(limits[0], limits[1]) >> 8
	index := make([][]uint8, len(forms))
	for k, fm := range forms {
		index[k] = make([]uint8, indexLen)
		for b := rune(0); b < indexLen; b++ {
			var w row
			for c := rune(0); c < 256; c++ {
				if d.Safe(fm.nfkc, b<<8|c) {
					w[c>>6] |= 1 << (c & 63)
				}
			}
			i, ok := rowOf[w]
			if !ok {
				if len(rows) > 255 {
					return nil, errors.New("ucd: more than 256 distinct rows of safe bits")
				}
				i = uint8(len(rows))
				rowOf[w] = i
				rows = append(rows, w)
			}
			index[k][b] = i
		}
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by mktables from the Unicode Character Database %s; DO NOT EDIT.\n", d.Version)
	fmt.Fprintf(&b, "// To regenerate: go generate ./normalize (see normalize/internal/mktables).\n\n")
	fmt.Fprintf(&b, "package normalize\n\n")
	fmt.Fprintf(&b, "// tablesVersion is the version of the Unicode Character Database the\n")
	fmt.Fprintf(&b, "// tables were computed from; the scanner uses them only when norm.Version\n")
	fmt.Fprintf(&b, "// is the same.\n")
	fmt.Fprintf(&b, "const tablesVersion = %q\n\n", d.Version)
	fmt.Fprintf(&b, "// Every code point at or above the limit of a form is safe in it.\n")
	fmt.Fprintf(&b, "const (\n\tnfcLimit = %#x\n\tnfkcLimit = %#x\n\tindexLen = %d\n)\n\n", limits[0], limits[1], indexLen)
	for k, fm := range forms {
		fmt.Fprintf(&b, "// %sIndex gives, for each block of 256 code points below %sLimit, the\n", fm.name, fm.name)
		fmt.Fprintf(&b, "// row of safeRows that has a bit set for each of its safe code points\n")
		fmt.Fprintf(&b, "// (%d code points, surrogates included, are not safe in %s).\n", notSafe[k], fm.name)
		fmt.Fprintf(&b, "var %sIndex = [indexLen]uint8{\n", fm.name)
		for i := 0; i < int(indexLen); i += 16 {
			b.WriteString("\t")
			for j := i; j < i+16 && j < int(indexLen); j++ {
				fmt.Fprintf(&b, "%#02x, ", index[k][j])
			}
			fmt.Fprintf(&b, "// U+%04X\n", i<<8)
		}
		b.WriteString("}\n\n")
	}
	fmt.Fprintf(&b, "// safeRows holds the distinct blocks of 256 safe bits: bit c&63 of word\n")
	fmt.Fprintf(&b, "// c>>6&3 is set when code point c of the block is safe.\n")
	fmt.Fprintf(&b, "var safeRows = [...][4]uint64{\n")
	for i, w := range rows {
		fmt.Fprintf(&b, "\t{%#016x, %#016x, %#016x, %#016x}, // %d\n", w[0], w[1], w[2], w[3], i)
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
