package adaptertest_test

import (
	"testing"

	"github.com/utf8guard/utf8guard/middleware/adaptertest"
)

// TestReferenceMeetsEveryRow: the kit's reference, the net/http adapter
// around each handler of a ServeMux, meets every row it can run.
func TestReferenceMeetsEveryRow(t *testing.T) {
	t.Parallel()
	adaptertest.Run(t, adaptertest.Reference())
}
