package bench

import "github.com/utf8guard/utf8guard/bench/internal/corpus"

// An input is one benchmark input of internal/corpus, with its text also
// as a string for the string benchmarks.
type input struct {
	class, size string
	p           []byte
	s           string
}

// inputs returns every benchmark input, in the order of corpus.Classes
// and, within a class, in ascending size.
func inputs() []input {
	var in []input
	for _, i := range corpus.Inputs() {
		in = append(in, input{i.Class, i.Size, i.Bytes, string(i.Bytes)})
	}
	return in
}
