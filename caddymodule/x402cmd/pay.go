package x402cmd

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// PayOptions are the flags of "caddy x402 pay".
type PayOptions struct {
	Key       string        // --key: the buyer's private key, hex
	KeyFile   string        // --key-file: a file holding it
	Method    string        // --method
	Data      string        // --data: the request body; @FILE reads it from a file
	Shape     string        // --shape: the X-PAYMENT payload shape, cronos (flat) or x402 (nested)
	Headers   []string      // --header: extra request headers 'Name: value'
	ChainID   int64         // --chain-id: the chain to sign for (0: the built-in network's)
	Network   string        // --network: pay on this network only
	MaxAmount string        // --max-amount: the most to pay, in smallest units
	Protocol  string        // --protocol: auto, v1 or v2
	Timeout   time.Duration // --timeout: of each HTTP request
	PaymentID string        // --payment-id: the x402 v2 payment-identifier id
	// NoSignIn is --no-sign-in: pay even when Sign-In-With-X is offered.
	NoSignIn bool
	// CookieJar is --cookie-jar FILE: cookies kept between runs (JSON,
	// mode 0600), such as a seller's access cookie: those for the URL are
	// sent, those the answers set are saved.
	CookieJar string
	// SmartWallet is --smart-wallet: the wallet to pay from ("devnet":
	// the devnet factory's wallet of the key, salt 0).
	SmartWallet string
	// Undeployed is --smart-wallet-undeployed: the salt of the devnet
	// factory's wallet of the key, paid from with an ERC-6492 signature.
	Undeployed string
	// MCPTool is --mcp-tool: URL is an MCP endpoint, and this tool is
	// called (and paid over MCP, pay_mcp.go).
	MCPTool string
	// MCPArgs is --args: the tool's arguments, a JSON object.
	MCPArgs string
	// ApprovePermit2 is --approve-permit2 RPC_URL: before paying an upto
	// route (or depositing into a batch-settlement route's channel by
	// Permit2), approve Permit2 on its token for the key (one transaction
	// through this JSON-RPC endpoint, skipped when the allowance covers
	// the maximum or the deposit).
	ApprovePermit2 string
	// Channels is --channels DIR: where a batch-settlement route's channel
	// records are kept (default: caddy-x402/channels in os.UserConfigDir).
	Channels string
	// Deposit is --deposit UNITS: what a new channel or a top-up deposits
	// (default: batchsettlement.DefaultDepositMultiplier x the price).
	Deposit string
	// MaxDeposit is --max-deposit UNITS: the most one deposit may be
	// (default: batchsettlement.DefaultDepositMultiplier x --max-amount).
	MaxDeposit string
	// ChannelSalt is --channel-salt N: the salt of the channel config
	// (default 0, as the published client), another salt another channel.
	ChannelSalt string
	// RPC is --rpc URL: a JSON-RPC endpoint of the channel's chain, read
	// when a channel record is missing or the seller's state must be
	// checked against the chain.
	RPC string
	// Refund is --refund: ask the seller of a batch-settlement route to
	// refund the key's channel instead of paying.
	Refund bool
	// RefundAmount is --refund-amount UNITS: refund only this much
	// (default: all that is not charged).
	RefundAmount string
	// InsecureOffers is --insecure-offers: pay an offer whose signature
	// (the x402 offer-receipt extension) does not verify, with a warning,
	// instead of refusing it.
	InsecureOffers bool
	// Receipt is --receipt FILE: write the seller's signed receipt (the
	// settlement response's offer-receipt info, JSON) to FILE.
	Receipt string

	// Resolved from the options above.
	wallet *common.Address
	deploy *exact.WalletDeployment
	jar    *cookieJar
	chans  *channelFlags
	check  *offerCheck // the offer and receipt of this payment
}

