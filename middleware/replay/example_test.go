package replay_test

import (
	"fmt"
	"log"

	"github.com/utf8guard/utf8guard/middleware/replay"
	"github.com/utf8guard/utf8guard/rules"
)

// class is the class of a forbidden_char group, after a space.
func class(g replay.Group) string {
	if g.Class == "" {
		return ""
	}
	return " " + g.Class
}

// What a stricter policy would refuse of the demo's recorded traffic that
// the demo's policy passes, and the reverse.
func ExampleRun() {
	deployed, err := rules.LoadFile("../../examples/server/policy.json")
	if err != nil {
		log.Fatal(err)
	}
	proposed, err := rules.LoadFile("testdata/stricter.json")
	if err != nil {
		log.Fatal(err)
	}
	routes, err := replay.LoadRoutes("testdata/demo.routes") // the demo's Echo routes
	if err != nil {
		log.Fatal(err)
	}
	rep, err := replay.Run(replay.Config{
		Policy:  proposed,
		Against: deployed,
		Router:  replay.EchoRoutes(routes...),
	}, "testdata/demo.har")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d requests, %d unreadable\n", rep.Requests, rep.Unreadable)
	for _, g := range rep.NewlyRefused {
		fmt.Println("newly refused:", g.Count, g.Route, g.Location, g.Reason+class(g))
	}
	for _, g := range rep.NoLongerRefused {
		ex := g.Example
		fmt.Println("no longer refused:", g.Count, g.Route, g.Location, g.Reason+class(g))
		fmt.Println("  e.g.", ex.Method, ex.URL, ex.Field, ex.Offset, ex.Sample)
	}
	// Output:
	// 11 requests, 0 unreadable
	// newly refused: 1 /monitor/* query invalid_byte
	// newly refused: 1 /nfc/* form not_normalized
	// newly refused: 1 /nfc/* json not_normalized
	// newly refused: 1 /open/* query forbidden_char nul
	// newly refused: 1 /upload/* multipart invalid_byte
	// no longer refused: 1 /strict/* query forbidden_char nul
	//   e.g. GET /strict/search?q=a%00b q 1 a\x00b
}
