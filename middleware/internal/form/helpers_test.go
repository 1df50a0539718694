package form

import (
	"fmt"

	"github.com/utf8guard/utf8guard/middleware/internal/finding"
	"github.com/utf8guard/utf8guard/normalize"
	"github.com/utf8guard/utf8guard/rules"
)

// describe is a rejection in a line, for test failures.
func describe(rj *finding.Rejection) string {
	if rj == nil {
		return "accepted"
	}
	return fmt.Sprintf("%v at %d class %v field %q", rj.Reason, rj.Offset, rj.Class, rj.Field)
}

// canonPolicy is the strict preset with normalization n and the edits.
func canonPolicy(n normalize.Form, edits ...func(p *rules.Policy)) rules.Policy {
	p := rules.Strict()
	p.Normalization = n
	for _, e := range edits {
		e(&p)
	}
	return p
}
