// Package peers compares utf8guard's validator with other UTF-8
// validators for Go on the inputs of the bench package, in the same run.
//
// It is a module of its own (github.com/utf8guard/utf8guard/bench/peers),
// so that the libraries it measures against never enter the go.mod of
// utf8guard itself; its go.mod replaces utf8guard with the working tree
// (../..). The validators are
//
//	stdlib     unicode/utf8.Valid
//	segmentio  github.com/segmentio/asm/utf8.Valid (AVX2)
//	sonic      github.com/bytedance/sonic/utf8.Validate (SIMD, native code)
//	utf8guard  github.com/utf8guard/utf8guard/sanitize.Valid (Validate(p) == nil,
//	           without building the error; bench/validate_test.go times Validate)
//
// BenchmarkValidate runs them one after the other on every input of
// internal/corpus, under names that the tools of bench/cmd and benchstat
// read:
//
//	BenchmarkValidate/class=ascii/size=1KiB/impl=stdlib
//	BenchmarkValidate/class=ascii/size=1KiB/impl=segmentio
//	BenchmarkValidate/class=ascii/size=1KiB/impl=sonic
//	BenchmarkValidate/class=ascii/size=1KiB/impl=utf8guard
//
// and TestAgree checks that they all give the same answer on those inputs,
// on malformed sequences placed where vector code meets them, on every
// two-octet sequence and on corrupted copies of the inputs. bench/run.sh
// runs these benchmarks together with those of package bench.
//
// From the root of the repository:
//
//	cd bench/peers && go test ./...
//	cd bench/peers && go test -run '^$' -bench Validate -benchmem -cpu=1 .
package peers

import (
	"unicode/utf8"

	sonicutf8 "github.com/bytedance/sonic/utf8"
	asmutf8 "github.com/segmentio/asm/utf8"

	"github.com/utf8guard/utf8guard/sanitize"
)

// An Impl is one UTF-8 validator under comparison.
type Impl struct {
	// Name is the validator's name in benchmark names (impl=Name).
	Name string
	// Valid reports whether p is valid UTF-8.
	Valid func(p []byte) bool
	// SIMD tells whether it is one of the vectorized peers that utf8guard
	// is compared with, rather than the baseline or utf8guard itself.
	SIMD bool
}

// Impls returns the validators, the baseline first and utf8guard last.
func Impls() []Impl {
	return []Impl{
		{"stdlib", utf8.Valid, false},
		{"segmentio", asmutf8.Valid, true},
		{"sonic", sonicutf8.Validate, true},
		{"utf8guard", sanitize.Valid, false},
	}
}
