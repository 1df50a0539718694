package rules

import (
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/sanitize"
)

// Policies written in Go are checked as strictly as the policy file: the
// checks that Parse makes on each policy and on the table's routes are
// Policy.Validate and Table.Validate, which every adapter calls when it is
// built (and Parse once more, on what it read). A mistake is an error at
// start-up, never a policy that quietly does less than it says.

// ValidationError is the error of Policy.Validate and Table.Validate: what
// is wrong, and where, by the Go names of the fields.
type ValidationError struct {
	// Route is the route key of the policy at fault, when InRoutes; the
	// key itself is at fault when Field is empty.
	Route string
	// InRoutes says that the policy at fault is Table.Routes[Route].
	InRoutes bool
	// Default says that the policy at fault is Table.Default.
	Default bool
	// Field is the path of the field at fault within the policy, by its
	// Go names: "Header.On", "Limits.Fields", "Precis[0].Profile",
	// "BodyTypes[1]". Empty when the route key itself is at fault.
	Field string
	// Err says what is wrong.
	Err error
}

// Error returns a message such as
//
//	rules: route "/users/:id": Precis[0].Profile: zero profile; want one of ...
//
// "rules: default policy: ..." for Table.Default, and "rules: Field: ..."
// for a policy validated alone.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("rules: ")
	switch {
	case e.InRoutes:
		b.WriteString("route " + strconv.Quote(e.Route) + ": ")
	case e.Default:
		b.WriteString("default policy: ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *ValidationError) Unwrap() error { return e.Err }

// Validate reports the first mistake in t as a *ValidationError, or nil:
// the first one of t.Default (see Policy.Validate), else of the first
// route key, in sorted order, that is at fault or whose policy is.
//
// A route key must not be empty, and must be valid UTF-8 without control
// characters (C0, DEL, C1): no router names a route so, and a key a
// log line cannot show as it is would be hard to find. Beyond that, a
// key's syntax is the router's: the Echo adapters refuse keys that do not
// start with "/" or that use another router's syntax ("/users/{id}"), and
// check at start-up that every key names a registered route
// (echov4.CheckRoutes); the net/http adapter checks ServeMux patterns.
//
// A PRECIS path field of a route's policy must name a parameter of its key
// (Policy.CheckPathFields): "user" on "/users/:username" would leave the
// username unchecked. The default policy has no key; the start-up checks
// of the adapters hold its path fields to the registered routes it
// applies to.
func (t Table) Validate() error {
	if err := t.Default.Validate(); err != nil {
		ve := err.(*ValidationError)
		ve.Default = true
		return ve
	}
	keys := make([]string, 0, len(t.Routes))
	for k := range t.Routes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if msg := checkRouteKey(k); msg != "" {
			return &ValidationError{Route: k, InRoutes: true, Err: errors.New(msg)}
		}
		err := t.Routes[k].Validate()
		if err == nil {
			err = t.Routes[k].CheckPathFields([]string{k})
		}
		if err != nil {
			ve := err.(*ValidationError)
			ve.Route, ve.InRoutes = k, true
			return ve
		}
	}
	return nil
}

// checkRouteKey returns why k cannot name a route, or "".
func checkRouteKey(k string) string {
	switch {
	case k == "":
		return "a route key must not be empty"
	case !utf8.ValidString(k):
		return "a route key must be valid UTF-8"
	case sanitize.CheckString(k, sanitize.NUL|sanitize.C0|sanitize.TabNewline|sanitize.DEL|sanitize.C1) != nil:
		return "a route key must not hold control characters"
	}
	return ""
}

// Validate reports the first mistake in p as a *ValidationError, or nil.
// It refuses, as Parse refuses them in a policy file:
//
//   - a Mode other than Enforce and Monitor, a Normalization other than
//     normalize.None, NFC and NFKC, and RejectUnnormalized without a
//     normalization (there is nothing to reject against);
//   - a FileContents other than TextFiles and DataFiles;
//   - Header.On with no Headers (it would check nothing), Headers without
//     Header.On (they would not be checked), a header name that is not an
//     HTTP token, and a name listed twice (ignoring case);
//   - in BodyTypes, BinaryTypes and MultipartTextTypes: an entry that is
//     not "type/subtype", "type/*" or "type/*+suffix" without parameters
//     or spaces, and an entry listed twice (ignoring case);
//   - a limit below -1 (0 is the default, -1 no limit);
//   - a Forbid or Names with bits that are no character class, Names in
//     a location without names (Path, Body), and
//     RefuseDoubleEncoding outside the path, the query and form bodies,
//     the only locations it applies to;
//   - a PRECIS field whose Profile is not a profile (the zero Profile
//     included, which would refuse every value), whose Location takes no
//     PRECIS field (only Path, Query, Form, JSON and Multipart do), whose
//     Field is empty (outside JSON) or not a JSON pointer (in JSON), whose
//     Location p does not check (the profile would never apply), or that
//     names a field an earlier entry names already (names match without
//     regard to case, as binders match them).
func (p Policy) Validate() error {
	bad := func(field, msg string) error {
		return &ValidationError{Field: field, Err: errors.New(msg)}
	}
	if p.Mode != Enforce && p.Mode != Monitor {
		return bad("Mode", "unknown mode "+strconv.Itoa(int(p.Mode))+"; want rules.Enforce or rules.Monitor")
	}
	switch p.Normalization {
	case normalize.None, normalize.NFC, normalize.NFKC:
	default:
		return bad("Normalization", "unknown form "+p.Normalization.Name()+"; want normalize.None, normalize.NFC or normalize.NFKC")
	}
	if p.RejectUnnormalized && p.Normalization == normalize.None {
		return bad("RejectUnnormalized", "rejecting unnormalized text needs a Normalization: normalize.NFC or normalize.NFKC")
	}
	if p.FileContents != TextFiles && p.FileContents != DataFiles {
		return bad("FileContents", "unknown file contents "+strconv.Itoa(int(p.FileContents))+"; want rules.TextFiles or rules.DataFiles")
	}
	for l := range Location(NumLocations) {
		c := p.Location(l)
		name := goLocationNames[l]
		if rest := c.Forbid &^ sanitize.AllClasses; rest != 0 {
			return bad(name+".Forbid", "bits "+strconv.Itoa(int(rest))+" are no character class; want sanitize.NUL, sanitize.C0, ...")
		}
		if rest := c.Names &^ sanitize.AllClasses; rest != 0 {
			return bad(name+".Names", "bits "+strconv.Itoa(int(rest))+" are no character class; want sanitize.BidiMark, sanitize.NUL, ...")
		}
		if c.Names != 0 && !hasNames(l) {
			return bad(name+".Names", "the "+l.String()+" location has no names apart from its text; put the classes in "+name+".Forbid")
		}
		if c.RefuseDoubleEncoding && l != Path && l != Query && l != Form {
			return bad(name+".RefuseDoubleEncoding", "double encoding is refused only in the path, the query and form bodies")
		}
	}
	if p.Header.On && len(p.Headers) == 0 {
		return bad("Header.On", "header checks are on, but Headers lists no header names")
	}
	for i, h := range p.Headers {
		field := "Headers[" + strconv.Itoa(i) + "]"
		if !isToken(h) {
			return bad(field, "invalid header name "+strconv.Quote(h))
		}
		if j := slices.IndexFunc(p.Headers[:i], func(g string) bool { return strings.EqualFold(g, h) }); j >= 0 {
			return bad(field, "header "+strconv.Quote(h)+" already listed as Headers["+strconv.Itoa(j)+"]")
		}
	}
	if !p.Header.On && len(p.Headers) > 0 {
		return bad("Headers", "Headers lists header names, but header checks are off: set Header.On, or they are not checked")
	}
	for _, list := range []struct {
		name  string
		types []string
	}{{"BodyTypes", p.BodyTypes}, {"BinaryTypes", p.BinaryTypes}, {"MultipartTextTypes", p.MultipartTextTypes}} {
		for i, t := range list.types {
			field := list.name + "[" + strconv.Itoa(i) + "]"
			if msg := checkMediaType(strings.ToLower(t)); msg != "" {
				return bad(field, "invalid media type "+strconv.Quote(t)+": "+msg)
			}
			if j := slices.IndexFunc(list.types[:i], func(u string) bool { return strings.EqualFold(u, t) }); j >= 0 {
				return bad(field, "media type "+strconv.Quote(t)+" already listed as "+list.name+"["+strconv.Itoa(j)+"]")
			}
		}
	}
	if field, n, ok := badLimit(p.Limits); !ok {
		return bad("Limits."+field, strconv.FormatInt(n, 10)+" is not a limit: want a positive number, 0 for the default, or -1 for no limit")
	}
	return p.validatePrecis()
}

// goLocationNames are the Go names of the Check fields of Policy, by
// Location.
var goLocationNames = [NumLocations]string{"Path", "Query", "Form", "JSON", "Multipart", "Body", "Header", "XML"}

// badLimit returns the name and value of the first field of l below -1,
// and false; or true. It reads the fields by reflection, so that a limit
// added to Limits is checked without a change here.
func badLimit(l Limits) (string, int64, bool) {
	v := reflect.ValueOf(l)
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanInt() {
			continue
		}
		if n := f.Int(); n < -1 {
			return v.Type().Field(i).Name, n, false
		}
	}
	return "", 0, true
}

