package x402cmd

import (
	"context"

	"github.com/spf13/cobra"
)

// commandContext is the context a command runs its work in: cobra's, or
// the background when it has none.
func commandContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
