package access

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// RotateKey adds a generation of the server key to src and removes the
// generations that no route may still honour, given the config's longest
// access window and how many routes have one (none: nothing is removed),
// and tells out what changed ("caddy x402 rotate-key").
func RotateKey(ctx context.Context, src KeySource, window time.Duration, routes int, out io.Writer) error {
	now := time.Now()
	var keep func(store.SecretVersion, time.Time) bool
	if routes > 0 {
		keep = KeepKey(now, window)
	}
	added, dropped, err := src.Rotate(ctx, keep)
	if err != nil {
		return fmt.Errorf("rotating the access server key in %s: %w", src.Where(), err)
	}
	fmt.Fprintf(out, "x402: the access server key is now generation %d in %s.\n", added.Gen, src.Where())
	if added.Gen == 1 {
		fmt.Fprintf(out, "There was none: instances make it at their start, and this is the one they will use.\n")
		return nil
	}
	fmt.Fprintf(out, "Running instances sign with it within %s; they honour generation %d", accessKeyPoll, added.Gen-1)
	if routes > 0 {
		fmt.Fprintf(out, " until %s (the longest access window, %s, after its last signature).\n",
			added.Created.Add(accessKeySlack()+max(window, siwxMaxAge+siwxSkew)).UTC().Format(time.RFC3339), window)
	} else {
		fmt.Fprintf(out, " until what it signed expires (no route of this config has access, so no key was removed).\n")
	}
	for _, v := range dropped {
		fmt.Fprintf(out, "Removed generation %d: nothing it signed is honoured any more.\n", v.Gen)
	}
	return nil
}
