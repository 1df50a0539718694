package rules

import "github.com/utf8guard/utf8guard/sanitize"

// The presets are functions returning fresh values: editing the Policy one
// returns changes nothing else.

// TextTypes returns the media types, outside text/*, that the Strict and
// Default presets list in BodyTypes: text formats sent under application/,
// checked as text under Body. (Forms, JSON, +json, JSON lines, XML, +xml
// and multipart bodies are checked as what they are, listed or not.)
func TextTypes() []string {
	return []string{
		"application/yaml", "application/x-yaml", // RFC 9512, and its older name
		"application/graphql",
		"application/javascript", // RFC 9239 prefers text/javascript, which text/* covers
	}
}

// Strict returns the strict preset, for routes that take text from people
// and pass it to other systems. It checks every location but headers, in
// Enforce mode, and refuses:
//
//   - every malformation: ill-formed UTF-8 and malformed percent-escapes;
//   - everywhere, the bidi controls of the Trojan Source attack
//     (sanitize.BidiControl: embeddings, overrides, isolates), NUL and C1
//     controls;
//   - the bidi marks (sanitize.BidiMark: LRM, RLM, ALM) where text is an
//     identifier or a name: in the whole path, in query and form keys,
//     JSON member names, XML element and attribute names and
//     processing-instruction targets, multipart field names, file names
//     and part headers, and cookie names (Check.Names). Values carry them
//     as right-to-left text does: query and form values, JSON strings, XML
//     text and attribute values, multipart text parts, text bodies, cookie
//     values and checked header values may hold them;
//   - in the path and the query: all C0 controls (TAB, LF and CR
//     included) and a leading BOM;
//   - in bodies (form, JSON, XML, multipart text, text bodies): C0
//     controls other than TAB, LF and CR;
//   - in names and header text (multipart field names, file names and
//     part headers, cookie names and values, checked header values):
//     every C0 control, TAB, LF and CR included;
//   - double encoding ("%252e") in the path;
//   - bodies whose declared charset is not UTF-8 or US-ASCII;
//   - JSON objects with duplicate member names (RefuseDuplicateKeys);
//   - multipart parts whose header gives a field or a parameter twice
//     (RefuseAmbiguousParts);
//   - bodies of any media type it does not check as text, and bodies
//     without a Content-Type (RefuseUnlistedTypes, 415): it checks
//     application/x-www-form-urlencoded, application/json, +json and
//     application/csp-report, JSON lines (application/x-ndjson,
//     application/jsonl and their kin), application/xml, text/xml and +xml, multipart/form-data and
//     multipart/mixed, text/*, and the TextTypes (YAML, GraphQL,
//     JavaScript) as text. List the binary types a route takes (uploads)
//     in BinaryTypes;
//   - in multipart bodies, the contents of text/* file parts as text
//     (TextFiles): a route that stores the files it is sent, rather than
//     reading them, sets FileContents to DataFiles, and then file names
//     are checked and contents passed on as data;
//   - a Content-Encoding other than gzip, x-gzip and deflate, which it
//     decodes before checking (415).
//
// DEL, noncharacters, private use and default-ignorable characters (ZWJ
// and ZWNJ, which Persian and Indic scripts and emoji sequences need,
// among them) are allowed; add them to a location's Forbid where a route
// wants them out. Cookies are checked, name and value, under the header
// classes. Other header checks are off; to check headers, set Header.On
// and list them in Headers. Limits are the defaults (1 MiB of text; 32
// MiB of data: binary bodies, and files whose contents are data). No
// normalization: see Normalization.
func Strict() Policy {
	const (
		url   = sanitize.NUL | sanitize.C0 | sanitize.TabNewline | sanitize.C1 | sanitize.BidiControl | sanitize.BOM
		body  = sanitize.NUL | sanitize.C0 | sanitize.C1 | sanitize.BidiControl
		name  = body | sanitize.TabNewline
		names = sanitize.BidiMark // refused in names only
	)
	return Policy{
		Path:                 Check{On: true, Forbid: url | names, RefuseDoubleEncoding: true},
		Query:                Check{On: true, Forbid: url, Names: names},
		Form:                 Check{On: true, Forbid: body, Names: names},
		JSON:                 Check{On: true, Forbid: body, Names: names},
		XML:                  Check{On: true, Forbid: body, Names: names},
		Multipart:            Check{On: true, Forbid: body, Names: names},
		Body:                 Check{On: true, Forbid: body},
		Header:               Check{Forbid: name, Names: names},
		Cookies:              true,
		BodyTypes:            TextTypes(),
		FileContents:         TextFiles,
		MultipartTextTypes:   []string{"text/*"},
		RefuseCharsets:       true,
		RefuseUnlistedTypes:  true,
		RefuseDuplicateKeys:  true,
		RefuseAmbiguousParts: true,
		Limits:               Limits{}.WithDefaults(),
	}
}

// Default returns the default preset: every location but headers is
// checked, in Enforce mode, for malformations (ill-formed UTF-8, malformed
// percent-escapes) and NUL, and nothing else. It checks the bodies Strict
// checks, the TextTypes included, and passes bodies of other media types
// on unread; bodies that declare a charset other than UTF-8 or US-ASCII
// are passed on unchecked. Limits are the defaults.
func Default() Policy {
	on := Check{On: true, Forbid: sanitize.NUL}
	return Policy{
		Path:               on,
		Query:              on,
		Form:               on,
		JSON:               on,
		XML:                on,
		Multipart:          on,
		Body:               on,
		Header:             Check{Forbid: sanitize.NUL},
		BodyTypes:          TextTypes(),
		FileContents:       TextFiles,
		MultipartTextTypes: []string{"text/*"},
		Limits:             Limits{}.WithDefaults(),
	}
}

// Unchecked returns a policy that checks nothing: the request passes through
// untouched, its body unread. For routes that must see raw octets, such as a
// proxy; every use is an opt-out of the protection and should be rare.
func Unchecked() Policy {
	return Policy{Limits: Limits{}.WithDefaults()}
}