// walletOptions resolves --smart-wallet and --smart-wallet-undeployed for
// the key (the wallet's owner).
func (o *PayOptions) walletOptions(key *ecdsa.PrivateKey) error {
	owner := crypto.PubkeyToAddress(key.PublicKey)
	switch {
	case o.SmartWallet != "" && o.Undeployed != "":
		return errors.New("give --smart-wallet or --smart-wallet-undeployed, not both")
	case o.SmartWallet == "devnet":
		w := token.WalletAddress(devnet.FactoryAddress, owner, big.NewInt(devnet.DeployedWalletSalt))
		o.wallet = &w
	case o.SmartWallet != "":
		if !x402.IsAddress(o.SmartWallet) {
			return fmt.Errorf("--smart-wallet %q is not an address (0x and 40 hex digits) or devnet", o.SmartWallet)
		}
		w := common.HexToAddress(o.SmartWallet)
		o.wallet = &w
	case o.Undeployed != "":
		salt, ok := new(big.Int).SetString(o.Undeployed, 10)
		if !ok || salt.Sign() < 0 || salt.BitLen() > 256 {
			return fmt.Errorf("--smart-wallet-undeployed %q is not a salt (a whole number)", o.Undeployed)
		}
		w := token.WalletAddress(devnet.FactoryAddress, owner, salt)
		o.wallet = &w
		o.deploy = &exact.WalletDeployment{Factory: devnet.FactoryAddress, Calldata: token.CreateAccountCalldata(owner, salt)}
	}
	return nil
}

// DefaultPayMaxAmount is the most "caddy x402 pay" signs for without
// --max-amount: 1,000,000 smallest units, one whole token of a 6-decimal
// stablecoin such as USDC.e.
const DefaultPayMaxAmount = "1000000"

