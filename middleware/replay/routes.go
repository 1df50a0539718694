package replay

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// LoadRoutes reads a list of routes from the file name: one route a line
// (a ServeMux pattern for MuxRoutes, an Echo route for EchoRoutes), with
// white space around it trimmed; empty lines and lines that start with
// '#' are skipped. A file that lists no route is an error.
func LoadRoutes(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	var routes []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		for i := 0; i < len(line); i++ {
			if c := line[i]; c < ' ' && c != '\t' || c == 0x7f {
				return nil, fmt.Errorf("replay: %s:%d: control octet 0x%02x in a route", name, n, c)
			}
		}
		routes = append(routes, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("replay: %s lists no route", name)
	}
	return routes, nil
}
