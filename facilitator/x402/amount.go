package x402

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// MaxUint256 is 2^256 - 1, the largest amount a token can carry.
var MaxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseAmount parses a canonical decimal integer in smallest units: digits
// only, no sign, no leading zeros, above zero and within uint256.
func ParseAmount(s string) (*big.Int, error) {
	v, err := parseUint256(s)
	if err != nil {
		return nil, err
	}
	if v.Sign() == 0 {
		return nil, errors.New("amount must be above zero")
	}
	return v, nil
}

// parseUint256 parses a canonical decimal integer within uint256 (zero allowed).
func parseUint256(s string) (*big.Int, error) {
	return parseUint256Into(new(big.Int), nil, s)
}

// smallWords holds a number below 2^64 as big.Int words.
type smallWords [64 / bits.UintSize]big.Word

// parseUint256Into is parseUint256 into z. A number below 10^19 is kept
// in words, when given, as z's storage (big.Int.SetBits): it takes no
// allocation of its own.
func parseUint256Into(z *big.Int, words *smallWords, s string) (*big.Int, error) {
	if s == "" {
		return nil, errors.New("empty number")
	}
	if len(s) > 78 { // 2^256 has 78 digits
		return nil, errors.New("number exceeds uint256")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return nil, fmt.Errorf("%q is not a decimal integer", s)
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return nil, fmt.Errorf("%q has leading zeros", s)
	}
	if len(s) <= 19 { // below 10^19, within uint64: no big-number parsing
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a decimal integer", s)
		}
		if words == nil {
			return z.SetUint64(n), nil
		}
		for i := range words {
			words[i] = big.Word(n)
			n >>= bits.UintSize - 1
			n >>= 1
		}
		return z.SetBits(words[:]), nil
	}
	v, ok := z.SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("%q is not a decimal integer", s)
	}
	if v.Cmp(MaxUint256) > 0 {
		return nil, errors.New("number exceeds uint256")
	}
	return v, nil
}

// ParsePrice converts a price in whole tokens ("0.01") into smallest units
// for a token with the given decimals (10000 for 6 decimals). It refuses
// prices with more fractional digits than the token has, and prices that
// are zero, negative or past uint256.
func ParsePrice(price string, decimals uint8) (*big.Int, error) {
	p := strings.TrimSpace(price)
	whole, frac, hasDot := strings.Cut(p, ".")
	if whole == "" && (!hasDot || frac == "") {
		return nil, fmt.Errorf("price %q is not a decimal number", price)
	}
	if hasDot && frac == "" {
		return nil, fmt.Errorf("price %q is not a decimal number", price)
	}
	for _, part := range []string{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return nil, fmt.Errorf("price %q is not a positive decimal number", price)
			}
		}
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > int(decimals) {
		return nil, fmt.Errorf("price %q has more than %d decimal places, the token's precision", price, decimals)
	}
	digits := whole + frac + strings.Repeat("0", int(decimals)-len(frac))
	v, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, fmt.Errorf("price %q is not a decimal number", price)
	}
	if v.Sign() == 0 {
		return nil, fmt.Errorf("price %q must be above zero", price)
	}
	if v.Cmp(MaxUint256) > 0 {
		return nil, fmt.Errorf("price %q exceeds uint256 in smallest units", price)
	}
	return v, nil
}

// FormatAmount renders smallest units as whole tokens, for messages and logs.
func FormatAmount(v *big.Int, decimals uint8) string {
	if v == nil {
		return "0"
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	return new(big.Rat).SetFrac(v, scale).FloatString(int(decimals))
}
