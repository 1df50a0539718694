package upload

import (
	"math"
	"testing"
)

// TestSpoolBudgetCannotWrap: a take is refused without being added when
// it would go past the budget, so a declared length near MaxInt64 cannot
// wrap the count around and open the budget to every later take.
func TestSpoolBudgetCannotWrap(t *testing.T) {
	t.Parallel()
	st := NewStore("", 4<<20)
	if !st.take(1 << 20) {
		t.Fatal("a take within the budget was refused")
	}
	if st.take(math.MaxInt64) {
		t.Errorf("take(MaxInt64) succeeded; used is now %d", st.used.Load())
	}
	if st.take(1 << 40) {
		t.Errorf("a 1 TiB take succeeded under a 4 MiB budget")
	}
	if got := st.used.Load(); got != 1<<20 {
		t.Errorf("used %d after the refused takes, want %d", got, 1<<20)
	}
	st.give(1 << 20)
	if !st.take(4 << 20) {
		t.Errorf("the whole budget, once given back, was refused")
	}
}
