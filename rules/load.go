package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/sanitize"
)

// MaxFileBytes is the size of the largest policy file that Parse,
// ParseReader and LoadFile accept: 4 MiB, some ten thousand routes.
const MaxFileBytes = 4 << 20

// Parse reads a Table from a JSON policy file, so that operators can change
// the policy of routes without recompiling. The file is checked strictly:
// anything Parse does not understand is an error, never a silent default.
//
// A policy file holds one JSON object with three optional keys:
//
//   - "default": the policy of every route not in "routes" (Table.Default);
//     absent, it is the Default preset.
//   - "routes": an object mapping route keys to their policies
//     (Table.Routes). A key is in the syntax of the router the table is
//     given to, exactly as the route is registered: an Echo route template
//     ("/users/:id", "/files/*"), a ServeMux pattern with an optional
//     method and host ("GET /users/{id}", "example.com/static/"), or the
//     name HTTPConfig.Route gives. Parse refuses only an empty key and
//     control characters; the adapter judges the syntax (an Echo adapter
//     refuses "GET /users/{id}", the net/http adapter "/users/:id"), and
//     the start-up checks (echov4.CheckRoutes, CheckMuxRoutes) that
//     each key names a registered route.
//   - "mode": "monitor" puts every policy, the default and each route's,
//     in monitor mode (Table.AsMonitor), whatever its own "mode" says: a
//     roll-out switches the whole file with one line, and back by
//     removing it. "enforce" is refused: it would read as forcing every
//     policy to enforce, which it could not do without overriding the
//     routes that monitor on purpose; leave the key out instead.
//
// A policy is an object that names a preset and overrides parts of it. Each
// key given replaces the preset's value; keys not given keep it.
//
//   - "preset" (required): "strict", "default" or "unchecked", for Strict,
//     Default and Unchecked.
//
//   - "mode": "enforce" or "monitor" (Policy.Mode).
//
//   - "normalization": "none", "nfc" or "nfkc" (Policy.Normalization).
//
//   - "reject_unnormalized": a boolean (Policy.RejectUnnormalized); true
//     needs a normalization other than "none".
//
//   - "refuse_charsets": a boolean (Policy.RefuseCharsets).
//
//   - "refuse_unlisted_types": a boolean (Policy.RefuseUnlistedTypes):
//     bodies of media types neither checked as text nor listed in
//     "binary_types" are refused (415).
//
//   - "binary_types": an array of media types (Policy.BinaryTypes), as
//     "body_types": the binary bodies a route takes, unread.
//
//   - "refuse_duplicate_keys": a boolean (Policy.RefuseDuplicateKeys).
//
//   - "refuse_ambiguous_parts": a boolean (Policy.RefuseAmbiguousParts).
//
//   - "cookies": a boolean (Policy.Cookies).
//
//   - "headers": an array of header names (Policy.Headers), each a valid
//     HTTP token; names compare without regard to case, and a name listed
//     twice is an error. It replaces the preset's list. The headers are
//     checked only with "header": {"on": true}, which no preset sets:
//     a list without it is an error, since it would check nothing.
//
//   - "body_types", "multipart_text_types": arrays of media types
//     (Policy.BodyTypes, Policy.MultipartTextTypes), "type/subtype",
//     "type/*" or "type/*+suffix" (every subtype with that structured
//     syntax suffix, RFC 6838 section 4.2.8, such as "application/*+yaml"),
//     without parameters. Media types are case-insensitive; Parse stores
//     them in lower case. Each replaces the preset's list.
//
//   - "file_contents": "text" or "data" (Policy.FileContents): whether
//     the contents of multipart file parts are checked as text (those of
//     the "multipart_text_types") or passed on as data. A policy that
//     gives "multipart_text_types" with "data" is refused: under "data"
//     no file part is text, and the list would say otherwise.
//
//   - "limits": an object with any of "body_bytes", "binary_body_bytes",
//     "file_bytes", "fields", "field_bytes", "path_bytes", "query_bytes",
//     "json_depth", "multipart_parts" and "multipart_header_lines" (the
//     fields of Limits). Each is a positive integer, or -1 for no limit. 0 is refused: in Limits a zero
//     field means "the default", which a reader of the file would take
//     for "nothing allowed"; leave the key out to keep the preset's limit
//     (the defaults, in every preset).
//
//   - "path", "query", "form", "json", "xml", "multipart", "body", "header": the
//     Check of that location (see Location.String), an object with any of
//     "on" (a boolean: Check.On), "forbid" (an array of character class
//     names added to the preset's Check.Forbid), "forbid_names" (class
//     names added to the preset's Check.Names: refused in the location's
//     names only, its keys, member names, element and attribute names,
//     field and file names, cookie names; not in "path" or "body", which
//     have none), "allow" (class names taken out of the preset's Forbid
//     and Names, before "forbid" and "forbid_names" add theirs),
//     "refuse_double_encoding" (a boolean; true only for path, query and
//     form, the locations where it applies) and "repair" (a boolean:
//     Check.Repair). The class names are those of sanitize.ParseClass: "nul", "c0", "tab_newline", "del",
//     "c1", "bidi_control", "bidi_mark", "bidi" (both bidi classes),
//     "noncharacter", "private_use", "bom" and "default_ignorable". A
//     class both in "forbid" and in "allow", or listed twice in one list,
//     is an error; allowing a class the preset does not refuse is not,
//     and neither is a class in "allow" and "forbid_names" (allowed in
//     values, refused in names). With "header" turned on, the policy must
//     list headers.
//
//   - "precis": PRECIS profiles for identifier fields (Policy.Precis), an
//     object whose keys are locations ("path", "query", "form", "json",
//     "multipart"), each an object mapping field names to profile names:
//     "username_case_mapped", "username_case_preserved", "opaque_string"
//     or "nickname". A path field is a route parameter name ("id"), a JSON
//     field a JSON pointer ("/user/name", or "" for the whole document).
//     For example: "precis": {"query": {"user": "username_case_mapped"}}.
//
// For example:
//
//	{
//	  "default": {"preset": "default"},
//	  "routes": {
//	    "/strict/*":  {"preset": "strict"},
//	    "/nfc/*":     {"preset": "strict", "normalization": "nfc"},
//	    "/monitor/*": {"preset": "strict", "mode": "monitor"},
//	    "/open/*":    {"preset": "unchecked"},
//	    "/users/:id": {"preset": "strict",
//	                   "query": {"forbid": ["default_ignorable"], "allow": ["bom"], "repair": true},
//	                   "path": {"refuse_double_encoding": true},
//	                   "header": {"on": true},
//	                   "headers": ["User-Agent", "X-Forwarded-For"],
//	                   "limits": {"body_bytes": 4194304, "fields": 100}}
//	  }
//	}
//
// Parse returns a *ParseError that names the key path of the first mistake
// (such as routes["/users/:id"].query.forbid[0]) and its line and column,
// and no Table, for:
//
//   - malformed JSON, anything after the top-level object, a top-level
//     value that is not an object, nesting deeper than the format needs,
//     and a file larger than MaxFileBytes;
//   - text that is not valid UTF-8, a \u escape of a lone surrogate (which
//     encoding/json would turn into U+FFFD silently), and a byte order
//     mark;
//   - a key that is unknown, or given twice in the same object (a route
//     included); keys are case-sensitive, unlike encoding/json's struct
//     fields;
//   - a value of the wrong JSON type, null included;
//   - an unknown preset, mode, normalization, character class or
//     location, and a policy without a preset;
//   - an empty route key, or one that holds a control character;
//   - a top-level "mode" other than "monitor";
//   - a limit that is 0, negative other than -1, not an integer or out of
//     range;
//   - a header name that is not a token, a media type that is not
//     "type/subtype", "type/*" or "type/*+suffix", and a name or type
//     listed twice;
//   - a class both forbidden and allowed, or listed twice;
//     "forbid_names" in "path" or "body";
//     "refuse_double_encoding" true outside path, query and form;
//     "reject_unnormalized" true without a normalization; "header" on with
//     no headers listed, and headers listed with "header" not on;
//   - anything else Table.Validate refuses, which Parse runs on the table
//     it read (the checks of policies written in Go), such as a PRECIS
//     field in a location the policy does not check, or two PRECIS fields
//     whose names differ only in case.
//
// The policies Parse returns are fresh: no two share a slice.
func Parse(data []byte) (*Table, error) {
	return parse("", data)
}

