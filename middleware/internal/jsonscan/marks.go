package jsonscan

// Block marks the octets of 64 of a JSON text that give it its shape: bit
// i of each word is set when octet i of the block is that octet.
type Block struct {
	Quote, Open, Close, Colon uint64 // '"', '{', '}', ':'
}

// HasMarks reports whether Marks is a SIMD pass on this machine; where it
// is not, a caller with a faster way of its own should take that.
var HasMarks = marksSIMD

// Marks fills m[k] with the marks of p[64k:64k+64], for the Blocks(len(p))
// blocks of p, which must be at most len(m).
func Marks(p []byte, m []Block) {
	m = m[:Words(len(p))] // bounds: fails before any write
	if len(p) == 0 {
		return
	}
	if HasMarks {
		marks(p, m)
		return
	}
	marksGeneric(p, m)
}

// marksGeneric is Marks an octet at a time.
func marksGeneric(p []byte, m []Block) {
	clear(m)
	for i, c := range p {
		b, bit := &m[i/64], uint64(1)<<(i%64)
		switch c {
		case '"':
			b.Quote |= bit
		case '{':
			b.Open |= bit
		case '}':
			b.Close |= bit
		case ':':
			b.Colon |= bit
		}
	}
}
