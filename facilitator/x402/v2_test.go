package x402

import (
	"encoding/json"
	"testing"
)

func TestCAIP2(t *testing.T) {
	for _, tc := range []struct {
		in    string
		id    int64
		ok    bool
		anyOK bool // ChainIDOf
	}{
		{"eip155:338", 338, true, true},
		{"EIP155:25", 25, true, true},
		{"eip155:0", 0, false, false},
		{"eip155:0338", 0, false, false},
		{"eip155:-1", 0, false, false},
		{"eip155:", 0, false, false},
		{"solana:mainnet", 0, false, false},
		{"cronos-testnet", 0, false, true},
		{"base-sepolia", 0, false, true},
	} {
		id, ok := ParseCAIP2(tc.in)
		if ok != tc.ok || (ok && id != tc.id) {
			t.Errorf("ParseCAIP2(%q) = %d, %v", tc.in, id, ok)
		}
		if _, ok := ChainIDOf(tc.in); ok != tc.anyOK {
			t.Errorf("ChainIDOf(%q) ok = %v", tc.in, ok)
		}
	}
	if CAIP2(338) != "eip155:338" {
		t.Error(CAIP2(338))
	}
}

func TestCodeOf(t *testing.T) {
	for _, tc := range []struct{ text, code string }{
		{ReasonInvalidSignature, CodeSignature},
		{ErrTextInvalidSignature, CodeSignature},
		{ReasonInvalidBase64, CodeInvalidPayload},
		{ReasonRecipient, CodeRecipientMismatch},
		{ErrTextAlreadyUsed, CodeNonceAlreadyUsed},
		{ErrTextExpired, CodeValidBefore},
		{ErrTextNotYetValid, CodeValidAfter},
		{ErrTextInsufficientFunds, CodeInsufficientFunds},
		{ErrTextFailedOnChain, CodeInvalidTxState},
		{ErrTextPending, CodeSettlementPending},
		{ReasonUnsupportedScheme("upto"), CodeUnsupportedScheme},
		{ReasonUnsupportedNetwork("moon"), CodeInvalidNetwork},
		{ReasonUnsupportedAsset("0x1"), CodeInvalidRequirements},
		{ReasonInvalidAmount("5"), CodeValueMismatch},
		{"Invalid payment payload: nonce must be 32 bytes of 0x-prefixed hex", CodeInvalidPayload},
		{"Unsupported x402Version: 3", CodeInvalidVersion},
		{ReasonSimulationFailed("out of gas"), CodeSimulationFailed},
		{"something else", CodeUnexpectedSettleError},
	} {
		if got := CodeOf(tc.text, CodeUnexpectedSettleError); got != tc.code {
			t.Errorf("CodeOf(%q) = %q, want %q", tc.text, got, tc.code)
		}
	}
}

// TestSettleAnswers renders a settle outcome in each dialect and reads
// every shape back.
func TestSettleAnswers(t *testing.T) {
	block := uint64(7)
	ok := &SettleResponse{X402Version: 1, Event: EventSettled, TxHash: "0xaa", From: "0xbb", To: "0xcc", Value: "10", BlockNumber: &block, Network: "cronos-testnet", Timestamp: "t"}
	pending := Failed("cronos-testnet", ErrTextPending)
	pending.TxHash = "0xdd"

	b, _ := json.Marshal(ok.Cronos(""))
	want := `{"x402Version":1,"event":"payment.settled","txHash":"0xaa","from":"0xbb","to":"0xcc","value":"10","blockNumber":7,"network":"cronos-testnet","timestamp":"t","success":true,"transaction":"0xaa","payer":"0xbb"}`
	if string(b) != want {
		t.Errorf("Cronos settled:\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(pending.Reference("0xbb", "eip155:338"))
	want = `{"success":false,"errorReason":"settlement_pending","errorMessage":"Settlement pending","transaction":"0xdd","network":"eip155:338","payer":"0xbb"}`
	if string(b) != want {
		t.Errorf("v2 pending:\n got %s\nwant %s", b, want)
	}

	for _, tc := range []struct {
		name, body             string
		event, txHash, errText string
		bad                    bool
	}{
		{"cronos", `{"x402Version":1,"event":"payment.settled","txHash":"0xaa","network":"cronos-testnet"}`, EventSettled, "0xaa", "", false},
		{"cronos failed", `{"x402Version":1,"event":"payment.failed","error":"Authorization already used","network":"n"}`, EventFailed, "", ErrTextAlreadyUsed, false},
		{"reference", `{"success":true,"transaction":"0xaa","network":"eip155:338","payer":"0xbb"}`, EventSettled, "0xaa", "", false},
		{"reference failed", `{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"base-sepolia"}`, EventFailed, "", "insufficient_funds", false},
		{"reference pending", `{"success":false,"errorReason":"settlement_pending","transaction":"0xdd","network":"eip155:338"}`, EventFailed, "0xdd", ErrTextPending, false},
		{"neither", `{"network":"x"}`, "", "", "", true},
	} {
		var a AnySettleAnswer
		if err := json.Unmarshal([]byte(tc.body), &a); err != nil {
			t.Fatal(err)
		}
		s, err := a.Normalize()
		if tc.bad {
			if err == nil {
				t.Errorf("%s: an answer that does not say whether it settled was accepted", tc.name)
			}
			continue
		}
		if err != nil || s.Event != tc.event || s.TxHash != tc.txHash || s.Error != tc.errText {
			t.Errorf("%s: %+v, %v", tc.name, s, err)
		}
	}
}