// payCommand is "caddy x402 pay".
func payCommand() *cobra.Command {
	var o PayOptions
	cmd := &cobra.Command{
		Use:   "pay URL [--key KEY | --key-file FILE] [--method GET] [--data BODY] [--shape cronos|x402] [--header 'K: V']... [--network NAME] [--payment-id ID] [--cookie-jar FILE] [--mcp-tool NAME --args JSON] [--receipt FILE] [--insecure-offers]",
		Short: "Fetch a URL, paying with x402 when it answers 402",
		Long: `
Fetches URL. When the answer is 402 Payment Required, picks what to pay:
with x402 version 2 (a PAYMENT-REQUIRED header), the first entry of its
accepts that is scheme exact on an eip155 network and within --max-amount;
else from the version 1 JSON body, the first entry of "accepts" (or
"paymentRequirements") that is scheme exact on a network whose chain ID
is known and within --max-amount. --network NAME pays only on that
network (a v1 name such as base-sepolia, or eip155:<chainId>): a seller
that offers several networks is paid on the one given. It signs an EIP-3009 transferWithAuthorization for
exactly the amount asked with the buyer's key and fetches URL again with
the signed payment in PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1).
--protocol v1 or v2 forces one version.

The response body goes to stdout; the settlement from the PAYMENT-RESPONSE
or X-PAYMENT-RESPONSE header goes to stderr as JSON. When the payment is refused, the command
exits with status 1 and the seller's reason.

The key is --key, --key-file, or the environment variable X402_BUYER_KEY
(64 hex digits, 0x optional). It is never printed.

The chain ID comes from the network named in the requirements
(cronos-testnet: 338, cronos-mainnet: 25); give --chain-id for others.
--max-amount refuses to sign for more than that many smallest units; it
defaults to ` + DefaultPayMaxAmount + ` (one whole token of a 6-decimal stablecoin), so a
seller asking more is refused unless --max-amount says otherwise.

--smart-wallet pays from a smart-contract wallet the key owns (EIP-1271:
the wallet takes the key's signature as its own), such as the development
chain's: a bare --smart-wallet is the devnet SmartWalletFactory's wallet of
the key for salt 0 (buyer1's is deployed at genesis with 1,000 tokens).
--smart-wallet-undeployed[=SALT] pays from the devnet factory's wallet of
the key for SALT (default 1, buyer1's funded and undeployed wallet) with an
ERC-6492 signature: the facilitator deploys it first if its network lists
the factory in smart_wallet_factories.

--payment-id sends an x402 version 2 payment-identifier id (16-128 letters,
digits, - or _) with the payment, when the seller declares the extension;
a seller that requires one gets a new id when none is given. The id is
printed: if the answer to a payment is lost, run the command again with the
same --payment-id, and a seller that took the first payment answers 409
instead of charging a second time.

When the 402 declares Sign-In-With-X (a seller's "access" window), the key
first signs the seller's challenge and asks again with SIGN-IN-WITH-X: a
key whose earlier payment bought access is served without paying, and says
so on stderr; otherwise it pays as above. --no-sign-in pays at once.

--mcp-tool NAME [--args JSON] takes URL as an MCP endpoint (streamable
HTTP): it initializes a session, calls the tool and, when the result is an
x402 PaymentRequired, pays it with the payment in
params._meta["x402/payment"] (x402 over MCP) and calls it again. The tool's
result goes to stdout, the settlement from its _meta to stderr.

On a batch-settlement route (a payment channel), the first call deposits
into the key's channel to the seller (--deposit, default 5 x the price,
at most --max-deposit, default 5 x --max-amount) with a voucher for the
first request; later calls sign the next cumulative voucher (no
transaction). The channel is kept in --channels DIR (one JSON file per
channel, mode 0600, locked while a command pays from it). A corrective 402
from the seller resynchronises it, trusting only figures a voucher of the
key's backs (or the chain, read through --rpc URL), and the call is sent
again once. --refund asks the seller to refund what is not charged
(--refund-amount for part of it).

A paid answer that sets the seller's access cookie (x402_access_...) is
reported on stderr with the end of its window. --cookie-jar FILE keeps
cookies between runs (JSON, written with mode 0600, read when it exists):
the cookies it holds for the URL's host and path are sent, and those the
answers set are saved, so a run within an access window is served by the
cookie without paying or signing in.

When the 402 carries signed offers (the x402 offer-receipt extension), the
offer of the entry it pays is verified first: its signature by a key of the
seller's did:web document (a JWS's kid names it, and it must be the site's:
the did:web of URL's host or the DID its /.well-known/did.json names; for
EIP-712, that document, or the receipt_did it names), its fields equal to
the entry's, not expired. An offer that
does not verify is refused, with the reason; --insecure-offers pays it with
a warning. After paying, the seller's signed receipt is verified (its
signature, that it is for the offer and the payer, and that what it says
was charged is no more than was paid) and printed on stderr; a receipt
that does not verify is an error (the answer is still printed). --receipt
FILE writes the receipt (JSON) to FILE.
`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunPay(commandContext(cmd), args[0], o, os.Stdout, os.Stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Key, "key", "", "the buyer's private key, hex (default: $"+EnvBuyerKey+")")
	f.StringVar(&o.KeyFile, "key-file", "", "file holding the buyer's private key, hex")
	f.StringVarP(&o.Method, "method", "X", http.MethodGet, "HTTP method")
	f.StringVarP(&o.Data, "data", "d", "", "request body; @FILE reads it from a file")
	f.StringVar(&o.Shape, "shape", "cronos", "x402 version 1 X-PAYMENT payload shape: cronos (flat) or x402 (nested authorization)")
	f.StringArrayVarP(&o.Headers, "header", "H", nil, "extra request header 'Name: value' (repeatable)")
	f.Int64Var(&o.ChainID, "chain-id", 0, "chain ID to sign for (default: the built-in network's)")
	f.StringVar(&o.Network, "network", "", "pay on this network only (a name such as cronos-testnet or base-sepolia, or eip155:<chainId>; default: the first the seller offers that can be paid)")
	f.StringVar(&o.MaxAmount, "max-amount", DefaultPayMaxAmount, "refuse to pay more than this many smallest token units")
	f.StringVar(&o.Protocol, "protocol", "auto", "x402 version to pay with: auto (v2 when offered), v1 or v2")
	f.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "timeout of each HTTP request (settling waits for a block)")
	f.StringVar(&o.PaymentID, "payment-id", "", "x402 v2 payment-identifier id to pay under (default: a new one when the seller requires it)")
	f.StringVar(&o.SmartWallet, "smart-wallet", "", "pay from this EIP-1271 smart-contract wallet, which the key owns (bare --smart-wallet: the devnet's wallet of the key)")
	f.Lookup("smart-wallet").NoOptDefVal = "devnet"
	f.StringVar(&o.Undeployed, "smart-wallet-undeployed", "", "pay from the devnet factory's wallet of the key for this salt, not deployed yet, with an ERC-6492 signature (bare flag: salt 1)")
	f.Lookup("smart-wallet-undeployed").NoOptDefVal = strconv.Itoa(devnet.UndeployedWalletSalt)
	f.StringVar(&o.CookieJar, "cookie-jar", "", "keep cookies (the seller's access cookie) in this JSON file, mode 0600: sent when they match the URL, saved when set")
	f.StringVar(&o.MCPTool, "mcp-tool", "", "URL is an MCP endpoint (streamable HTTP): call this tool, paying it with x402 over MCP")
	f.StringVar(&o.MCPArgs, "args", "", "the --mcp-tool's arguments, a JSON object")
	f.StringVar(&o.ApprovePermit2, "approve-permit2", "", "before paying an upto route or depositing by Permit2 into a batch-settlement route's channel, approve Permit2 on its token for the key: one transaction sent through this JSON-RPC URL, once per token and wallet (skipped when the allowance covers the maximum or the deposit)")
	f.StringVar(&o.Channels, "channels", "", "keep batch-settlement channel records in this directory (one JSON file per channel, mode 0600; default: caddy-x402/channels in the user's config directory)")
	f.StringVar(&o.Deposit, "deposit", "", "on a batch-settlement route, deposit this many smallest units when opening or topping up a channel (default: "+strconv.Itoa(batchsettlement.DefaultDepositMultiplier)+" x the price)")
	f.StringVar(&o.MaxDeposit, "max-deposit", "", "refuse a channel deposit above this many smallest units (default: "+strconv.Itoa(batchsettlement.DefaultDepositMultiplier)+" x --max-amount)")
	f.StringVar(&o.ChannelSalt, "channel-salt", "", "the salt of the batch-settlement channel config (default 0; another salt opens another channel with the same seller)")
	f.StringVar(&o.RPC, "rpc", "", "JSON-RPC URL of the chain, read to recover a batch-settlement channel whose record is missing and to check the seller's channel state")
	f.BoolVar(&o.Refund, "refund", false, "on a batch-settlement route, ask the seller to refund the key's channel (what is not charged goes back to the key) instead of paying")
	f.StringVar(&o.RefundAmount, "refund-amount", "", "with --refund, refund only this many smallest units (default: all that is not charged)")
	f.BoolVar(&o.InsecureOffers, "insecure-offers", false, "pay a seller's signed offer that does not verify (a warning instead of a refusal)")
	f.StringVar(&o.Receipt, "receipt", "", "write the seller's signed receipt (the settlement response's offer-receipt info, JSON) to this file")
	f.BoolVar(&o.NoSignIn, "no-sign-in", false, "pay even when the seller offers Sign-In-With-X (by default the key signs in first, and pays only if it holds no access grant)")
	return cmd
}