// ParseReader is like Parse, but reads the file from r, up to MaxFileBytes.
func ParseReader(r io.Reader) (*Table, error) {
	data, err := readLimited(r)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return parse("", data)
}

// LoadFile is like Parse, but reads the file name. Its errors name the file,
// in the form "rules: policy.json:9:32: routes[...]...".
func LoadFile(name string) (*Table, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	defer f.Close()
	data, err := readLimited(f)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err) // *fs.PathError names the file
	}
	return parse(name, data)
}

func readLimited(r io.Reader) ([]byte, error) {
	// One octet more than the limit, for parse to see the file is too large.
	return io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
}

// ParseError is the error of Parse, ParseReader and LoadFile for a policy
// file they refuse.
type ParseError struct {
	// File is the name given to LoadFile; empty for Parse and ParseReader.
	File string
	// Key is the key path of the value at fault, such as
	// routes["/users/:id"].query.forbid[0]; empty for a mistake that is not
	// in a value (malformed JSON, invalid UTF-8, a file too large).
	Key string
	// Line and Column give the position of the value at fault (or of the
	// malformation), counting from 1; Column counts octets.
	Line, Column int
	// Err says what is wrong.
	Err error
}

// Error returns a message such as
//
//	rules: routes["/users/:id"].query.forbid[0]: unknown character class "bidy": want one of ...
//
// or, from LoadFile, one that starts with the file name and the position,
// "rules: policy.json:9:32: routes[...]...". A mistake without a key path
// gives its position in either case: "rules: line 3, column 7: syntax
// error: ...".
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("rules: ")
	pos := strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column)
	switch {
	case e.File != "":
		b.WriteString(e.File + ":" + pos + ": ")
	case e.Key == "":
		b.WriteString("line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// loader holds the file being parsed, for positions in errors.
type loader struct {
	file string
	data []byte
}

func parse(file string, data []byte) (*Table, error) {
	ld := &loader{file: file, data: data}
	if len(data) > MaxFileBytes {
		return nil, ld.errAt(MaxFileBytes, "", "file larger than "+strconv.Itoa(MaxFileBytes>>20)+" MiB")
	}
	if err := sanitize.Validate(data); err != nil {
		var se *sanitize.Error
		if !errors.As(err, &se) {
			return nil, ld.errAt(0, "", "not valid UTF-8")
		}
		return nil, ld.errAt(se.Offset, "", "not valid UTF-8 ("+se.Reason.String()+")")
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		return nil, ld.errAt(0, "", "the file starts with a byte order mark: save it as UTF-8 without one")
	}
	if off, ok := checkSurrogateEscapes(data); !ok {
		return nil, ld.errAt(off, "", `a \u escape of a lone surrogate: JSON text must be valid Unicode`)
	}
	root, err := readTree(ld)
	if err != nil {
		return nil, err
	}
	return ld.table(root)
}

func (ld *loader) table(v *jsonValue) (*Table, error) {
	if v.kind != jsonObject {
		return nil, ld.errAt(v.off, "", "the file must hold a JSON object, not "+v.kind.String())
	}
	t := &Table{Default: Default(), Routes: make(map[string]Policy)}
	monitor := false
	for _, m := range v.members {
		path := keyPath("", m.key)
		switch m.key {
		case "default":
			p, err := ld.policy(m.val, path)
			if err != nil {
				return nil, err
			}
			t.Default = p
		case "routes":
			if err := ld.kind(m.val, path, jsonObject); err != nil {
				return nil, err
			}
			for _, r := range m.val.members {
				rpath := keyPath(path, r.key)
				if err := sanitize.CheckString(r.key, sanitize.NUL|sanitize.C0|sanitize.TabNewline|sanitize.DEL|sanitize.C1); err != nil {
					return nil, ld.errAt(r.off, rpath, "a route must not hold control characters")
				}
				p, err := ld.policy(r.val, rpath)
				if err != nil {
					return nil, err
				}
				t.Routes[r.key] = p
			}
		case "mode":
			s, err := ld.str(m.val, path)
			if err != nil {
				return nil, err
			}
			if s != "monitor" {
				return nil, ld.errAt(m.val.off, path, `the top-level "mode" takes only "monitor", which puts every policy in monitor mode; leave it out for each policy's own mode`)
			}
			monitor = true
		default:
			return nil, ld.unknownKey(m, path, topKeys)
		}
	}
	if monitor {
		*t = t.AsMonitor()
	}
	if err := ld.validate(v, t); err != nil {
		return nil, err
	}
	return t, nil
}

var (
	topKeys    = []string{"default", "routes", "mode"}
	policyKeys = []string{
		"preset", "mode", "normalization", "reject_unnormalized", "refuse_charsets",
		"refuse_unlisted_types", "binary_types", "refuse_duplicate_keys",
		"refuse_ambiguous_parts",
		"headers", "cookies", "body_types", "multipart_text_types", "file_contents", "limits",
		"path", "query", "form", "json", "xml", "multipart", "body", "header", "precis",
	}
	checkKeys = []string{"on", "forbid", "forbid_names", "allow", "refuse_double_encoding", "repair"}
	limitKeys = []string{"body_bytes", "binary_body_bytes", "file_bytes", "fields", "field_bytes", "path_bytes", "query_bytes", "json_depth", "multipart_parts", "multipart_header_lines"}
)

var presets = []struct {
	name string
	fn   func() Policy
}{
	{"strict", Strict},
	{"default", Default},
	{"unchecked", Unchecked},
}

// policy reads the policy object v, whose key path is path.
func (ld *loader) policy(v *jsonValue, path string) (Policy, error) {
	var p Policy
	if err := ld.kind(v, path, jsonObject); err != nil {
		return p, err
	}
	// Unknown keys first: a misspelt "preset" is reported as such.
	for _, m := range v.members {
		if !slices.Contains(policyKeys, m.key) {
			return p, ld.unknownKey(m, keyPath(path, m.key), policyKeys)
		}
	}
	preset := v.member("preset")
	if preset == nil {
		return p, ld.errAt(v.off, path, `missing "preset": want "strict", "default" or "unchecked"`)
	}
	name, err := ld.str(preset.val, path+".preset")
	if err != nil {
		return p, err
	}
	found := false
	for _, pr := range presets {
		if pr.name == name {
			p, found = pr.fn(), true
		}
	}
	if !found {
		return p, ld.errAt(preset.val.off, path+".preset", "unknown preset "+strconv.Quote(name)+`: want "strict", "default" or "unchecked"`)
	}

	for _, m := range v.members {
		mpath := keyPath(path, m.key)
		switch m.key {
		case "preset":
		case "mode":
			s, err := ld.str(m.val, mpath)
			if err != nil {
				return p, err
			}
			switch s {
			case "enforce":
				p.Mode = Enforce
			case "monitor":
				p.Mode = Monitor
			default:
				return p, ld.errAt(m.val.off, mpath, "unknown mode "+strconv.Quote(s)+`: want "enforce" or "monitor"`)
			}
		case "normalization":
			s, err := ld.str(m.val, mpath)
			if err != nil {
				return p, err
			}
			switch s {
			case "none":
				p.Normalization = normalize.None
			case "nfc":
				p.Normalization = normalize.NFC
			case "nfkc":
				p.Normalization = normalize.NFKC
			default:
				return p, ld.errAt(m.val.off, mpath, "unknown normalization "+strconv.Quote(s)+`: want "none", "nfc" or "nfkc"`)
			}
		case "reject_unnormalized":
			err = ld.boolean(m.val, mpath, &p.RejectUnnormalized)
		case "refuse_charsets":
			err = ld.boolean(m.val, mpath, &p.RefuseCharsets)
		case "refuse_unlisted_types":
			err = ld.boolean(m.val, mpath, &p.RefuseUnlistedTypes)
		case "binary_types":
			p.BinaryTypes, err = ld.mediaTypes(m.val, mpath)
		case "refuse_duplicate_keys":
			err = ld.boolean(m.val, mpath, &p.RefuseDuplicateKeys)
		case "refuse_ambiguous_parts":
			err = ld.boolean(m.val, mpath, &p.RefuseAmbiguousParts)
		case "cookies":
			err = ld.boolean(m.val, mpath, &p.Cookies)
		case "headers":
			p.Headers, err = ld.headers(m.val, mpath)
		case "body_types":
			p.BodyTypes, err = ld.mediaTypes(m.val, mpath)
		case "multipart_text_types":
			p.MultipartTextTypes, err = ld.mediaTypes(m.val, mpath)
		case "file_contents":
			p.FileContents, err = ld.fileContents(m.val, mpath)
		case "limits":
			err = ld.limits(m.val, mpath, &p.Limits)
		case "precis":
			p.Precis, err = ld.precis(m.val, mpath)
		default:
			l, _ := parseLocation(m.key) // a location: every key is known
			err = ld.check(m.val, mpath, l, p.Location(l))
		}
		if err != nil {
			return p, err
		}
	}

	if p.RejectUnnormalized && p.Normalization == normalize.None {
		return p, ld.errAtMember(v, path, "reject_unnormalized", `rejecting unnormalized text needs "normalization" "nfc" or "nfkc"`)
	}
	if p.FileContents == DataFiles && v.member("multipart_text_types") != nil {
		return p, ld.errAtMember(v, path, "multipart_text_types",
			`"file_contents" is "data": no file part is text, so "multipart_text_types" has no effect; leave it out`)
	}
	if p.Header.On && len(p.Headers) == 0 {
		key := "header"
		if v.member("headers") != nil {
			key = "headers"
		}
		return p, ld.errAtMember(v, path, key, `header checks are on, but "headers" lists no header names`)
	}
	if !p.Header.On && len(p.Headers) > 0 {
		return p, ld.errAtMember(v, path, "headers", `"headers" lists header names, but header checks are off: set "header": {"on": true}, or they are not checked`)
	}
	return p, nil
}

// fileContents reads "file_contents": "text" or "data".
func (ld *loader) fileContents(v *jsonValue, path string) (FileContents, error) {
	s, err := ld.str(v, path)
	if err != nil {
		return 0, err
	}
	for _, f := range [...]FileContents{TextFiles, DataFiles} {
		if s == f.String() {
			return f, nil
		}
	}
	return 0, ld.errAt(v.off, path, "unknown file contents "+strconv.Quote(s)+`: want "text" or "data"`)
}

// precis reads the "precis" object: locations mapping field names to
// profile names.
func (ld *loader) precis(v *jsonValue, path string) ([]PrecisField, error) {
	if err := ld.kind(v, path, jsonObject); err != nil {
		return nil, err
	}
	var out []PrecisField
	for _, lm := range v.members {
		lpath := keyPath(path, lm.key)
		l, ok := parseLocation(lm.key)
		if !ok || (l != Path && l != Query && l != Form && l != JSON && l != Multipart) {
			return nil, ld.unknownKey(lm, lpath, precisLocations)
		}
		if err := ld.kind(lm.val, lpath, jsonObject); err != nil {
			return nil, err
		}
		for _, fm := range lm.val.members {
			fpath := keyPath(lpath, fm.key)
			if l == JSON && fm.key != "" && fm.key[0] != '/' {
				return nil, ld.errAt(fm.off, fpath, `a JSON field is a JSON pointer (RFC 6901) and starts with "/"`)
			}
			if l != JSON && fm.key == "" {
				return nil, ld.errAt(fm.off, fpath, "a field name must not be empty")
			}
			name, err := ld.str(fm.val, fpath)
			if err != nil {
				return nil, err
			}
			prof, err := normalize.ParseProfile(name)
			if err != nil {
				return nil, ld.errAt(fm.val.off, fpath, "unknown PRECIS profile "+strconv.Quote(name)+
					`: want "username_case_mapped", "username_case_preserved", "opaque_string" or "nickname"`)
			}
			out = append(out, PrecisField{Location: l, Field: fm.key, Profile: prof})
		}
	}
	return out, nil
}

var precisLocations = []string{"path", "query", "form", "json", "multipart"}

func parseLocation(name string) (Location, bool) {
	for l := range Location(NumLocations) {
		if l.String() == name {
			return l, true
		}
	}
	return 0, false
}

// check reads the object v into c, the Check of location l.
func (ld *loader) check(v *jsonValue, path string, l Location, c *Check) error {
	if err := ld.kind(v, path, jsonObject); err != nil {
		return err
	}
	var forbid, names, allow sanitize.Class
	var allowList *jsonValue
	for _, m := range v.members {
		mpath := keyPath(path, m.key)
		var err error
		switch m.key {
		case "on":
			err = ld.boolean(m.val, mpath, &c.On)
		case "repair":
			err = ld.boolean(m.val, mpath, &c.Repair)
		case "refuse_double_encoding":
			err = ld.boolean(m.val, mpath, &c.RefuseDoubleEncoding)
			if err == nil && c.RefuseDoubleEncoding && l != Path && l != Query && l != Form {
				err = ld.errAt(m.val.off, mpath, "double encoding is refused only in the path, the query and form bodies")
			}
		case "forbid":
			forbid, err = ld.classes(m.val, mpath)
		case "forbid_names":
			names, err = ld.classes(m.val, mpath)
			if err == nil && !hasNames(l) {
				err = ld.errAt(m.val.off, mpath, "the "+l.String()+` location has no names apart from its text: put the classes in "forbid"`)
			}
		case "allow":
			allow, err = ld.classes(m.val, mpath)
			allowList = m.val
		default:
			err = ld.unknownKey(m, mpath, checkKeys)
		}
		if err != nil {
			return err
		}
	}
	if both := forbid & allow; both != 0 {
		for i, e := range allowList.elems {
			if cl, _ := sanitize.ParseClass(e.str); cl&both != 0 {
				return ld.errAt(e.off, indexPath(keyPath(path, "allow"), i), "class "+strconv.Quote(e.str)+` is also in "forbid"`)
			}
		}
	}
	c.Forbid = c.Forbid&^allow | forbid
	c.Names = c.Names&^allow | names
	return nil
}

// classes reads an array of character class names.
func (ld *loader) classes(v *jsonValue, path string) (sanitize.Class, error) {
	var set sanitize.Class
	err := ld.strings(v, path, func(i int, e *jsonValue) error {
		c, err := sanitize.ParseClass(e.str)
		if err != nil {
			return ld.errAt(e.off, indexPath(path, i), "unknown character class "+strconv.Quote(e.str)+": want one of "+classNames())
		}
		if set&c != 0 {
			return ld.errAt(e.off, indexPath(path, i), "class "+strconv.Quote(e.str)+" listed twice")
		}
		set |= c
		return nil
	})
	return set, err
}

// classNames returns the names of the character classes, quoted and
// separated by commas, "bidi" (both bidi classes) after the bidi ones.
func classNames() string {
	var names []string
	for c := sanitize.Class(1); c&sanitize.AllClasses != 0; c <<= 1 {
		names = append(names, strconv.Quote(c.String()))
		if c == sanitize.BidiMark {
			names = append(names, `"bidi"`)
		}
	}
	return strings.Join(names, ", ")
}

// headers reads an array of header names.
func (ld *loader) headers(v *jsonValue, path string) ([]string, error) {
	list := []string{}
	err := ld.strings(v, path, func(i int, e *jsonValue) error {
		if !isToken(e.str) {
			return ld.errAt(e.off, indexPath(path, i), "invalid header name "+strconv.Quote(e.str))
		}
		for j, h := range list {
			if strings.EqualFold(h, e.str) {
				return ld.errAt(e.off, indexPath(path, i), "header "+strconv.Quote(e.str)+" already listed as "+indexPath(path, j))
			}
		}
		list = append(list, e.str)
		return nil
	})
	return list, err
}

// mediaTypes reads an array of media types or type/* and type/*+suffix
// patterns, in lower case.
func (ld *loader) mediaTypes(v *jsonValue, path string) ([]string, error) {
	list := []string{}
	err := ld.strings(v, path, func(i int, e *jsonValue) error {
		t := strings.ToLower(e.str)
		if msg := checkMediaType(t); msg != "" {
			return ld.errAt(e.off, indexPath(path, i), "invalid media type "+strconv.Quote(e.str)+": "+msg)
		}
		for j, u := range list {
			if u == t {
				return ld.errAt(e.off, indexPath(path, i), "media type "+strconv.Quote(e.str)+" already listed as "+indexPath(path, j))
			}
		}
		list = append(list, t)
		return nil
	})
	return list, err
}

// checkMediaType returns why t is not a media type without parameters
// ("type/subtype", RFC 9110 section 8.3.1), a "type/*" pattern or a
// "type/*+suffix" pattern, or "".
func checkMediaType(t string) string {
	if strings.ContainsAny(t, "; \t") {
		return `want "type/subtype" without parameters`
	}
	typ, sub, ok := strings.Cut(t, "/")
	switch {
	case !ok:
		return `want "type/subtype", such as "application/xml"`
	case typ == "*":
		return `the type must be named; "type/*" matches every subtype`
	case strings.Contains(typ, "*"), sub != "*" && strings.Contains(sub, "*") && !isSuffixPattern(sub):
		return `"*" stands only for a whole subtype, as in "text/*", or before a suffix, as in "application/*+xml"`
	case !isToken(typ) || !isToken(sub):
		return "the type and the subtype must be tokens"
	}
	return ""
}

// isSuffixPattern reports whether the subtype sub is "*+suffix", the
// suffix a token without '+' or '*'.
func isSuffixPattern(sub string) bool {
	suffix, ok := strings.CutPrefix(sub, "*+")
	return ok && isToken(suffix) && !strings.ContainsAny(suffix, "+*")
}

// isToken reports whether s is a token of RFC 9110 section 5.6.2, the
// syntax of header names and of media type names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// limits reads the object v into l.
func (ld *loader) limits(v *jsonValue, path string, l *Limits) error {
	if err := ld.kind(v, path, jsonObject); err != nil {
		return err
	}
	for _, m := range v.members {
		mpath := keyPath(path, m.key)
		var dst *int
		var dst64 *int64
		switch m.key {
		case "body_bytes":
			dst64 = &l.BodyBytes
		case "binary_body_bytes":
			dst64 = &l.BinaryBodyBytes
		case "file_bytes":
			dst64 = &l.FileBytes
		case "fields":
			dst = &l.Fields
		case "field_bytes":
			dst = &l.FieldBytes
		case "path_bytes":
			dst = &l.PathBytes
		case "query_bytes":
			dst = &l.QueryBytes
		case "json_depth":
			dst = &l.JSONDepth
		case "multipart_parts":
			dst = &l.MultipartParts
		case "multipart_header_lines":
			dst = &l.MultipartHeaderLines
		default:
			return ld.unknownKey(m, mpath, limitKeys)
		}
		if dst64 != nil {
			n, err := ld.limit(m.val, mpath, 64)
			if err != nil {
				return err
			}
			*dst64 = n
			continue
		}
		n, err := ld.limit(m.val, mpath, strconv.IntSize)
		if err != nil {
			return err
		}
		*dst = int(n)
	}
	return nil
}

// limit reads one limit: a positive integer that fits in bits bits, or -1.
func (ld *loader) limit(v *jsonValue, path string, bits int) (int64, error) {
	if err := ld.kind(v, path, jsonNumber); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v.str, 10, bits)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, ld.errAt(v.off, path, v.str+" is out of range")
	case err != nil:
		return 0, ld.errAt(v.off, path, "want an integer, not "+v.str)
	case n == 0:
		return 0, ld.errAt(v.off, path, "0 is not a limit: leave the key out to keep the preset's limit, or write -1 for no limit")
	case n < -1:
		return 0, ld.errAt(v.off, path, "want a positive integer, or -1 for no limit, not "+v.str)
	}
	return n, nil
}

