package normalize

import "testing"

// BenchmarkAppendTiny measures the fixed cost of a call on a value of a
// few octets, as a query or form value is.
func BenchmarkAppendTiny(b *testing.B) {
	for _, c := range []struct {
		name string
		f    Form
		s    string
	}{
		{"nfc-nfd", NFC, "e\u0301"},
		{"nfc-nfd2", NFC, "e\u0301e\u0301"},
		{"nfkc-fullwidth", NFKC, "\uff21"},
		{"nfkc-fullwidthB", NFKC, "\uff21B"},
		{"nfc-normal", NFC, "\u00e9t\u00e9"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := []byte(c.s)
			dst := make([]byte, 0, 64)
			for b.Loop() {
				dst = c.f.Append(dst[:0], src)
			}
		})
	}
}

func BenchmarkEnforceTiny(b *testing.B) {
	var e Enforcer
	for _, c := range []struct {
		name string
		p    Profile
		s    string
	}{
		{"nick-fullwidthB", Nickname, "\uff21B"},
		{"user-fullwidthB", UsernameCaseMapped, "\uff21B"},
		{"user-ascii", UsernameCaseMapped, "ab"},
	} {
		b.Run(c.name, func(b *testing.B) {
			src := []byte(c.s)
			dst := make([]byte, 0, 64)
			for b.Loop() {
				dst, _ = e.Append(dst[:0], c.p, src)
			}
		})
	}
}
