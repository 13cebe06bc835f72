// Command buyer is a minimal x402 buyer: it fetches a URL and, when the
// answer is 402 Payment Required, signs the payment the seller asks for with
// exact.CreatePayment and fetches the URL again with the X-PAYMENT
// header. It prints the paid body to stdout and the settlement (the
// X-PAYMENT-RESPONSE header) to stderr.
//
// Run it against the offline quick start (Caddyfile.example at the
// repository root), with the development chain's TEST-ONLY buyer 1 key:
//
//	go run ./caddy run --config Caddyfile.example &
//	X402_BUYER_KEY=0x087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4 \
//		go run ./examples/buyer -url http://localhost:8080/api/weather
//
// The key may also be given with -key, which leaves it in the shell history
// and the process list; prefer the environment variable for real keys.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func main() {
	url := flag.String("url", "", "URL to fetch and pay for")
	hexKey := flag.String("key", "", "buyer private key, hex (default: $X402_BUYER_KEY)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("buyer: ")
	if *url == "" {
		log.Fatal("-url is required")
	}
	if *hexKey == "" {
		*hexKey = os.Getenv("X402_BUYER_KEY")
	}
	key, err := evm.ParseKey(*hexKey)
	if err != nil {
		log.Fatalf("buyer key (-key or $X402_BUYER_KEY): %v", err)
	}

	// Settling waits for the payment's block, so allow a generous timeout.
	client := &http.Client{Timeout: 2 * time.Minute}

	// 1. Ask for the resource without paying.
	resp, body := get(client, *url, "")
	if resp.StatusCode != http.StatusPaymentRequired {
		os.Stdout.Write(body)
		return
	}

	// 2. Read what the seller asks for. The x402 reference shape lists the
	// options in "accepts"; the Cronos facilitator's shape has a single
	// "paymentRequirements". Sellers built with caddy-x402 send both.
	var ask x402.PaymentRequired
	if err := json.Unmarshal(body, &ask); err != nil {
		log.Fatalf("402 body is not x402 JSON: %v", err)
	}
	reqs, err := ask.Requirements()
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("paying %s smallest units of %s on %s to %s", reqs.MaxAmountRequired, reqs.Asset, reqs.Network, reqs.PayTo)

	// 3. Sign an EIP-3009 authorization for exactly that amount. The chain
	// ID comes from the built-in network (cronos-testnet: 338); set
	// PaymentOptions.ChainID for other networks.
	header, _, err := exact.CreatePayment(key, reqs, exact.PaymentOptions{})
	if err != nil {
		log.Fatalf("signing: %v", err)
	}

	// 4. Ask again, with the payment.
	resp, body = get(client, *url, header)
	if s := resp.Header.Get("X-PAYMENT-RESPONSE"); s != "" {
		if js, err := x402.DecodeBase64(s); err == nil {
			fmt.Fprintf(os.Stderr, "settlement: %s\n", js)
		}
	}
	if resp.StatusCode != http.StatusOK {
		log.Fatalf("paid request answered %s: %s", resp.Status, body)
	}
	os.Stdout.Write(body)
}

// get fetches url, with an X-PAYMENT header when payment is not empty.
func get(client *http.Client, url, payment string) (*http.Response, []byte) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		log.Fatal(err)
	}
	if payment != "" {
		req.Header.Set("X-PAYMENT", payment)
	}
	resp, err := client.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	return resp, body
}
