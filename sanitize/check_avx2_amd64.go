//go:build amd64 && !purego

package sanitize

// checkAVX2 is checkAVX512 for CPUs with AVX2 and not AVX-512 (n >= 67,
// the same contract, and masks of 64 octets): one pass that validates as
// validAVX2 does and flags the characters that may be in a set of classes,
// whose fusedTable is t and attnTable a.
//
// AVX2 has no 64-entry table lookup (VPERMB) and no mask registers, so it
// goes 64 octets at a time as two halves of 32, and runs the tiers of
// fused.go only where they can find something. A run of ASCII goes 256
// octets at a time: the octets 00-0F that are in no class (TAB, LF, CR:
// fusedTable's asciiLift) are lifted, and the signed minimum of the run is
// compared with asciiFloor, at or below which are the ASCII characters of
// the classes and the non-ASCII octets; only where one is, is it looked up
// in a, which is exact for ASCII octets. A block without octets E0-FF
// (and without them in the three octets before it) is validated as
// validAVX2 does (TWOPAIRS), and the nibbles of its octets are looked up
// in fusedTable's attnCont: a with bit 7 set for the continuation octets,
// which TWOPAIRS wants. In a block with other octets, a
// looked up by the high nibbles that validation has already computed tells
// whether a character of the classes may start in either half (a is exact
// for first octets); then the high nibbles of the two octets after each
// such lead octet, looked up in fusedTable's after, tell whether it may
// still be one, and only then does the half get tier 1 and tier 2, each
// table lookup by six bits four VPSHUFB lookups of the low nibble and
// three VPBLENDVB that choose among them. Text whose characters start like
// none of the classes (most scripts, and emoji under the strict preset,
// whose U+200D and U+2764 start as the bidi controls do but go on
// otherwise) costs validation and two or three lookups a half. VPMOVMSKB makes the masks.
//
//go:noescape
func checkAVX2(p *byte, n, start int, t *fusedTable, a *attnTable) (off int, mask uint64)

// fusedBlocks runs the fused kernel of kernel (avx512Kernel: checkAVX512;
// avx2Kernel: checkAVX2) on p[start:n], with the tables of one set of
// classes.
func fusedBlocks(kernel int, p *byte, n, start int, t *fusedTable, a *attnTable) (off int, mask uint64) {
	if kernel == avx512Kernel {
		return checkAVX512(p, n, start, t)
	}
	return checkAVX2(p, n, start, t, a)
}