// RunPay is "caddy x402 pay URL": it fetches url and, when it answers 402,
// pays and fetches it again. The body goes to stdout, what happened to stderr.
func RunPay(ctx context.Context, url string, o PayOptions, stdout, stderr io.Writer) error {
	key, err := payKey(o)
	if err != nil {
		return err
	}
	if err := o.walletOptions(key); err != nil {
		return err
	}
	var shape x402.PayloadShape
	switch strings.ToLower(o.Shape) {
	case "cronos", "":
		shape = x402.ShapeCronos
	case "x402":
		shape = x402.ShapeX402
	default:
		return fmt.Errorf("--shape must be cronos or x402, not %q", o.Shape)
	}
	if o.MaxAmount == "" {
		o.MaxAmount = DefaultPayMaxAmount
	}
	maxAmount, err := x402.ParseAmount(o.MaxAmount)
	if err != nil {
		return fmt.Errorf("--max-amount: %w", err)
	}
	switch o.Protocol {
	case "", "auto", "v1", "v2":
	default:
		return fmt.Errorf("--protocol must be auto, v1 or v2, not %q", o.Protocol)
	}
	if o.RefundAmount != "" && !o.Refund {
		return errors.New("--refund-amount goes with --refund")
	}
	if o.chans, err = parseChannelFlags(o, maxAmount); err != nil {
		return err
	}
	if o.PaymentID != "" && !x402.ValidPaymentID(o.PaymentID) {
		return fmt.Errorf("--payment-id %q: %s", o.PaymentID, x402.ReasonPaymentIDFormat)
	}
	body, err := requestBody(o.Data)
	if err != nil {
		return err
	}
	header := make(http.Header)
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--header %q: want 'Name: value'", h)
		}
		header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if o.CookieJar != "" {
		if o.jar, err = loadCookieJar(o.CookieJar); err != nil {
			return err
		}
	}
	client := &http.Client{Timeout: o.Timeout}
	o.check = newOfferCheck(ctx, client, url, o, payerOf(key, o), stderr)
	if o.MCPTool != "" {
		return runPayMCP(ctx, url, key, maxAmount, o, header, client, stdout, stderr)
	}
	do := func(paymentHeader, payment string) (*http.Response, []byte, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, strings.ToUpper(o.Method), url, rd)
		if err != nil {
			return nil, nil, err
		}
		req.Header = header.Clone()
		if payment != "" {
			req.Header.Set(paymentHeader, payment)
		}
		if o.jar != nil {
			o.jar.addTo(req, time.Now())
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		if o.jar != nil && o.jar.keep(req.URL, resp, time.Now()) {
			if err := o.jar.save(); err != nil {
				fmt.Fprintf(stderr, "x402: could not save the cookies in --cookie-jar %s: %v\n", o.CookieJar, err)
			}
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the response: %w", err)
		}
		return resp, data, nil
	}

	var sentCookie *jarCookie
	if o.jar != nil {
		if u, err := neturl.Parse(url); err == nil {
			sentCookie = o.jar.sentAccess(u, time.Now())
		}
	}
	resp, data, err := do("", "")
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusPaymentRequired {
		// Not a paywall, or served by the access cookie of the jar: print
		// the answer as it is.
		if until := resp.Header.Get(httpx.HeaderAccessUntil); sentCookie != nil && until != "" && resp.StatusCode < 400 {
			fmt.Fprintf(stderr, "x402: served by the access cookie %s from %s (access until %s): no new payment\n", sentCookie.Name, o.CookieJar, until)
		}
		if err := writeBody(stdout, data); err != nil {
			return err
		}
		if resp.StatusCode >= 400 {
			return fmt.Errorf("%s answered %s (no payment asked)", url, resp.Status)
		}
		return nil
	}

	done, resp, data, err := signInFirst(url, resp, data, key, o, do, stdout, stderr)
	if done {
		return err
	}
	if v2 := resp.Header.Get(x402.HeaderPaymentRequired); v2 != "" && o.Protocol != "v1" {
		return payV2(ctx, url, v2, key, maxAmount, o, do, stdout, stderr)
	}
	if o.Protocol == "v2" {
		return fmt.Errorf("%s offers no x402 version 2 payment (no PAYMENT-REQUIRED header)", url)
	}
	if o.PaymentID != "" {
		fmt.Fprintf(stderr, "x402: paying with x402 version 1, which has no payment-identifier: paying without --payment-id\n")
	}
	var pr x402.PaymentRequired
	if err := json.Unmarshal(data, &pr); err != nil {
		return fmt.Errorf("the 402 answer is not x402 JSON: %w", err)
	}
	if pr.X402Version == x402.Version2 {
		// A route whose scheme is x402 version 2 only (upto,
		// batch-settlement) says so in its body, and lists no version 1
		// requirements to sign for.
		if o.Protocol == "v1" {
			return fmt.Errorf("%s is paid with x402 version 2 only (its 402 body says x402Version 2): pay without --protocol v1", url)
		}
		return fmt.Errorf("%s is paid with x402 version 2 only (its 402 body says x402Version 2), but its answer has no PAYMENT-REQUIRED header to pay it with", url)
	}
	reqs, value, err := chooseV1(&pr, maxAmount, o.Network, o.ChainID)
	if err != nil {
		return err
	}
	if err := o.check.checkV1(data, resp.Header.Get(x402.HeaderPaymentRequired), reqs, value); err != nil {
		return err
	}
	opts := exact.PaymentOptions{Shape: shape, Wallet: o.wallet, Deploy: o.deploy}
	if o.ChainID != 0 {
		opts.ChainID = big.NewInt(o.ChainID)
	}
	paymentHeader, payment, err := exact.CreatePayment(key, reqs, opts)
	if err != nil {
		if _, builtin := network.Builtin(reqs.Network); !builtin && o.ChainID == 0 {
			return fmt.Errorf("signing the payment: %w (network %q is not built in: give --chain-id)", err, reqs.Network)
		}
		return fmt.Errorf("signing the payment: %w", err)
	}
	amount := value.String() + " smallest units"
	if n, ok := network.Builtin(reqs.Network); ok {
		amount = x402.FormatAmount(value, n.Decimals) + " tokens (" + value.String() + " smallest units)"
	}
	fmt.Fprintf(stderr, "x402: paying %s of %s on %s from %s to %s\n",
		amount, reqs.Asset, reqs.Network, payment.Authorization.From.Hex(), reqs.PayTo)

	resp, data, err = do("X-PAYMENT", paymentHeader)
	if err != nil {
		return err
	}
	settlement := resp.Header.Get("X-PAYMENT-RESPONSE")
	if settlement != "" {
		fmt.Fprintf(stderr, "x402: settlement (X-PAYMENT-RESPONSE):\n%s\n", decodePaymentResponse(settlement))
	}
	moved, tx := settledIn(settlement)
	if resp.StatusCode == http.StatusPaymentRequired {
		var refused x402.PaymentRequired
		reason := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &refused) == nil && refused.Error != "" {
			reason = refused.Error
		}
		if reason == x402.ErrTextPending {
			return fmt.Errorf("payment refused: %s: the transfer was broadcast and may still move the money%s; the seller did not deliver", reason, txNote(tx))
		}
		return fmt.Errorf("payment refused: %s (no money moved)", reason)
	}
	if err := writeBody(stdout, data); err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		if moved {
			return fmt.Errorf("%s answered %s after the payment was settled: money moved%s", url, resp.Status, txNote(tx))
		}
		var failed struct {
			Error string `json:"error"`
		}
		why := ""
		if json.Unmarshal(data, &failed) == nil && failed.Error != "" {
			why = ": " + failed.Error
		}
		return fmt.Errorf("%s answered %s%s; no settlement was reported, so no money moved (the signed authorization stays valid until %s: the seller could still use it)",
			url, resp.Status, why, time.Unix(payment.Authorization.ValidBefore.Int64(), 0).UTC().Format(time.RFC3339))
	}
	reportAccessCookie(resp, o.jar, stderr)
	if settlement == "" {
		fmt.Fprintf(stderr, "x402: %s answered %s without an X-PAYMENT-RESPONSE header\n", url, resp.Status)
	}
	return o.check.receipt(settlementJSON(settlement))
}

