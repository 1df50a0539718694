package normalize

import "golang.org/x/text/unicode/norm"

// UnicodeVersion is the version of the Unicode Character Database that the
// normalization tables come from: norm.Version of golang.org/x/text, which
// picks its tables by Go release ("15.0.0" with x/text v0.43.0 before Go
// 1.27). Text normalized under one version stays normalized under later
// ones for every character assigned in the earlier one (the Unicode
// normalization stability policy); a character unassigned in UnicodeVersion
// is passed through unchanged, as norm does.
const UnicodeVersion = norm.Version
