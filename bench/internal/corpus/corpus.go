// Package corpus generates the inputs of utf8guard's benchmarks: running
// text in one class of scripts at a time (ascii, latin, cyrillic, cjk,
// emoji, mix), valid UTF-8 of an exact size, the same octets in every run
// and on every Go release; and short malformed and boundary sequences, set
// in the places where vectorized validators look at them, for checking
// that validators agree.
//
// Both the benchmarks of package bench and those of the separate module
// bench/peers, which compares utf8guard with other validators, use it: Go's
// rule for internal packages goes by import path, so every package under
// github.com/utf8guard/utf8guard/bench may import it, whatever its module.
package corpus

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Class is a class of benchmark input: text in one group of scripts.
type Class struct {
	// Name is the class's name in benchmark names (class=Name).
	Name string
	// Sizes are the lengths in octets of the class's inputs, ascending.
	Sizes []int

	scripts []script
}

// Sizes of the inputs. ASCII has every size the speed issue names, down to
// the short strings (16 to 48 octets) that HTTP headers, paths and query
// values are made of; the other classes have a short and a long text.
var (
	asciiSizes = []int{16, 20, 24, 26, 28, 32, 48, 64, 256, 1 << 10, 4 << 10, 64 << 10, 1 << 20}
	textSizes  = []int{1 << 10, 64 << 10}
)

var classes = []Class{
	{"ascii", asciiSizes, []script{english}},
	{"latin", textSizes, []script{french, german, spanish, portuguese, polish, czech, vietnamese}},
	{"cyrillic", textSizes, []script{russian, ukrainian, bulgarian, greek}},
	{"cjk", textSizes, []script{chinese, japanese, korean}},
	{"emoji", textSizes, []script{emoji}},
	{"mix", textSizes, []script{english, french, german, vietnamese, russian, greek, chinese, japanese, korean, emoji}},
}

// Classes returns the input classes, in the order the benchmarks run them:
//
//	ascii     English prose
//	latin     French, German, Spanish, Portuguese, Polish, Czech,
//	          Vietnamese: mostly ASCII, some 2-octet (and Vietnamese
//	          3-octet) letters
//	cyrillic  Russian, Ukrainian, Bulgarian, Greek: 2-octet letters
//	          between ASCII spaces and punctuation
//	cjk       Chinese, Japanese, Korean: 3-octet characters
//	emoji     4-octet pictographs with ZWJ, variation selectors, skin
//	          tones and flags
//	mix       sentences of all the above
func Classes() []Class {
	c := make([]Class, len(classes))
	for i, cl := range classes {
		c[i] = cl
		c[i].Sizes = append([]int(nil), cl.Sizes...)
	}
	return c
}

// An Input is one benchmark input.
type Input struct {
	Class string // the class's name, such as "cyrillic"
	Size  string // the size's name, such as "64KiB" (see SizeName)
	Bytes []byte // the text: valid UTF-8 of exactly that size
}

// Inputs returns every benchmark input, in the order of Classes and, within
// a class, in ascending size. Every call makes new slices, which the caller
// owns.
func Inputs() []Input {
	var in []Input
	for _, c := range classes {
		for _, n := range c.Sizes {
			in = append(in, Input{c.Name, SizeName(n), text(c, n)})
		}
	}
	return in
}

// Text returns n octets of valid UTF-8 running text of the named class: the
// input that Inputs returns for that class and size, or the same kind of
// text at any other size. It panics if there is no such class.
func Text(class string, n int) []byte {
	for _, c := range classes {
		if c.Name == class {
			return text(c, n)
		}
	}
	panic(fmt.Sprintf("corpus: no class %q", class))
}

// SizeName names a size in benchmark names: "16B", "1KiB", "64KiB",
// "1MiB" (the largest binary unit that divides it exactly).
func SizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// rng is splitmix64: a fixed sequence, whatever the Go release.
type rng uint64

func (r *rng) intn(n int) int {
	*r += 0x9E3779B97F4A7C15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	return int(z % uint64(n))
}

// text returns exactly size octets of valid UTF-8 running text made of
// sentences from the scripts of c, chosen pseudo-randomly from a seed
// derived from the class's name and the size, with a line break every few
// sentences. The end is cut at a character boundary and padded with spaces.
func text(c Class, size int) []byte {
	r := rng(0)
	for _, ch := range c.Name + "/" + strconv.Itoa(size) {
		r = r*31 + rng(ch)
	}
	var b strings.Builder
	b.Grow(size + 256)
	for b.Len() < size {
		s := c.scripts[r.intn(len(c.scripts))]
		b.WriteString(s.sentences[r.intn(len(s.sentences))])
		if r.intn(6) == 0 {
			b.WriteByte('\n')
		} else {
			b.WriteString(s.sep)
		}
	}
	p := []byte(b.String())
	n := size
	for n < len(p) && n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	p = p[:n]
	for len(p) < size {
		p = append(p, ' ')
	}
	return p
}
