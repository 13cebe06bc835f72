package x402cmd

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// approvePermit2 approves Permit2 on the route's token for the key, unless
// the allowance already covers max: a real transaction, paid in gas by
// the key, mined before the payment is signed.
func approvePermit2(ctx context.Context, rpcURL string, key *ecdsa.PrivateKey, accepted x402.RequirementsV2, max *big.Int, stderr io.Writer) error {
	chainID, ok := x402.ParseCAIP2(accepted.Network)
	tokenAddr, okT := x402.ParseAddress(accepted.Asset)
	if !ok || !okT {
		return fmt.Errorf("--approve-permit2: the route's network %q or asset %q cannot be read", accepted.Network, accepted.Asset)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cl, err := ethclient.DialContext(ctx, rpcURL)
	if err != nil {
		return fmt.Errorf("--approve-permit2: %w", err)
	}
	defer cl.Close()
	if id, err := cl.ChainID(ctx); err != nil || id.Int64() != chainID {
		return fmt.Errorf("--approve-permit2: %s is not chain %d (chain id %v, %v)", rpcURL, chainID, id, err)
	}
	tok, err := token.NewEIP3009Token(tokenAddr, cl)
	if err != nil {
		return fmt.Errorf("--approve-permit2: %w", err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	if a, err := tok.Allowance(&bind.CallOpts{Context: ctx}, owner, permit2.Address); err == nil && a.Cmp(max) >= 0 {
		return nil
	}
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(chainID))
	if err != nil {
		return err
	}
	opts.Context = ctx
	tx, err := tok.Approve(opts, permit2.Address, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	if err != nil {
		return fmt.Errorf("--approve-permit2: sending the approval: %w", err)
	}
	fmt.Fprintf(stderr, "x402: approving Permit2 (%s) on %s for %s: transaction %s\n", permit2.Address.Hex(), tokenAddr.Hex(), owner.Hex(), tx.Hash().Hex())
	rc, err := bind.WaitMined(ctx, cl, tx)
	if err != nil {
		return fmt.Errorf("--approve-permit2: waiting for transaction %s: %w", tx.Hash().Hex(), err)
	}
	if rc.Status != 1 {
		return fmt.Errorf("--approve-permit2: transaction %s reverted", tx.Hash().Hex())
	}
	return nil
}

// payUpto signs an upto payment (a Permit2 witness transfer of at most
// the route's maximum, which the seller settles at what was used) and
// says so. The buyer's wallet must have approved Permit2 on the token
// once (--approve-permit2 does it); the seller's refusal says so when it
// has not.
func payUpto(ctx context.Context, key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, max *big.Int, o PayOptions, stderr io.Writer) (string, error) {
	if o.wallet != nil {
		return "", fmt.Errorf("refusing to pay: the route takes scheme upto (Permit2), which --smart-wallet does not sign here; pay from the key's own address")
	}
	if o.ApprovePermit2 != "" {
		if err := approvePermit2(ctx, o.ApprovePermit2, key, accepted, max, stderr); err != nil {
			return "", err
		}
	}
	if o.PaymentID != "" {
		fmt.Fprintf(stderr, "x402: an upto payment carries no payment id here: paying without --payment-id\n")
	}
	header, err := upto.CreatePayment(key, accepted, resource, permit2.PaymentOptions{})
	if err != nil {
		return "", fmt.Errorf("signing the upto payment: %w", err)
	}
	fmt.Fprintf(stderr, "x402: paying at most %s smallest units of %s on %s from %s to %s (scheme upto: the seller settles what was used; x402 version 2)\n",
		max, accepted.Asset, accepted.Network, crypto.PubkeyToAddress(key.PublicKey).Hex(), accepted.PayTo)
	return header, nil
}

// allowanceHint names the flag that fixes a Permit2 payment (upto, or
// exact through Permit2) refused for want of the wallet's allowance to
// Permit2; "" for any other reason.
func allowanceHint(reason string) string {
	const fix = "run the command again with --approve-permit2 RPC_URL (one approval transaction from the buyer's key, paid in gas)"
	switch reason {
	case x402.ReasonPermit2AllowanceRequired: // the text says what is missing
		return ": " + fix
	case x402.CodePermit2AllowanceRequired:
		return fmt.Sprintf(": the wallet has not approved Permit2 (%s) on the token; %s", permit2.Address.Hex(), fix)
	}
	return ""
}
