// Package rules says what utf8guard checks on each route: a Policy per
// location of the request (path, query, form, json, multipart, body,
// header), the character classes each refuses, whether malformed text is
// rejected or repaired, the normalization wanted, the limits, and whether
// violations are enforced or only monitored.
//
// # Presets
//
// Strict, Default and Unchecked return fresh policies; derive yours from
// one by editing the copy, and switch any of them to log-only with
// AsMonitor:
//
//	p := rules.Strict()
//	p.Body.Forbid |= sanitize.DefaultIgnorable
//	rollout := rules.Strict().AsMonitor()
//
// # Routes
//
// A Table maps Echo route templates to policies, with a default for the
// rest. Operators can keep the table in a JSON file (see Parse and LoadFile)
// and change policy without recompiling; the file is checked strictly, and
// an unknown key, preset, class or value is an error at start-up, never a
// silent default.
//
// rules is plain data: it knows nothing of HTTP. The middleware package
// applies it.
package rules
