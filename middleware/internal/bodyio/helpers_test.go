package bodyio

import (
	"fmt"
	"strings"
)

// leakBody returns a body of size octets that names request id all over,
// so that a read of another request's body shows whose it was.
func leakBody(id, size int) []byte {
	marker := fmt.Sprintf("SECRET-OF-VICTIM-%04d;", id)
	return []byte(strings.Repeat(marker, size/len(marker)+1)[:size])
}
