package app

import (
	"fmt"
	"strings"
)

// CheckExplorer checks a block explorer's base URL: empty, or http(s).
func CheckExplorer(u string) error {
	if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("explorer %q must be an http:// or https:// URL", u)
	}
	return nil
}
