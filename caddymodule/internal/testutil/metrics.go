package testutil

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Scrape reads the admin API's /metrics: every sample, keyed by name and
// sorted labels as written, such as x402_payments_total{network="a",...}.
func Scrape(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://localhost:%d/metrics", AdminPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, b)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out
}

var labelRE = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)

// Sample finds a sample by name and labels (all of them given).
func Sample(samples map[string]float64, name string, labels map[string]string) (float64, bool) {
	for k, v := range samples {
		n, rest, _ := strings.Cut(k, "{")
		if n != name {
			continue
		}
		got := map[string]string{}
		for _, m := range labelRE.FindAllStringSubmatch(rest, -1) {
			got[m[1]] = m[2]
		}
		if len(got) != len(labels) {
			continue
		}
		match := true
		for lk, lv := range labels {
			if got[lk] != lv {
				match = false
			}
		}
		if match {
			return v, true
		}
	}
	return 0, false
}