// validatePrecis checks p.Precis (see Validate).
func (p Policy) validatePrecis() error {
	for i, f := range p.Precis {
		field := "Precis[" + strconv.Itoa(i) + "]"
		bad := func(sub, msg string) error {
			return &ValidationError{Field: field + sub, Err: errors.New(msg)}
		}
		switch f.Location {
		case Path, Query, Form, JSON, Multipart:
		default:
			return bad(".Location", "PRECIS fields are in the path, the query, form bodies, JSON or multipart bodies, not in "+f.Location.String())
		}
		switch {
		case f.Location == JSON && f.Field != "" && f.Field[0] != '/':
			return bad(".Field", "a JSON field is a JSON pointer (RFC 6901) and starts with \"/\": "+strconv.Quote(f.Field))
		case f.Location != JSON && f.Field == "":
			return bad(".Field", "a field name must not be empty")
		}
		if f.Profile == 0 {
			return bad(".Profile", "zero profile; want "+profileList)
		}
		if _, err := f.Profile.MarshalText(); err != nil {
			return bad(".Profile", "unknown profile "+f.Profile.String()+"; want "+profileList)
		}
		if !p.Location(f.Location).On {
			return bad("", "the "+f.Location.String()+" is not checked ("+goLocationNames[f.Location]+".On is false), so the profile would never apply")
		}
		for j, g := range p.Precis[:i] {
			if g.Location == f.Location && strings.EqualFold(g.Field, f.Field) {
				return bad(".Field", strconv.Quote(f.Field)+" names the "+f.Location.String()+" field of Precis["+strconv.Itoa(j)+"] ("+
					strconv.Quote(g.Field)+"): names match without regard to case, as binders match them")
			}
		}
	}
	return nil
}