// strings reads the array of strings v, calling fn for each element.
func (ld *loader) strings(v *jsonValue, path string, fn func(int, *jsonValue) error) error {
	if err := ld.kind(v, path, jsonArray); err != nil {
		return err
	}
	for i, e := range v.elems {
		if err := ld.kind(e, indexPath(path, i), jsonString); err != nil {
			return err
		}
		if err := fn(i, e); err != nil {
			return err
		}
	}
	return nil
}

func (ld *loader) str(v *jsonValue, path string) (string, error) {
	if err := ld.kind(v, path, jsonString); err != nil {
		return "", err
	}
	return v.str, nil
}

func (ld *loader) boolean(v *jsonValue, path string, dst *bool) error {
	if err := ld.kind(v, path, jsonBool); err != nil {
		return err
	}
	*dst = v.b
	return nil
}

// kind returns an error unless v is of kind k.
func (ld *loader) kind(v *jsonValue, path string, k jsonKind) error {
	if v.kind != k {
		return ld.errAt(v.off, path, "want "+k.String()+", not "+v.kind.String())
	}
	return nil
}

func (ld *loader) unknownKey(m jsonMember, path string, known []string) error {
	q := make([]string, len(known))
	for i, k := range known {
		q[i] = strconv.Quote(k)
	}
	return ld.errAt(m.off, path, "unknown key: want one of "+strings.Join(q, ", "))
}

