package x402cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
)

// printDoctor writes the reports as text: per network its shared
// findings, each scheme offered or missing (with the fix of each
// finding that is not ok), and whether the routes' schemes can be served.
func printDoctor(out io.Writer, reports []*networkReport) error {
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "network %s (chain %d, token %s)\n", r.Network, r.ChainID, r.Token)
		for _, f := range r.Findings {
			writeFinding(&b, f, label(f))
		}
		netFailed := r.networkFailed()
		for _, s := range r.Schemes {
			switch {
			case s.Offered:
				var have []string
				for _, f := range s.Findings {
					if f.Status == doctor.OK {
						have = append(have, f.Subject)
					}
				}
				line := "  offered  " + s.Scheme
				if len(have) > 0 {
					line += ": " + strings.Join(have, ", ")
				}
				b.WriteString(line + "\n")
			case netFailed && !anyFailed(s.Findings):
				fmt.Fprintf(&b, "  missing  %s: blocked by the network's findings above\n", s.Scheme)
			}
			for _, f := range s.Findings {
				if f.Status != doctor.OK {
					writeFinding(&b, f, s.Scheme+": "+label(f))
				}
			}
		}
		if len(r.Required) > 0 {
			var unserved, unknown []string
			for _, s := range r.Required {
				switch {
				case !r.known(s):
					unknown = append(unknown, s)
				case !r.served(s):
					unserved = append(unserved, s)
				}
			}
			var verdicts []string
			if len(unserved) > 0 {
				verdicts = append(verdicts, strings.Join(unserved, ", ")+" cannot be served")
			}
			if len(unknown) > 0 {
				verdicts = append(verdicts, strings.Join(unknown, ", ")+" is no scheme of this facilitator")
			}
			verdict := "every one can be served"
			if len(verdicts) > 0 {
				verdict = strings.Join(verdicts, "; ")
			}
			fmt.Fprintf(&b, "  routes   %s: %s\n", strings.Join(r.Required, ", "), verdict)
		}
		if r.RemoteRoutes > 0 {
			fmt.Fprintf(&b, "  routes   %d through a remote facilitator: not checked here (run the doctor where it runs)\n", r.RemoteRoutes)
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// writeFinding writes one finding as "  status   label: detail" and,
// unless it is ok, its fix on the next line.
func writeFinding(b *strings.Builder, f doctor.Finding, label string) {
	line := fmt.Sprintf("  %-8s %s", f.Status, label)
	if f.Detail != "" {
		line += ": " + f.Detail
	}
	b.WriteString(line + "\n")
	if f.Status != doctor.OK && f.Fix != "" {
		b.WriteString("           fix: " + f.Fix + "\n")
	}
}

// label names what a finding checked.
func label(f doctor.Finding) string {
	if f.Check == doctor.KindDomain {
		return "eip712 " + f.Subject
	}
	return f.Subject
}

// anyFailed reports whether a finding fails.
func anyFailed(fs []doctor.Finding) bool {
	for _, f := range fs {
		if f.Failed() {
			return true
		}
	}
	return false
}

// printDoctorJSON writes the reports as one JSON document.
func printDoctorJSON(out io.Writer, reports []*networkReport) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"networks": reports})
}