// profileList names the PRECIS profiles, for errors.
const profileList = "normalize.UsernameCaseMapped, normalize.UsernameCasePreserved, normalize.OpaqueString or normalize.Nickname"

// validate runs t.Validate on the table Parse built from the file whose
// top-level object is root, and turns a mistake into a *ParseError at the
// position of the value at fault (or, where the file does not hold it,
// because the preset gave it, of the policy that names the preset). The
// loader checks as it reads, with its own messages; this catches whatever
// those checks leave to Validate, so that a file can never hold a policy
// that Go code could not.
func (ld *loader) validate(root *jsonValue, t *Table) error {
	err := t.Validate()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	path, v := "", root
	var pol Policy
	step := func(key string) bool {
		if v == nil || v.kind != jsonObject {
			return false
		}
		m := v.member(key)
		if m == nil {
			return false
		}
		path, v = keyPath(path, key), m.val
		return true
	}
	switch {
	case ve.InRoutes:
		pol = t.Routes[ve.Route]
		if step("routes") && ve.Field == "" {
			// The key itself: point at it.
			if m := v.member(ve.Route); m != nil {
				return ld.errAt(m.off, keyPath(path, ve.Route), ve.Err.Error())
			}
		}
		step(ve.Route)
	case ve.Default:
		pol = t.Default
		step("default")
	}
	for _, part := range strings.Split(ve.Field, ".") {
		name, idx, hasIdx := strings.Cut(part, "[")
		if name == "" {
			continue
		}
		if name == "Precis" && hasIdx {
			i, _ := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if i < len(pol.Precis) && step("precis") && step(pol.Precis[i].Location.String()) {
				f := pol.Precis[i].Field
				if m := v.member(f); m != nil && !strings.HasSuffix(ve.Field, ".Profile") {
					// The field's name is at fault, or the entry: point
					// at the name, as the loader does.
					return ld.errAt(m.off, keyPath(path, f), fieldMsg(ve))
				}
				step(f)
			}
			break
		}
		if !step(snakeCase(name)) {
			break
		}
		if hasIdx {
			i, _ := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			if v.kind != jsonArray || i >= len(v.elems) {
				break
			}
			path, v = indexPath(path, i), v.elems[i]
		}
	}
	return ld.errAt(v.off, path, fieldMsg(ve))
}

// fieldMsg returns what ve says, after the Go name of the field at fault.
func fieldMsg(ve *ValidationError) string {
	if ve.Field != "" {
		return ve.Field + ": " + ve.Err.Error()
	}
	return ve.Err.Error()
}

// snakeCase returns the policy file's name of a Go field name:
// "RefuseDoubleEncoding" is "refuse_double_encoding", "JSONDepth"
// "json_depth".
func snakeCase(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			prevLower := i > 0 && 'a' <= s[i-1] && s[i-1] <= 'z'
			nextLower := i > 0 && i+1 < len(s) && 'a' <= s[i+1] && s[i+1] <= 'z' && 'A' <= s[i-1] && s[i-1] <= 'Z'
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
