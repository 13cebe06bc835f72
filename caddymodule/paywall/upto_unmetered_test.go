package paywall

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestUptoWithoutMeterWarns (issue 33): an upto route without a meter
// warns at start that it charges the maximum and says what to add; one
// with a meter does not.
func TestUptoWithoutMeterWarns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		meter *Meter
		warns bool
	}{
		{"no meter", nil, true},
		{"meter", &Meter{Kind: "json", Path: "usage.total_tokens", UnitPrice: "0.000002"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zapcore.WarnLevel)
			u := &uptoSeller{logger: zap.New(core), meter: &meterer{meter: tc.meter}}
			u.warnUnmetered()
			got := logs.FilterMessageSnippet("charged the maximum").All()
			if tc.warns != (len(got) == 1) {
				t.Fatalf("warnings %v, want one: %v", logs.All(), tc.warns)
			}
			if tc.warns && !strings.Contains(got[0].Message, "add meter json") {
				t.Errorf("the warning does not say what to add: %s", got[0].Message)
			}
		})
	}
}