// errAtMember returns a *ParseError for the member key of the object v at
// path, or for v itself if it has no such member.
func (ld *loader) errAtMember(v *jsonValue, path, key, msg string) *ParseError {
	if m := v.member(key); m != nil {
		return ld.errAt(m.off, keyPath(path, key), msg)
	}
	return ld.errAt(v.off, path, msg)
}

// errAt returns a *ParseError for the value at offset off, whose key path is
// path.
func (ld *loader) errAt(off int, path, msg string) *ParseError {
	line, col := ld.position(off)
	return &ParseError{File: ld.file, Key: path, Line: line, Column: col, Err: errors.New(msg)}
}

// position returns the line and column of offset off, counting from 1.
func (ld *loader) position(off int) (line, col int) {
	off = min(off, len(ld.data))
	before := ld.data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// member returns the member of the object v named key, or nil.
func (v *jsonValue) member(key string) *jsonMember {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i]
		}
	}
	return nil
}

// checkSurrogateEscapes returns the offset of the first \u escape in a
// string of data that encodes a surrogate not part of a high+low pair, and
// false; or 0 and true. Other malformations are left to encoding/json.
func checkSurrogateEscapes(data []byte) (int, bool) {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			r, ok := escapedUnit(data, i)
			switch {
			case !ok:
				i++ // skip the escaped character
			case r < 0xD800 || r > 0xDFFF:
				i += 5
			case r <= 0xDBFF:
				if lo, ok := escapedUnit(data, i+6); ok && 0xDC00 <= lo && lo <= 0xDFFF {
					i += 11
					continue
				}
				return i, false
			default:
				return i, false
			}
		}
	}
	return 0, true
}

// escapedUnit returns the UTF-16 code unit of a \uXXXX escape at data[i:].
func escapedUnit(data []byte, i int) (rune, bool) {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
