// Package bench holds utf8guard's benchmarks, side by side with the
// baselines the issues name, so that one run gives comparable numbers.
//
// # Validation
//
// BenchmarkValidate compares sanitize.Validate with unicode/utf8.Valid, and
// BenchmarkValidateString compares sanitize.ValidateString with
// utf8.ValidString, on text of one script class at a time:
//
//	ascii     English prose                       64B, 1KiB, 64KiB, 1MiB
//	latin     French, German, Spanish, Polish,    1KiB, 64KiB
//	          Vietnamese...: mostly ASCII, some
//	          2-octet (and Vietnamese 3-octet)
//	cyrillic  Russian, Ukrainian, Greek...:        1KiB, 64KiB
//	          2-octet letters between spaces
//	cjk       Chinese, Japanese, Korean: 3-octet  1KiB, 64KiB
//	emoji     4-octet pictographs with ZWJ,       1KiB, 64KiB
//	          variation selectors, skin tones,
//	          flags
//	mix       sentences of all the above          1KiB, 64KiB
//
// The text is generated from sample sentences written for this package and
// a fixed pseudo-random sequence, so every run sees the same octets.
//
// Benchmark names carry their parameters as key=value pairs, with the
// implementation last so that the two implementations of one input run
// back to back:
//
//	BenchmarkValidate/class=cyrillic/size=1KiB/impl=stdlib
//	BenchmarkValidate/class=cyrillic/size=1KiB/impl=sanitize
//
// benchstat compares them with
//
//	benchstat -col /impl results.txt
//
// and compare.sh runs the benchmarks and prints the throughput ratio
// sanitize/stdlib per class and size (the median of the rounds, and the
// spread of the per-round ratios) without needing benchstat; its -c flag
// fails when a ratio is below 1 or sanitize allocates:
//
//	bench/compare.sh                          # 10 interleaved rounds, -cpu=1
//	bench/compare.sh -n 12 -benchtime=300ms -c
//
// Each round runs every benchmark once, so that the runs of the two
// implementations alternate in time and noise on a shared machine hits both
// alike; go test -count=N would run each benchmark N times in a row. The
// table is printed by the small program in internal/ratio, which reads go
// test's output.
//
// The sample text lives in corpus_test.go; TestInputs checks that each class
// is valid UTF-8 of the promised size and made of the octets its name says.
package bench