// payerOf is the address that pays: --smart-wallet's, or the key's.
func payerOf(key *ecdsa.PrivateKey, o PayOptions) string {
	if o.wallet != nil {
		return o.wallet.Hex()
	}
	return crypto.PubkeyToAddress(key.PublicKey).Hex()
}

// payKey reads the buyer's key from --key, --key-file or the environment.
// Its errors never repeat the key.
func payKey(o PayOptions) (*ecdsa.PrivateKey, error) {
	switch {
	case o.Key != "" && o.KeyFile != "":
		return nil, errors.New("give --key or --key-file, not both")
	case o.Key != "":
		k, err := evm.ParseKey(o.Key)
		if err != nil {
			return nil, fmt.Errorf("--key, the buyer's key: %w", err)
		}
		return k, nil
	case o.KeyFile != "":
		k, err := evm.KeyFromFile(o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("--key-file, the buyer's key: %w", err)
		}
		return k, nil
	case os.Getenv(EnvBuyerKey) != "":
		k, err := evm.KeyFromEnv(EnvBuyerKey)
		if err != nil {
			return nil, fmt.Errorf("the buyer's key: %w", err)
		}
		return k, nil
	}
	return nil, fmt.Errorf("no buyer key: give --key, --key-file or $%s", EnvBuyerKey)
}

// requestBody returns the --data body: nil for none, a file's contents for
// @FILE.
func requestBody(data string) ([]byte, error) {
	if data == "" {
		return nil, nil
	}
	if name, ok := strings.CutPrefix(data, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("--data: %w", err)
		}
		return b, nil
	}
	return []byte(data), nil
}
